"""Runs every ``kind: "policy"`` vector file through ``stoic.Policy``, as
core/tests/vectors_policy.rs does through the Rust API."""

from __future__ import annotations

import json
from typing import Any

import pytest

import stoic
from conftest import VECTORS, py_form, secs


def _scenarios() -> list[Any]:
    found = []
    for path in sorted(VECTORS.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc["kind"] == "policy":
            found.extend(pytest.param(s, id=f"{path.stem}:{s['id']}") for s in doc["scenarios"])
    return found


SCENARIOS = _scenarios()


def test_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 10


def check(context: str, actual: Any, step: dict[str, Any]) -> None:
    expect = step.get("expect")
    if isinstance(expect, dict):
        for key, want in py_form(expect).items():
            assert key in actual, f"{context}: no `{key}` in {actual}"
            assert actual[key] == want, f"{context}: `{key}` of {actual}"
    for part in step.get("observation_contains", []):
        assert part in (actual.get("observation") or ""), f"{context}: {actual}"


def _outcome(policy: stoic.Policy, now: float, call: stoic.Call, o: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {
        "headers": [tuple(h) for h in o.get("headers", [])],
        "wall_now": secs(o.get("wall_now_unix_ms")),
        "detail": o.get("detail"),
    }
    if "status" in o:
        kwargs["status"] = o["status"]
    elif "network" in o:
        kwargs["network"] = o["network"]
    elif "rejected" in o:
        kwargs["rejected"] = o["rejected"]
    elif "raised" in o:
        kwargs["raised"] = o["raised"]
    else:
        assert o.get("success") is True, o
    return policy.on_outcome(now, call, **kwargs)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(scenario: dict[str, Any]) -> None:
    config = py_form(scenario["config"])
    policy = stoic.Policy(**config)
    calls: dict[str, stoic.Call] = {}
    for i, step in enumerate(scenario["steps"]):
        context = f"{scenario['id']} step {i}"
        now = secs(step.get("t_ms", 0))
        assert now is not None
        name = step.get("call", "")
        op = step["op"]
        if op == "start":
            spec = step["spec"]
            per_call = {k: py_form(spec[k]) for k in ("max_attempts", "backoff") if k in spec}
            calls[name] = policy.start(
                now,
                spec.get("operation", ""),
                scope=spec.get("scope", ""),
                idempotent=spec.get("idempotent"),
                method=spec.get("method"),
                key=spec.get("idempotency_key"),
                overrides=policy.overrides(**per_call) if per_call else None,
            )
        elif op == "before_attempt":
            check(context, policy.before_attempt(now, calls[name]), step)
        elif op == "outcome" and "expect_error" in step:
            with pytest.raises(stoic.InputError) as info:
                _outcome(policy, now, calls[name], step["outcome"])
            assert info.value.code == step["expect_error"], context
        elif op == "outcome":
            check(context, _outcome(policy, now, calls[name], step["outcome"]), step)
        elif op == "cancel":
            check(context, policy.cancel(now, calls[name]), step)
        elif op == "drain":
            policy.drain()
        elif op == "set_measuring":
            policy.measuring = step["on"]
        elif op == "set_wall_clock":
            policy.set_wall_clock(now, secs(step["wall_unix_ms"]))
        elif op == "events":
            wanted = step.get("filter") or []
            events = [e for e in policy.events() if not wanted or e["kind"] in wanted]
            expect = step["expect"]
            assert len(events) == len(expect), f"{context}: {events}"
            for event, want in zip(events, expect, strict=True):
                check(context, event, {"expect": want})
        elif op == "breaker_state":
            check(context, {"state": policy.breaker_state(step.get("scope", ""))}, step)
        elif op == "metrics":
            check(context, policy.metrics()[step.get("scope", "default")], step)
        elif op == "budget_status":
            check(context, policy.budget_status(now, step.get("scope", "")), step)
        elif op == "next_timeout":
            check(context, {"at": policy.next_timeout()}, step)
        elif op == "snapshot_restore":
            assert all(c.finished for c in calls.values()), context
            text = policy.snapshot()
            policy = stoic.Policy(**config)
            report = policy.restore(text)
            assert report["reset"] == [], f"{context}: {report}"
            calls.clear()
        else:
            pytest.fail(f"{context}: unknown op {op}")
