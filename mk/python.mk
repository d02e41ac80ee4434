# Python side: the pyo3 binding (python/), its package and its suite.
# Everything installs into .venv/ at the repo root from the machine's
# python3, at the versions pinned in python/requirements-dev.txt, and is
# skipped when already there (the stamp records what was installed).

PYTHON ?= python3
VENV := $(CURDIR)/.venv
VPY := $(VENV)/bin/python
PY_REQS := python/requirements-dev.txt
PY_STAMP := $(VENV)/.stoic-requirements
PY_ENV := VIRTUAL_ENV=$(VENV) PATH=$(VENV)/bin:$$PATH

TEST_SUITES += test-python
LINT_SUITES += lint-python

.PHONY: python-venv python-develop test-python lint-python bench-python redis-tools

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(PY_STAMP): $(PY_REQS) | $(VPY)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r $(PY_REQS)
	cp $(PY_REQS) $(PY_STAMP)

python-venv: $(PY_STAMP) ## Create .venv/ with the pinned Python dev tools (skips what is present)

python-develop: python-venv ## Build the extension (maturin, debug) into .venv/
	cd python && $(PY_ENV) maturin develop --quiet

redis-tools: ## redis-server (Debian package) for the fleet suites, when missing
	@scripts/redis-tools.sh

test-python: python-develop redis-tools ## Python suite: every vector file, runtimes against a local server, properties, the fleet against redis-server
	cd python && $(PY_ENV) python -m pytest

lint-python: python-develop ## ruff, mypy --strict (package and examples), stubtest on the native module
	cd python && $(PY_ENV) ruff check . ../examples ../tests/e2e ../tests/fleet ../bench/python ../bench/report.py ../bench/ab.py ../bench/report_markdown.py ../bench/report_component.py ../bench/report_fleet.py ../scripts/size.py
	cd python && $(PY_ENV) ruff format --check . ../examples ../tests/e2e ../tests/fleet ../bench/python ../bench/report.py ../bench/ab.py ../bench/report_markdown.py ../bench/report_component.py ../bench/report_fleet.py ../scripts/size.py
	cd python && $(PY_ENV) mypy --strict py_src/stoic $(addprefix ../,$(wildcard examples/py_*.py)) ../examples/orders ../examples/agents ../tests/e2e ../tests/fleet
	cd python && $(PY_ENV) mypy --strict ../bench/report.py ../bench/ab.py ../bench/report_markdown.py ../bench/report_component.py ../bench/report_fleet.py ../scripts/size.py
	cd python && $(PY_ENV) python -m mypy.stubtest stoic._stoic --allowlist stubtest-allowlist.txt

bench-python: python-venv ## Overhead against tenacity, stamina and backoff alone (scratch venv; `make bench` runs all)
	$(PY_ENV) scripts/py-bench.sh
