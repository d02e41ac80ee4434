# JavaScript / TypeScript: the stoic-wasm crate and the npm package.
# Included by the root Makefile. Every install step skips what is present.

JS_DIR := npm
WASM_TARGET := wasm32-unknown-unknown

TEST_SUITES += test-js
LINT_SUITES += lint-js

.PHONY: js-tools
js-tools: tools ## JS suite prerequisites: wasm-bindgen CLI, npm ci, Chromium
	@scripts/js-tools.sh

.PHONY: js-build
js-build: js-tools ## Build the wasm module, its glue and the npm package into npm/dist
	@scripts/js-build.sh

.PHONY: js-abi
js-abi: ## Rewrite npm/src/abi.generated.ts from wasm/src/abi.rs (test-rust fails while the two differ)
	STOIC_WRITE_FIXTURES=1 $(CARGO) test --locked -p stoic-wasm abi

.PHONY: test-js
test-js: js-build ## Node, vector, HTTP, packed-package, browser (Chromium) and workerd suites
	cd $(JS_DIR) && node --test --test-concurrency=1 test/

.PHONY: lint-js
lint-js: js-build ## tsc --noEmit over the runtime, the tests, the typed example and the integration examples (checkJs); clippy for wasm32 (full and client builds)
	cd $(JS_DIR) && node_modules/.bin/tsc --noEmit -p tsconfig.json
	cd $(JS_DIR) && node_modules/.bin/tsc --noEmit -p tsconfig.examples.json
	cd $(JS_DIR) && node_modules/.bin/tsc --noEmit -p tsconfig.examples-js.json
	$(CARGO) clippy --locked -p stoic-wasm --target $(WASM_TARGET) -- -D warnings
	$(CARGO) clippy --locked -p stoic-wasm --target $(WASM_TARGET) --no-default-features -- -D warnings

.PHONY: size
size: js-build ## What the wasm module is made of (by crate, largest functions) and what each entry and a browser app ship, gzipped
	@scripts/size-named.sh
	@python3 scripts/size.py

.PHONY: bench-js
bench-js: js-build ## JS benchmarks alone (size, overhead, decision) against cockatiel, p-retry, exponential-backoff
	@scripts/js-bench.sh
