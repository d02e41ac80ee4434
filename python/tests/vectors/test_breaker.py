"""Runs breaker_scenarios.json through ``stoic.parts.Breaker``, twice: once
on one breaker, once restoring it from a snapshot before every step
(core/tests/vectors_breaker.rs does the same in Rust)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load, py_form, secs
from stoic import parts

DOC = load("breaker_scenarios.json", "breaker")


def _step_result(
    breaker: parts.Breaker, step: dict[str, Any], permits: dict[str, Any]
) -> dict[str, Any]:
    now = secs(step["t_ms"])
    op = step["op"]
    duration = secs(step.get("duration_ms", 0))
    name = step.get("permit")
    seen: dict[str, Any] = {}
    if op in ("acquire", "call_success", "call_failure"):
        got = breaker.acquire(now)
        if isinstance(got, parts.Permit):
            seen["admitted"] = True
            if name:
                permits[name] = got
            if op == "call_success":
                seen["counted"] = breaker.on_success(now, got, duration)
            elif op == "call_failure":
                seen["counted"] = breaker.on_failure(now, got, duration)
        else:
            seen["admitted"] = False
            seen["rejection"] = got
    elif op == "success":
        seen["counted"] = breaker.on_success(now, permits[name], duration)
    elif op == "failure":
        seen["counted"] = breaker.on_failure(now, permits[name], duration)
    elif op == "release":
        seen["counted"] = breaker.release(permits[name])
    else:
        assert op == "observe", op
    return seen


def _check(
    ctx: str,
    breaker: parts.Breaker,
    now: float,
    seen: dict[str, Any],
    drained: list[Any],
    expect: dict[str, Any],
) -> None:
    state = breaker.state
    for key, want in py_form(expect).items():
        if key == "admitted":
            got = seen["admitted"]
        elif key == "counted":
            got = seen["counted"]
        elif key == "reject_reason":
            got = seen["rejection"]["reason"]
        elif key == "retry_at":
            got = seen["rejection"]["retry_at"]
        elif key == "state":
            got = breaker.state_at(now)
            assert got == state["kind"], ctx
        elif key in ("consecutive_failures", "probes_in_flight", "successes"):
            got = state[key]
        elif key == "window":
            got = breaker.window_counts(now)
        elif key == "next_timeout":
            got = breaker.next_timeout()
        elif key == "transitions":
            got = drained
        else:
            pytest.fail(f"{ctx}: unknown expect key {key}")
        assert got == want, f"{ctx}: {key}"


@pytest.mark.parametrize("restore_every_step", [False, True])
@pytest.mark.parametrize("scenario", DOC["scenarios"], ids=lambda s: s["id"])
def test_scenario(scenario: dict[str, Any], restore_every_step: bool) -> None:
    breaker = parts.Breaker(**py_form(scenario["config"]))
    permits: dict[str, Any] = {}
    for n, step in enumerate(scenario["steps"]):
        ctx = f"{scenario['id']} step {n} {step}"
        if restore_every_step:
            breaker = parts.Breaker.restore(breaker.snapshot())
        seen: dict[str, Any] = {}
        for _ in range(step.get("repeat", 1)):
            seen = _step_result(breaker, step, permits)
        drained = list(breaker.transitions())
        if "expect" in step:
            now = secs(step["t_ms"])
            assert now is not None
            _check(ctx, breaker, now, seen, drained, step["expect"])


def test_upstream_coverage() -> None:
    ids = {s["id"] for s in DOC["scenarios"]}
    assert len(ids) == len(DOC["scenarios"]) >= 29
