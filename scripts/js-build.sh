#!/usr/bin/env bash
# Builds npm/dist: the stoic-wasm module (release, size-optimised), its
# wasm-bindgen glue (web target: ES module with initSync / async init), and
# the TypeScript runtime. Steps whose inputs did not change are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-target}
wasm="$target_dir/wasm32-unknown-unknown/release/stoic_wasm.wasm"
out=npm/dist/wasm
bin=npm/node_modules/.bin

# Size first ("s": within 2 % of "z" after wasm-opt, and about 1.6x faster on
# the decision path), LTO, one codegen unit. panic = "abort": no unwinding
# code is linked (the crate's lints forbid panicking constructs anyway).
# stoic-core alone is built for speed (opt-level 3): its decision path is
# what every call runs, about twice as fast so, for about 5 % more gzipped
# module. The binding instantiates the generic (de)serialization of configs
# and snapshots itself, so that bulk stays size-first.
CARGO_PROFILE_RELEASE_OPT_LEVEL=s \
CARGO_PROFILE_RELEASE_LTO=fat \
CARGO_PROFILE_RELEASE_PANIC=abort \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  cargo build --quiet --locked -p stoic-wasm --target wasm32-unknown-unknown --release \
  --config 'profile.release.package.stoic-core.opt-level = 3'

# Regenerate when the module's bytes changed (a content check: checkouts that
# share a target dir can hand back an older file with an older mtime).
sum=$(sha256sum "$wasm" | cut -d' ' -f1)
if [ "$(cat "$out/.stamp" 2>/dev/null || true)" != "$sum" ]; then
  echo "js-build: wasm-bindgen + wasm-opt"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  wasm-bindgen --target web --weak-refs --out-dir "$tmp" "$wasm"
  "$bin/wasm-opt" -Os --strip-debug --strip-producers \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$tmp/stoic_wasm_bg.wasm" -o "$tmp/opt.wasm"
  mv "$tmp/opt.wasm" "$tmp/stoic_wasm_bg.wasm"
  rm -rf "$out" && mkdir -p "$out"
  cp "$tmp"/stoic_wasm.js "$tmp"/stoic_wasm.d.ts "$tmp"/stoic_wasm_bg.wasm "$out"/
  echo "$sum" > "$out/.stamp"
fi

echo "js-build: tsc"
"$bin/tsc" -p npm/tsconfig.build.json

raw=$(wc -c < "$out/stoic_wasm_bg.wasm")
gz=$(( $(gzip -9c "$out/stoic_wasm_bg.wasm" | wc -c) + $(gzip -9c "$out/stoic_wasm.js" | wc -c) ))
echo "js-build: wasm ${raw} bytes; wasm + glue gzipped ${gz} bytes"
