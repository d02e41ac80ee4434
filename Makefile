# stoic: a sans-IO resilience engine (Rust core, JS and Python bindings).
# `make` lists the targets. The README's set-up is `make demo` and `make test`.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
CARGO ?= cargo

.PHONY: help
help: ## List the targets
	@if [ -t 1 ]; then c='\033[36m'; r='\033[0m'; else c=; r=; fi; \
	grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk -v c="$$c" -v r="$$r" 'BEGIN {FS = ":.*?## "}; {printf "  %s%-14s%s %s\n", c, $$1, r, $$2}'

.PHONY: tools
tools: ## Install what the build needs and is missing (skips what is present)
	@scripts/ensure-tools.sh

.PHONY: demo demo-core
demo: tools demo-orders ## The main demo: the orders server under faults, the Python and JS clients

demo-core: ## The Rust core's walk-through (one scope per service, a breaker opening)
	$(CARGO) run --quiet --locked -p stoic-core --example demo

# Each binding adds its suite to TEST_SUITES (and its lint to LINT_SUITES)
# from its own file in mk/, so the suites stay independent of each other.
TEST_SUITES := test-rust
LINT_SUITES :=
-include mk/*.mk

.PHONY: test
test: tools lint $(LINT_SUITES) $(TEST_SUITES) ## Install what is missing, build everything, run every suite

.PHONY: lint
lint: ## cargo fmt --check and clippy -D warnings
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

.PHONY: test-rust
test-rust: ## Rust unit, scenario, vector and property tests (the core without and with its serde feature)
	$(CARGO) test --locked --workspace
	$(CARGO) test --locked -p stoic-core --features serde

.PHONY: bench
bench: js-build ## Rust, Python and JS benchmarks against the peers in one run; writes bench/RESULTS.md
	@scripts/bench.sh

.PHONY: bench-ab
bench-ab: ## Speed and size against a base revision (BASE=<rev> required; first run ~10 min to build; prints a report, see bench/README.md)
	@test -n "$(BASE)" || { echo "make bench-ab: say which revision to compare with, e.g. BASE=HEAD~5" >&2; exit 2; }
	@$(MAKE) --no-print-directory js-build python-venv
	@BASE=$(BASE) scripts/bench-ab.sh

.PHONY: bench-rust
bench-rust: ## Criterion benchmarks of the decision path alone, criterion's default times
	$(CARGO) bench --locked -p stoic-bench --bench decision

.PHONY: fuzz
fuzz: ## Run the fuzz targets for a minute each (needs cargo-fuzz; not part of CI)
	@scripts/fuzz.sh
