"""Runs ``tests/vectors/fleet_exchange.json`` through ``stoic.Policy``: its
fleet exports and how it takes views back (the Rust and JS suites run the
same file). Times in the file are ms; Python's are seconds."""

from __future__ import annotations

import json
from typing import Any

import stoic
from conftest import load

DOC = load("fleet_exchange.json", "fleet_exchange")


def call(policy: stoic.Policy, now_ms: int, scope: str, statuses: list[int]) -> int:
    """One call whose attempts get ``statuses`` in turn: the attempts made."""
    t = now_ms / 1000
    c = policy.begin(t, scope, "", True)
    if not c.admitted:
        return 0
    attempts = 1
    for index, status in enumerate(statuses):
        delay = c.on_status(t + 0.001, status)
        if delay is None or index + 1 == len(statuses):
            break
        t += 0.001 + delay
        if not c.admit(t):
            break
        attempts += 1
    return attempts


def run_step(policy: stoic.Policy, step: dict[str, Any], here: str) -> None:
    now = step.get("now", 0) / 1000
    if step["op"] == "call":
        assert call(policy, step["now"], step["scope"], step["statuses"]) == step["attempts"], here
    elif step["op"] == "export":
        seq, scopes = policy.fleet_export(now, step["store_now_ms"])
        assert seq == step["seq"], here
        assert {scope: json.loads(text) for scope, text in scopes} == step["scopes"], here
    elif step["op"] == "apply":
        policy.fleet_apply(now, [json.dumps(reply) for reply in step["replies"]])
    elif step["op"] == "budget_status":
        status = policy.budget_status(now, step["scope"])
        assert status is not None, here
        ratio = status["ratio"]
        assert (ratio["requests"], ratio["retries"]) == (step["requests"], step["retries"]), here
    elif step["op"] == "breaker_state":
        assert policy.breaker_state(step["scope"]) == step["state"], here
    else:
        raise AssertionError(f"{here}: unknown op {step['op']}")


def test_fleet_exchange_vectors() -> None:
    ran = 0
    for scenario in DOC["scenarios"]:
        policy = stoic.Policy.from_json(json.dumps(scenario["config"]))
        for index, step in enumerate(scenario["steps"]):
            run_step(policy, step, f"{scenario['name']}[{index}]")
            ran += 1
    assert ran > 10
