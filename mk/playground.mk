# The playground page (examples/playground): a static page built with Vite
# from the packed npm package's browser build. Included by the root Makefile.
# Every install step skips what is present (examples/playground/install.sh).

PLAYGROUND_DIR := examples/playground
PLAYGROUND_PORT ?= 5178

TEST_SUITES += test-playground
LINT_SUITES += lint-playground

.PHONY: playground playground-build playground-deps test-playground lint-playground

playground-deps: js-build ## Playground prerequisites: Vite (npm ci) and stoic from `npm pack` of npm/
	@$(PLAYGROUND_DIR)/install.sh

playground-build: playground-deps ## Build the playground into examples/playground/dist (host it anywhere)
	cd $(PLAYGROUND_DIR) && node_modules/.bin/vite build

playground: playground-build ## Serve the playground on 127.0.0.1:5178 (PLAYGROUND_PORT=...) under a strict CSP
	node $(PLAYGROUND_DIR)/serve.mjs $(PLAYGROUND_PORT)

test-playground: playground-build ## The playground in headless Chromium: CSP, the page's run against Node's, errors at fields, marks
	cd $(PLAYGROUND_DIR) && node --test --test-concurrency=1 test/

lint-playground: playground-deps ## tsc --noEmit (checkJs, strict) over the page's sources, against the packed package's types
	cd $(PLAYGROUND_DIR) && ../../$(JS_DIR)/node_modules/.bin/tsc --noEmit -p tsconfig.json
