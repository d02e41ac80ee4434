"""Runs agent_runs.json through ``stoic.agents.Run``: each tool raises or
returns the scripted outcome of its attempt, a classifier reads it, and the
``ToolResult`` must say what the file says (the Rust and JavaScript suites
run the same file)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import stoic
from conftest import load, py_form
from stoic import _stoic
from stoic.agents import Run

DOC = load("agent_runs.json", "agent_run")


class Scripted(Exception):
    """The scripted outcome of one attempt, as the classifier reads it."""

    def __init__(self, outcome: tuple[str, Any, Any]) -> None:
        super().__init__(outcome[0])
        self.outcome = outcome


def read(exc: BaseException) -> tuple[str, Any, Any] | None:
    return exc.outcome if isinstance(exc, Scripted) else None


def tool_of(attempts: Iterator[dict[str, Any]]) -> Any:
    def tool(**_args: Any) -> Any:
        step = next(attempts)
        if "status" in step:
            headers = [tuple(pair) for pair in step.get("headers", [])]
            raise Scripted(("status", step["status"], headers))
        if "network" in step:
            raise Scripted(("network", step["network"], None))
        return step["value"]

    return tool


def test_applies_to_python() -> None:
    assert "python" in DOC["applies_to"]


def test_tool_reasons() -> None:
    for case in DOC["tool_reasons"]:
        assert _stoic.tool_reason(case["stop_reason"]) == case["tool_reason"], case


@pytest.mark.parametrize("scenario", DOC["scenarios"], ids=lambda s: str(s["id"]))
def test_scenario(scenario: dict[str, Any]) -> None:
    run = Run(
        scenario["run"]["run_id"],
        max_retries=scenario["run"]["max_retries"],
        classify=read,
        clock=stoic.VirtualClock(),
        **py_form(scenario["config"]),
    )
    for call in scenario["calls"]:
        result = run.call(
            call["step"],
            tool_of(iter(call["attempts"])),
            args=call["args"],
            idempotent=call["idempotent"],
            server_deduplicates=call["server_deduplicates"],
        )
        expect = call["expect"]
        where = f"{scenario['id']} {call['step']}"
        assert result.ok is expect["ok"], where
        assert result.attempts == expect["attempts"], where
        assert result.reason == expect["reason"], where
        assert result.key == stoic.idempotency_key(
            scenario["run"]["run_id"], call["step"], call["args"]
        )
        assert run.retries_used == expect["run_used"], where
        for text in expect.get("observation_contains", []):
            assert result.observation is not None
            assert text in result.observation, (where, result.observation)


def test_retries_above() -> None:
    policy = stoic.Policy(seed=1)
    call = policy.start(0.0, "chat", scope="api")
    for case in DOC["retries_above"]:
        assert call.note_retries_above(0.0, case["value"]) == case["expected"], case
        events = [e for e in policy.events() if e["kind"] == "nested_retries"]
        if case["expected"] is None:
            assert events == []
        else:
            assert [(e["scope"], e["operation"], e["retries_above"]) for e in events] == [
                ("api", "chat", case["expected"])
            ]


def test_event_streams() -> None:
    for case in DOC["event_streams"]:
        assert _stoic.is_event_stream(case["content_type"]) is case["expected"], case
