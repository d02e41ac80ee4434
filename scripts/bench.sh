#!/usr/bin/env bash
# `make bench`: every benchmark in one run, then bench/RESULTS.md.
# - Rust: criterion, the decision path of stoic-core (bench/rust);
# - Python: stoic against tenacity, stamina and backoff (scripts/py-bench.sh,
#   a release wheel and the pinned peers in a scratch venv);
# - JavaScript: stoic against cockatiel, p-retry and exponential-backoff,
#   and bundle sizes (scripts/js-bench.sh, pinned peers in a scratch folder;
#   needs npm/dist, which `make bench` builds first).
# Each writes JSON to target/bench-results/; bench/report.py turns them into
# bench/RESULTS.md. Knobs: ROUNDS (paired rounds, Python and JS), N (calls
# per round and library), CRITERION_SECONDS (criterion's measurement time).
set -euo pipefail
cd "$(dirname "$0")/.."

out=target/bench-results
PYTHON=${PYTHON:-python3}
ROUNDS=${ROUNDS:-21}
N=${N:-10000}
CRITERION_SECONDS=${CRITERION_SECONDS:-3}
export ROUNDS N CRITERION_SECONDS

mkdir -p "$out"
rm -f "$out"/*.json
"$PYTHON" bench/report.py start "$out"

echo "== Rust (criterion, ${CRITERION_SECONDS} s per case)"
cargo bench --quiet --locked -p stoic-bench --bench decision -- \
  --warm-up-time 1 --measurement-time "$CRITERION_SECONDS"
"$PYTHON" bench/report.py rust "$out"

echo "== Python (${ROUNDS} rounds of ${N} calls)"
scripts/py-bench.sh --rounds "$ROUNDS" --n "$N" --json "$(pwd)/$out/python.json"

echo "== JavaScript (${ROUNDS} rounds of ${N} calls)"
BENCH_JSON="$(pwd)/$out/js.json" scripts/js-bench.sh

"$PYTHON" bench/report.py end "$out"
"$PYTHON" bench/report.py write "$out" bench/RESULTS.md
