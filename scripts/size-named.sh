#!/usr/bin/env bash
# The browser's client module as it ships (wasm-bindgen, then wasm-opt with
# the shipped flags), but keeping its function names (`-g`), for
# `make size`'s breakdown: sizes after wasm-opt, with what it inlined
# counted where it went. The names make wasm-opt's output a few hundred
# bytes larger than the shipped module; the breakdown is of code, not of
# that. Writes target/client/stoic_client_named.wasm; run after js-build.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/wasm-opt-flags.sh
. scripts/wasm-opt-flags.sh
dir=${CARGO_TARGET_DIR:-target}/client
if [ ! -f "$dir/stoic_client_bindgen.wasm" ]; then
  echo "size: $dir/stoic_client_bindgen.wasm is missing; run \`make js-build\`" >&2
  exit 1
fi
# shellcheck disable=SC2046 # the flags are words
npm/node_modules/.bin/wasm-opt $(wasm_opt_flags stoic_client) -g \
  "$dir/stoic_client_bindgen.wasm" -o "$dir/stoic_client_named.wasm"
