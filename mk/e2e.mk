# End to end: the orders demo server (examples/orders) against both demo
# clients, with fixed seeds (tests/e2e), and `make demo`'s main job.
# Included by the root Makefile.

TEST_SUITES += test-e2e

.PHONY: test-e2e demo-orders
test-e2e: python-develop js-build ## Fault-injection suite: the orders server against the Python and JS clients
	cd tests/e2e && $(PY_ENV) python -m pytest -q

demo-orders: python-develop js-build ## The orders demo: server, Python client, JS client, summaries
	$(PY_ENV) python examples/orders/demo.py
