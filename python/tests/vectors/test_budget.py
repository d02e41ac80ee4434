"""Runs budget.json through ``stoic.parts.RetryBudget``
(core/tests/vectors_budget.rs does the same in Rust)."""

from __future__ import annotations

from typing import Any

import pytest

import stoic
from conftest import load, py_field, py_form, secs
from stoic import parts

DOC = load("budget.json", "budget")
COSTS = {"retry": "normal", "retry_timeout": "timeout", "retry_throttling": "throttling"}


class Runner:
    def __init__(self, budget: parts.RetryBudget) -> None:
        self.budget = budget
        self.tickets: dict[str, Any] = {}
        self.ended: dict[str, Any] = {}
        self.steps = 0

    def run(self, steps: list[dict[str, Any]], at: str) -> None:
        for index, step in enumerate(steps):
            here = f"{at}[{index}]"
            if "repeat" in step:
                for round_ in range(step["repeat"]):
                    self.run(step["steps"], f"{here}#{round_}")
            else:
                self.step(step, here)

    def step(self, step: dict[str, Any], here: str) -> None:
        self.steps += 1
        now = secs(step["t_ms"])
        call = step.get("call", "")
        op = step["op"]
        result = None
        if op in COSTS:
            result = self.budget.try_retry(now, COSTS[op])
            if result[0] is not None:
                self.tickets[call] = result[0]
        elif op == "first_attempt":
            self.tickets.pop(call, None)
            self.budget.on_first_attempt(now)
        elif op == "failure":
            self.budget.on_attempt_failure(now)
        elif op == "success":
            self.budget.on_attempt_success(now)
        elif op == "success_after_retry":
            ticket = self.tickets.pop(call)
            self.budget.on_attempt_success(now, ticket)
            self.ended[call] = ticket
        elif op == "success_after_retry_again":
            self.budget.on_attempt_success(now, self.ended[call])
        elif op == "reconfigure":
            self.budget.reconfigure(**py_form(step["config"]))
        else:
            pytest.fail(f"{here}: unknown op {op}")
        events = list(self.budget.events())
        snapshot = self.budget.snapshot()
        assert parts.RetryBudget.restore(snapshot).snapshot() == snapshot, here
        expect = step.get("expect")
        if not expect:
            return
        status = self.budget.status(now)
        for key, want in py_form(expect).items():
            if key == "allowed":
                got: Any = result is not None and result[0] is not None
            elif key == "refused_by":
                got = result[1] if result else None
            elif key == "cost":
                got = result[0].token_cost if result and result[0] is not None else None
            elif key == "tokens":
                got = status["token_bucket"] and status["token_bucket"]["tokens"]
            elif key == "grpc_milli_tokens":
                got = status["grpc"] and status["grpc"]["milli_tokens"]
            elif key == "run_cap_used":
                got = status["run_cap"] and status["run_cap"]["used"]
            elif key == "ratio":
                got = status["ratio"]
            elif key == "events":
                got = events
            else:
                pytest.fail(f"{here}: unknown expect key {key}")
            assert got == want, f"{here}: {key}"


def test_scenarios() -> None:
    assert len(DOC["scenarios"]) >= 40
    total = 0
    for scenario in DOC["scenarios"]:
        runner = Runner(parts.RetryBudget(**py_form(scenario["config"])))
        runner.run(scenario["steps"], scenario["id"])
        assert runner.steps > 0
        total += runner.steps
    assert total > 1000


def test_config_errors() -> None:
    for case in DOC["config_errors"]:
        with pytest.raises(stoic.ConfigError) as info:
            parts.RetryBudget(**py_form(case["config"]))
        # Fields are named as the caller wrote them: relative to the part.
        assert info.value.code == case["code"], case
        assert info.value.field == py_field(case["field"]).removeprefix("budget."), case
