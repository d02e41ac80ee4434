# The WebAssembly component (component/, wit/stoic.wit): built from the same
# core, and run through every shared vector file in wasmtime (Python, the
# PyPI `wasmtime` package) and in Node (jco transpile).

TEST_SUITES += test-component
LINT_SUITES += lint-component

COMPONENT_PY := component/tests/python

.PHONY: component component-js test-component lint-component

component: tools ## Build target/component/stoic.wasm (and its WIT): a component with no imports
	@scripts/component-build.sh

component-js: component ## The component transpiled by jco into an ES module (target/component/js)
	@if [ ! -f target/component/js/.stamp ] || ! cmp -s target/component/.stamp target/component/js/.stamp; then \
	  echo "component: jco transpile"; \
	  rm -rf target/component/js; \
	  component/js/node_modules/.bin/jco transpile target/component/stoic.wasm -o target/component/js --name stoic --quiet; \
	  cp target/component/.stamp target/component/js/.stamp; \
	fi

test-component: component-js python-venv ## Every vector file through the component in wasmtime (Python) and jco (Node)
	cd $(COMPONENT_PY) && $(PY_ENV) python -m pytest -q -p no:cacheprovider
	node --test --test-concurrency=1 component/js/test/

lint-component: tools python-develop ## clippy for wasm32, ruff and mypy --strict over the component's Python suite
	$(CARGO) clippy --locked -p stoic-component --target $(WASM_TARGET) -- -D warnings
	$(PY_ENV) ruff check $(COMPONENT_PY) component/examples bench/component
	$(PY_ENV) ruff format --check $(COMPONENT_PY) component/examples bench/component
	cd $(COMPONENT_PY) && $(PY_ENV) mypy --strict . ../../examples ../../../bench/component

# `make size` reports the component beside the npm package's module.
size: component

# `make bench` measures the component through wasmtime-py and jco.
bench: component-js

.PHONY: bench-component
bench-component: component-js js-build ## The component's decision cost in wasmtime-py and jco, beside the native paths
	@scripts/component-bench.sh
