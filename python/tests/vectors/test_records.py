"""Runs records.json through ``stoic.parts`` (core/tests/record_vectors.rs
does the same in Rust)."""

from __future__ import annotations

import math
from typing import Any

from conftest import load, py_form, secs
from stoic import parts

DOC = load("records.json", "records")


def test_log_cases() -> None:
    assert len(DOC["log_cases"]) >= 5
    for case in DOC["log_cases"]:
        i = case["input"]
        error = i["error"]
        record = parts.LogRecord(
            wall=secs(i["wall_now_unix_ms"]),
            operation=i["operation"],
            attempt=i["attempt"],
            max_attempts=i["max_attempts"],
            delay=secs(i["delay_ms"]),
            error=None if error is None else (error["code"], error["message"]),
            strategy=i["strategy"],
            outcome=i["outcome"],
            total_duration=secs(i["total_duration_ms"]),
        )
        assert record.json_line() == case["expected_json_line"], case["name"]
        assert str(record) == case["expected_display"], case["name"]


def _event_matches(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    close = ("value", "threshold")
    if set(actual) != set(expected):
        return False
    for key, want in expected.items():
        got = actual[key]
        if key in close:
            if not math.isclose(got, want, rel_tol=0, abs_tol=1e-12):
                return False
        elif got != want:
            return False
    return True


def test_metrics_scenarios() -> None:
    assert len(DOC["metrics_scenarios"]) >= 4
    for scenario in DOC["metrics_scenarios"]:
        metrics = parts.Metrics(**py_form(scenario["alert_config"]))
        events: list[Any] = []
        for step in scenario["steps"]:
            now = secs(step["t_ms"])
            op = step["op"]
            if op == "attempt":
                metrics.on_attempt(now, step["is_retry"])
            elif op == "retry_scheduled":
                metrics.on_retry_scheduled(now)
            elif op == "call_finished":
                metrics.on_call_finished(
                    now, step["retries"], step["outcome"], secs(step["duration_ms"])
                )
            elif op == "breaker_state":
                known = metrics.set_breaker_state(step["state"])
                assert known == (step["state"] in ("closed", "half_open", "open"))
            elif op == "evaluate":
                metrics.evaluate(now)
            else:
                raise AssertionError(op)
            events.extend(metrics.events())
        assert metrics.snapshot() == py_form(scenario["expected_snapshot"]), scenario["name"]
        expected = [py_form(e) for e in scenario["expected_alert_events"]]
        assert len(events) == len(expected), scenario["name"]
        for actual, want in zip(events, expected, strict=True):
            assert _event_matches(actual, want), (scenario["name"], actual, want)


def test_merge_cases() -> None:
    for case in DOC["merge_cases"]:
        merged = parts.merge_metrics(py_form(case["a"]), py_form(case["b"]))
        assert merged == py_form(case["expected"]), case["name"]


def test_catalogue_cases() -> None:
    # Bounds and sums are seconds in every dialect: the vector's spelling
    # is Python's too, but for the snapshots given.
    assert DOC["catalogue_cases"]
    for case in DOC["catalogue_cases"]:
        metrics = {scope: py_form(snapshot) for scope, snapshot in case["metrics"].items()}
        assert parts.metric_catalogue(metrics) == case["expected"], case["name"]
    assert parts.metric_catalogue() == DOC["catalogue_cases"][0]["expected"]
