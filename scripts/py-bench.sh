#!/usr/bin/env bash
# Python overhead benchmark (not a test): a release build of stoic and its
# peers (tenacity, stamina, backoff) in a scratch venv, measured side by side.
# Arguments go to bench/python/bench_overhead.py (--rounds, --n, --clock,
# --json FILE); `make bench` runs it with the others into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=bench/python/.venv
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r bench/python/requirements.txt
rm -rf bench/python/.wheels
(cd python && "../$VENV/bin/maturin" build --quiet --release --out ../bench/python/.wheels)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps bench/python/.wheels/stoic-*.whl
"$VENV/bin/python" bench/python/bench_overhead.py "$@"
