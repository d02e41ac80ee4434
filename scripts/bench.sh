#!/usr/bin/env bash
# `make bench`: every benchmark in one run, then bench/RESULTS.md.
# - Rust: criterion, the decision path of stoic-core (bench/rust);
# - Python: stoic against tenacity, stamina and backoff (scripts/py-bench.sh,
#   a release wheel and the pinned peers in a scratch venv);
# - JavaScript: stoic against cockatiel, p-retry and exponential-backoff,
#   and bundle sizes (scripts/js-bench.sh, pinned peers in a scratch folder;
#   needs npm/dist, which `make bench` builds first);
# - the bytes each toolchain's build of a tiny app ships (npm/test/toolchains.test.js);
# - the WebAssembly component's decision cost in wasmtime-py and jco
#   (scripts/component-bench.sh; needs `make component-js`, which `make bench` builds).
# Each writes JSON to target/bench-results/; bench/report.py turns them into
# bench/RESULTS.md. Knobs: ROUNDS (paired rounds, Python and JS; 31), N (calls
# per round and library; 5000 Python, 10000 JS), CRITERION_SECONDS
# (criterion's measurement time per case; 3), BENCH_CLOCK (cpu, the
# default, or wall: what the Python and JS harnesses time).
set -euo pipefail
cd "$(dirname "$0")/.."

out=target/bench-results
PYTHON=${PYTHON:-python3}
ROUNDS=${ROUNDS:-31}
# Calls per round and library: Python's peers are slow, so fewer there.
PY_N=${N:-5000}
JS_N=${N:-10000}
CRITERION_SECONDS=${CRITERION_SECONDS:-3}
export ROUNDS CRITERION_SECONDS

mkdir -p "$out"
rm -f "$out"/*.json
"$PYTHON" bench/report.py start "$out"

echo "== $(date -u +%T) Rust (criterion, ${CRITERION_SECONDS} s per case)"
cargo bench --quiet --locked -p stoic-bench --bench decision -- \
  --warm-up-time 1 --measurement-time "$CRITERION_SECONDS"
"$PYTHON" bench/report.py rust "$out"

echo "== $(date -u +%T) Python (${ROUNDS} rounds of ${PY_N} calls)"
scripts/py-bench.sh --rounds "$ROUNDS" --n "$PY_N" --clock "${BENCH_CLOCK:-cpu}" --json "$(pwd)/$out/python.json"
export STOIC_BENCH_WHEEL_BUILT=1

echo "== $(date -u +%T) JavaScript (${ROUNDS} rounds of ${JS_N} calls)"
N=$JS_N BENCH_JSON="$(pwd)/$out/js.json" COLD_JSON="$(pwd)/$out/coldstart.json" ENGINE_JSON="$(pwd)/$out/engine.json" scripts/js-bench.sh

echo "== $(date -u +%T) JavaScript toolchains (the packed package built by Vite, webpack, Parcel, esbuild, Rollup, wrangler, Next.js)"
(cd npm && STOIC_TOOLCHAIN_SIZES="$(pwd)/../$out/toolchains.json" node --test test/toolchains.test.js > /dev/null)

echo "== $(date -u +%T) the WebAssembly component (wasmtime-py and jco against the native paths)"
scripts/component-bench.sh "$(pwd)/$out/component.json" > /dev/null

echo "== $(date -u +%T) report"
"$PYTHON" bench/report.py end "$out"
"$PYTHON" bench/report.py write "$out" bench/RESULTS.md
