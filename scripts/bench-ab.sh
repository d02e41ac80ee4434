#!/usr/bin/env bash
# `make bench-ab BASE=<rev>`: stoic at BASE against this checkout, in one run,
# on release builds. A refactor that should not change speed is checked here:
# the figures are the peers' ratios (tenacity / stoic in Python, cockatiel /
# stoic in JS) measured with each build, in alternating runs, so the peer's
# time cancels the machine's drift; the report (bench/ab.py) prints, per
# case, the base's ratio, this checkout's, and the change in stoic's
# overhead (base ratio / new ratio - 1: negative is faster). It also prints
# both builds' wasm sizes.
#
# The base is checked out as a git worktree in target/ab/base and built
# there (Cargo target target/ab/cargo, kept between runs: the first run
# builds everything, about 10 minutes on 2 cores). Knobs: PAIRS (alternating
# runs of each build; 3), ROUNDS (paired rounds per run; 11), N (calls per
# round; 3000 Python, 6000 JS).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

base=${BASE:?BASE=<commit> to compare this checkout with}
rev=$(git rev-parse --verify "$base^{commit}")
PAIRS=${PAIRS:-3}
ROUNDS=${ROUNDS:-11}
PY_N=${N:-3000}
JS_N=${N:-6000}
work=target/ab
src=$work/base
CARGO_TARGET_DIR_BASE="$root/$work/cargo"
mkdir -p "$work/results"
rm -f "$work"/results/*.json

echo "== $(date -u +%T) the base, $rev, in $src"
if [ -e "$src/.git" ]; then
  git -C "$src" checkout --quiet --detach "$rev"
else
  git worktree add --quiet --detach --force "$src" "$rev"
fi

echo "== $(date -u +%T) Python: release wheels of both, each in its own venv with the pinned peers"
# shellcheck source=scripts/py-bench-venv.sh
. scripts/py-bench-venv.sh
new_py=$VENV/bin/python
base_venv=$work/venv-base
[ -x "$base_venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$base_venv"
"$base_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r bench/python/requirements.txt
rm -rf "$work/wheels-base"
(cd "$src/python" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR_BASE" "$root/$VENV/bin/maturin" build --quiet --release --out "$root/$work/wheels-base")
"$base_venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$work"/wheels-base/stoic-*.whl

echo "== $(date -u +%T) JS: npm/dist of both (the base's built with this checkout's node_modules)"
if [ ! -e "$src/npm/node_modules" ]; then ln -s "$root/npm/node_modules" "$src/npm/node_modules"; fi
(cd "$src" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR_BASE" scripts/js-build.sh > /dev/null)
scratch="${TMPDIR:-/tmp}/stoic-bench-js-$(pwd | sha256sum | cut -c1-8)"
# The peers' scratch folder, as scripts/js-bench.sh sets it up.
ROUNDS=1 N=10 scripts/js-bench.sh > /dev/null

# The harnesses of this checkout run against both builds: they use only the
# public API, so a change to them is not a change between the builds.
for pair in $(seq 1 "$PAIRS"); do
  for side in new base; do
    if [ "$side" = new ]; then py=$new_py dist=$root/npm/dist; else py=$base_venv/bin/python dist=$root/$src/npm/dist; fi
    echo "== $(date -u +%T) run $pair of $PAIRS: $side"
    "$py" bench/python/bench_overhead.py --rounds "$ROUNDS" --n "$PY_N" --json "$work/results/py-$side-$pair.json" > /dev/null
    STOIC_DIST=$dist ROUNDS=$ROUNDS N=$JS_N BENCH_JSON="$root/$work/results/js-$side-$pair.json" node "$scratch/bench.mjs" > /dev/null
  done
done

"${PYTHON:-python3}" bench/ab.py "$work/results" "$rev" "$src/npm/dist/wasm" npm/dist/wasm
