"""Every file in tests/vectors/ is run by this suite (a new kind fails here
until a runner exists)."""

from __future__ import annotations

import json

from conftest import VECTORS

RUNNERS = {
    "policy": "test_policy.py",
    "canonical_json": "test_keys.py",
    "es6_number": "test_keys.py",
    "idempotency_key": "test_keys.py",
    "retry_after": "test_hints.py",
    "server_hint": "test_hints.py",
    "backoff": "test_backoff.py",
    "breaker": "test_breaker.py",
    "budget": "test_budget.py",
    "records": "test_records.py",
    "server_idempotency": "test_server_idempotency.py",
    "config_errors": "test_config_errors.py",
    "host": "test_host.py",
    "fleet_exchange": "test_fleet.py",
    "text_boundary": "test_text_boundary.py",
    "agent_run": "test_agent_runs.py",
    "hedging": "test_hedging.py",
}


def test_every_vector_file_has_a_runner() -> None:
    files = sorted(VECTORS.glob("*.json"))
    assert len(files) >= 11
    for path in files:
        kind = json.loads(path.read_text(encoding="utf-8"))["kind"]
        assert kind in RUNNERS, f"{path.name}: no Python runner for kind {kind!r}"
