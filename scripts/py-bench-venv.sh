#!/usr/bin/env bash
# The benchmark venv (bench/python/.venv): the pinned peers and tools of
# bench/python/requirements.txt, and a release wheel of stoic built now
# (`maturin develop` builds debug, about 5x slower). Sourced by the Python
# benchmarks (scripts/py-bench.sh, scripts/component-bench.sh); sets VENV.
PYTHON=${PYTHON:-python3}
VENV=bench/python/.venv
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r bench/python/requirements.txt
# `make bench` builds the wheel once for all its Python benchmarks.
if [ "${STOIC_BENCH_WHEEL_BUILT:-}" = 1 ] && "$VENV/bin/python" -c "import stoic" 2>/dev/null; then
  return 0 2>/dev/null || exit 0
fi
rm -rf bench/python/.wheels
(cd python && "../$VENV/bin/maturin" build --quiet --release --out ../bench/python/.wheels)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps bench/python/.wheels/stoic-*.whl
