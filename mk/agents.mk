# The agent demo (examples/agents): a scripted model drives pydantic-ai
# (Python) and the AI SDK (JS) against the orders server under scripted
# faults, with stoic and with the frameworks' defaults. Offline.
# Included by the root Makefile; tests/e2e/test_agent_demo.py runs it too.

.PHONY: agent-demo
agent-demo: python-develop js-build ## The agent demo: pydantic-ai and the AI SDK against the orders server, with stoic and with their defaults
	$(PY_ENV) python examples/agents/demo.py
