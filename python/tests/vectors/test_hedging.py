"""Runs ``tests/vectors/hedging.json`` through the binding: hedged calls in
virtual time (``Policy.start_hedged``, ``hedge_poll``, ``hedge_outcome``,
``hedge_cancel``) and the hedging settings' config errors, in the Python
spelling (float seconds, no ``_ms``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import stoic
from conftest import load, py_field, py_form, secs
from stoic._stoic import HedgedCall, HedgingConfig

FILE = "hedging.json"
DOC = load(FILE, "hedging")


def hedging_of(value: dict[str, Any] | None) -> HedgingConfig:
    """A vector's hedging settings (the Rust spelling) as the binding's."""
    return HedgingConfig(**py_form(value or {}))


def check(context: str, actual: dict[str, Any], expect: dict[str, Any] | None) -> None:
    for key, want in py_form(expect or {}).items():
        if key == "observation_contains":
            assert want in (actual.get("observation") or ""), f"{context}: {actual}"
        else:
            assert key in actual, f"{context}: no `{key}` in {actual}"
            assert actual[key] == want, f"{context}: field `{key}` of {actual}"


def wire(step: dict[str, Any], call: HedgedCall) -> dict[str, Any]:
    """A step with the call's state after it, as the vectors write both."""
    return {**step, "next_timeout": call.next_timeout, "in_flight": call.in_flight}


class Runner:
    def __init__(self, scenario: dict[str, Any]) -> None:
        self.policy = stoic.Policy.from_json(json.dumps(scenario["config"]))
        self.hedging = hedging_of(scenario.get("hedging"))
        self.calls: dict[str, HedgedCall] = {}
        self.steps_run = 0

    def run(self, steps: list[dict[str, Any]], at: str, round_: int | None = None) -> list[str]:
        kinds: list[str] = []
        for index, step in enumerate(steps):
            here = f"{at}[{index}]"
            if "repeat" in step:
                inner: list[str] = []
                for i in range(step["repeat"]):
                    inner.extend(self.run(step["steps"], f"{here}#{i}", i))
                if "expect_kinds" in step:
                    tally: dict[str, int] = {}
                    for kind in inner:
                        tally[kind] = tally.get(kind, 0) + 1
                    assert tally == step["expect_kinds"], f"{here}: kinds {tally}"
                kinds.extend(inner)
            else:
                kind = self.step(step, here, round_)
                if kind is not None:
                    kinds.append(kind)
        return kinds

    def step(self, step: dict[str, Any], here: str, round_: int | None) -> str | None:
        self.steps_run += 1
        now = secs(step.get("t_ms", 0))
        assert now is not None
        name = str(step.get("call", "")).replace("{i}", "" if round_ is None else str(round_))
        policy = self.policy
        op = step["op"]
        kind: str | None = None
        if op == "start":
            spec = step["spec"]
            hedging = hedging_of(step["hedging"]) if "hedging" in step else self.hedging

            def start() -> HedgedCall:
                return policy.start_hedged(
                    now,
                    spec.get("operation", "op"),
                    scope=spec.get("scope", ""),
                    idempotent=spec.get("idempotent"),
                    method=spec.get("method"),
                    key=spec.get("idempotency_key"),
                    hedging=hedging,
                )

            if "expect_error" in step:
                with pytest.raises(stoic.ConfigError) as info:
                    start()
                got = {"code": info.value.code, "field": info.value.field}
                assert got == step["expect_error"], f"{here}: {info.value}"
            else:
                self.calls[name] = start()
        elif op in ("poll", "outcome", "cancel"):
            call = self.calls[name]
            if op == "poll":
                answer = policy.hedge_poll(now, call)
            elif op == "cancel":
                answer = policy.hedge_cancel(now, call)
            else:
                o = step["outcome"]
                if "status" in o:
                    outcome: dict[str, Any] = {"status": o["status"], "headers": o.get("headers")}
                elif "network" in o:
                    outcome = {"network": o["network"]}
                else:
                    assert o.get("success") is True, f"{here}: unknown outcome {o}"
                    outcome = {}
                answer = policy.hedge_outcome(now, call, step["copy"], **outcome)
            check(here, wire(answer, call), step.get("expect"))
            kind = answer["kind"]
        elif op == "drain":
            policy.drain()
        elif op == "scope":
            scope = step.get("scope", "")
            status = policy.budget_status(now, scope)
            ratio = status["ratio"] if status is not None else None
            actual = {
                "latency_samples": policy.latency_samples(scope),
                "hedge_delay": policy.hedge_delay(scope, self.hedging),
                "ratio": None
                if ratio is None
                else {"requests": ratio["requests"], "retries": ratio["retries"]},
                "breaker": policy.breaker_state(scope),
            }
            check(here, actual, step.get("expect"))
        else:
            raise AssertionError(f"{here}: unknown op {op}")
        # Every step drains the events; a step listing them checks the
        # breaker's and the budget's.
        codes = [
            e["kind"]
            for e in policy.events()
            if e["kind"] in ("breaker_transition", "budget_exhausted")
        ]
        if "events" in step:
            assert codes == step["events"], f"{here}: events {codes}"
        return kind


@pytest.mark.parametrize("scenario", DOC["scenarios"], ids=lambda s: s["id"])
def test_hedging_scenario(scenario: dict[str, Any]) -> None:
    runner = Runner(scenario)
    runner.run(scenario["steps"], scenario["id"])
    assert runner.steps_run > 0


def test_the_scenarios_run_enough_steps() -> None:
    total = 0
    for scenario in DOC["scenarios"]:
        runner = Runner(scenario)
        runner.run(scenario["steps"], scenario["id"])
        total += runner.steps_run
    assert total >= 100


@pytest.mark.parametrize("case", DOC["config_errors"], ids=lambda c: json.dumps(c["hedging"]))
def test_hedging_config_error(case: dict[str, Any]) -> None:
    # The Python spelling: the document's durations in seconds, and the
    # field named without `_ms`.
    with pytest.raises(stoic.ConfigError) as info:
        HedgingConfig(**py_form(case["hedging"]))
    assert (info.value.code, info.value.field) == (case["code"], py_field(case["field"]))


@pytest.mark.parametrize("case", DOC["valid"], ids=lambda c: json.dumps(c["hedging"]))
def test_valid_hedging_reads_back_with_its_defaults(case: dict[str, Any]) -> None:
    assert HedgingConfig(**py_form(case["hedging"])).config == py_form(case["resolved"])
