#!/usr/bin/env bash
# Builds the WebAssembly component: target/component/stoic.wasm and its WIT.
# stoic-component (the core plus wit-bindgen's bindings) is compiled for
# wasm32-unknown-unknown with the size-first `component-size` profile, shrunk by
# wasm-opt (binaryen, from npm), and wrapped into a component by `jco new`
# (wasm-tools' `component new`, from npm). No WASI adapter: the module
# imports nothing, and the component is checked to import nothing.
# Steps whose inputs did not change are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-target}
core="$target_dir/wasm32-unknown-unknown/component-size/stoic_component.wasm"
# The component itself always lands in this checkout's target/component,
# where the suites, the examples and `make size` look, wherever cargo builds.
out=target/component
bin=component/js/node_modules/.bin


stamp=component/js/node_modules/.stoic-lock
if [ ! -f "$stamp" ] || ! cmp -s component/js/package-lock.json "$stamp"; then
  echo "component: npm ci (jco, binaryen)"
  (cd component/js && npm ci --no-audit --no-fund --ignore-scripts)
  cp component/js/package-lock.json "$stamp"
fi

cargo build --quiet --locked -p stoic-component --target wasm32-unknown-unknown --profile component-size

sum=$(sha256sum "$core" wit/stoic.wit | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.stamp" 2>/dev/null || true)" != "$sum" ]; then
  echo "component: wasm-opt + jco new"
  mkdir -p "$out"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # wasm-opt keeps the `component-type` custom section jco new reads.
  component/js/node_modules/binaryen/bin/wasm-opt -Os --strip-debug --strip-producers \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-multivalue \
    "$core" -o "$tmp/core.wasm"
  "$bin/jco" new "$tmp/core.wasm" -o "$tmp/stoic.wasm"
  "$bin/jco" wit "$tmp/stoic.wasm" > "$tmp/stoic.wit"
  if grep -q '^\s*import ' "$tmp/stoic.wit"; then
    echo "component: the component imports something; it must import nothing:" >&2
    grep '^\s*import ' "$tmp/stoic.wit" >&2
    exit 1
  fi
  mv "$tmp/stoic.wasm" "$out/stoic.wasm"
  cp wit/stoic.wit "$out/stoic.wit"
  echo "$sum" > "$out/.stamp"
fi
size=$(stat -c %s "$out/stoic.wasm")
gz=$(gzip -9 -c "$out/stoic.wasm" | wc -c)
echo "component: $out/stoic.wasm, $size bytes, $gz gzipped; imports: none"
