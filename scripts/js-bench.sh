#!/usr/bin/env bash
# JS benchmarks: installs the peers (cockatiel, p-retry, exponential-backoff)
# and esbuild, pinned by bench/js/package-lock.json, into a scratch folder
# outside the repository (one per checkout), then runs bench/js/bench.mjs
# there against npm/dist, then bench/js/engine.mjs (the engine without promises; ENGINE_JSON=file
# writes it), then bench/js/coldstart.mjs (cold start; COLD_JSON=file
# writes its medians). BENCH_JSON=file also writes the results as JSON;
# ROUNDS and N make a run shorter or longer. Figures: bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="${TMPDIR:-/tmp}/stoic-bench-js-$(pwd | sha256sum | cut -c1-8)"
mkdir -p "$scratch"
cp bench/js/package.json bench/js/package-lock.json bench/js/bench.mjs bench/js/server.mjs bench/js/coldstart.mjs bench/js/engine.mjs bench/js/timing.mjs "$scratch"/
if [ ! -f "$scratch/node_modules/.stoic-lock" ] || ! cmp -s bench/js/package-lock.json "$scratch/node_modules/.stoic-lock"; then
  (cd "$scratch" && npm ci --no-audit --no-fund --silent)
  cp bench/js/package-lock.json "$scratch/node_modules/.stoic-lock"
fi
STOIC_DIST="$(pwd)/npm/dist" node "$scratch/bench.mjs"
# The engine alone (no promises), synchronously in CPU time; ENGINE_JSON=file
# writes its medians.
engine=$(STOIC_DIST="$(pwd)/npm/dist" node "$scratch/engine.mjs")
echo "engine alone: $engine"
if [ -n "${ENGINE_JSON:-}" ]; then echo "$engine" > "$ENGINE_JSON"; fi
# Cold start (import + first decision) in fresh Node processes and Chromium contexts.
STOIC_DIST="$(pwd)/npm/dist" node "$scratch/coldstart.mjs"
