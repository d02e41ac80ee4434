#!/usr/bin/env bash
# JS benchmarks: installs the peers (cockatiel, p-retry, pinned by
# bench/js/package-lock.json) into a scratch folder outside the repository,
# then runs bench/js/bench.mjs there against npm/dist. Figures: bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="${TMPDIR:-/tmp}/stoic-bench-js"
mkdir -p "$scratch"
cp bench/js/package.json bench/js/package-lock.json bench/js/bench.mjs "$scratch"/
if [ ! -f "$scratch/node_modules/.stoic-lock" ] || ! cmp -s bench/js/package-lock.json "$scratch/node_modules/.stoic-lock"; then
  (cd "$scratch" && npm ci --no-audit --no-fund --silent)
  cp bench/js/package-lock.json "$scratch/node_modules/.stoic-lock"
fi
STOIC_DIST="$(pwd)/npm/dist" node "$scratch/bench.mjs"
