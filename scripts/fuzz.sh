#!/usr/bin/env bash
# Runs each cargo-fuzz target for FUZZ_SECONDS (default 60). Not part of CI:
# libFuzzer needs a nightly-only sanitizer flag, which RUSTC_BOOTSTRAP=1
# unlocks on the stable toolchain this project pins.
set -euo pipefail
cd "$(dirname "$0")/../core"
# The host boundaries first: arbitrary values at every exported function
# (Python, hypothesis), many more cases than `make test` runs.
echo "fuzz: Python boundaries (${FUZZ_EXAMPLES:-3000} cases per target)"
(cd ../python && STOIC_FUZZ_EXAMPLES="${FUZZ_EXAMPLES:-3000}" ../.venv/bin/pytest -q tests/test_boundary_fuzz.py)
echo "fuzz: JS boundaries (${FUZZ_CASES:-30000} cases, seed ${FUZZ_SEED:-random})"
(cd ../npm && STOIC_FUZZ_CASES="${FUZZ_CASES:-30000}" STOIC_FUZZ_SEED="${FUZZ_SEED:-$RANDOM$RANDOM}" node --test test/boundary_fuzz.test.js)

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
seconds=${FUZZ_SECONDS:-60}
for target in hints canonical_json policy_ops config_json; do
  echo "fuzz: ${target} for ${seconds}s"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "${target}" -- -max_total_time="${seconds}"
done
