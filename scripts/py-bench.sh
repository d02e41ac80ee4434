#!/usr/bin/env bash
# Python overhead benchmark (not a test): a release build of stoic and its
# peers (tenacity, stamina, backoff) in a scratch venv, measured side by side.
# Arguments go to bench/python/bench_overhead.py (--rounds, --n, --clock,
# --json FILE); `make bench` runs it with the others into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/py-bench-venv.sh
. scripts/py-bench-venv.sh
"$VENV/bin/python" bench/python/bench_overhead.py "$@"
