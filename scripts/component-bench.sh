#!/usr/bin/env bash
# The component's decision cost (not a test), next to the native paths: the
# Python extension (a release wheel) against wasmtime-py, and the npm
# package's wasm-bindgen module against jco's transpile. Needs npm/dist and
# the component (`make bench` builds both). Writes JSON to $1 when given.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-15}
out=${1:-}

# shellcheck source=scripts/py-bench-venv.sh
. scripts/py-bench-venv.sh
python_json=$("$VENV/bin/python" bench/component/decision.py --rounds "$ROUNDS" --n "${PY_N:-2000}")
js_json=$(STOIC_DIST="$(pwd)/npm/dist" COMPONENT_JS="$(pwd)/target/component/js/stoic.js" \
  ROUNDS="$ROUNDS" N="${JS_N:-10000}" node bench/component/decision.mjs)
size=$(stat -c %s target/component/stoic.wasm)
gz=$(gzip -9 -c target/component/stoic.wasm | wc -c)
result="{\"python\": $python_json, \"js\": $js_json, \"component_bytes\": $size, \"component_gzip\": $gz}"
echo "$result"
if [ -n "$out" ]; then echo "$result" > "$out"; fi
