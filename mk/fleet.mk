# The fleet: two Python and two Node processes sharing one scope's retry
# budget through a real redis-server (tests/fleet). Included by the root
# Makefile.

TEST_SUITES += test-fleet

.PHONY: test-fleet fleet-demo
test-fleet: python-develop js-build redis-tools ## Fleet suite: 2 Python + 2 Node workers against an always-503 server, budget shared through redis-server and not
	cd tests/fleet && $(PY_ENV) python -m pytest -q

fleet-demo: python-develop js-build redis-tools ## The fleet run with and without sharing (REDIS_URL to use your own Redis; FLEET_SECONDS to size it)
	$(PY_ENV) python tests/fleet/harness.py
