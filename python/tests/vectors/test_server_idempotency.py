"""Runs server_idempotency.json through ``stoic.parts.ServerIdempotency``
(core/tests/vectors_server_idempotency.rs does the same in Rust)."""

from __future__ import annotations

from conftest import load, py_form, secs
from stoic import parts


def test_server_decisions() -> None:
    doc = load("server_idempotency.json", "server_idempotency")
    assert len(doc["cases"]) >= 10
    for case in doc["cases"]:
        server = parts.ServerIdempotency(**py_form(case.get("config", {})))
        stored = case["stored"]
        decision = server.decide(
            secs(case["now_unix_ms"]),
            case["key"],
            case["fingerprint"],
            None if stored is None else py_form(stored),
        )
        assert decision == py_form(case["expected"]), case["name"]
    for case in doc["fingerprint_cases"]:
        assert parts.request_fingerprint(case["body"]) == case["expected"]


def test_entries_round_trip() -> None:
    entry = parts.ServerIdempotency.in_flight("fp", 1.5)
    assert entry == {"fingerprint": "fp", "state": {"kind": "in_flight", "since_unix": 1.5}}
    done = parts.ServerIdempotency.completed(entry, 2.0, 201)
    assert done["state"] == {"kind": "completed", "at_unix": 2.0, "status": 201}
    server = parts.ServerIdempotency()
    assert server.decide(3.0, "k", "fp", done) == {"kind": "replay", "status": 201}
    assert server.config["ttl"] == 86400.0
