"""Runs retry_after.json and server_hints.json through the package
(core/tests/vectors_hints.rs runs them through Rust)."""

from __future__ import annotations

import stoic
from conftest import load, py_form, secs
from stoic import parts


def test_retry_after_cases() -> None:
    doc = load("retry_after.json", "retry_after")
    assert doc["decisions"]
    failures = []
    for case in doc["cases"]:
        now = secs(case["now_unix_ms"])
        assert now is not None
        got = stoic.parse_retry_after(case["input"], now)
        if got != secs(case["expected_ms"]):
            failures.append(f"{case['input']!r}: {got} != {secs(case['expected_ms'])}")
        if case.get("policy_max_ms") is not None:
            clamped = None if got is None else min(got, secs(case["policy_max_ms"]) or 0.0)
            if clamped != secs(case.get("expected_clamped_ms")):
                failures.append(f"{case['input']!r}: clamped {clamped}")
        if case.get("saturates") is True and got != secs(2**64 - 1):
            failures.append(f"{case['input']!r}: should saturate, got {got}")
    assert not failures, "\n".join(failures)


def test_http_date_cases() -> None:
    doc = load("retry_after.json", "retry_after")
    for case in doc["http_date_cases"]:
        now = case["now_unix_s"]
        got = parts.parse_http_date(case["input"], None if now is None else float(now))
        assert got == case["expected_unix_s"], case["input"]


def test_server_hint_cases() -> None:
    doc = load("server_hints.json", "server_hint")
    assert doc["decisions"]
    failures = []
    for case in doc["cases"]:
        headers = [tuple(pair) for pair in case["headers"]]
        hint = parts.server_hint(headers, secs(case["wall_now_unix_ms"]))
        expected = py_form(case["expected"])
        backoff = secs(case["backoff_ms"])
        assert backoff is not None
        if expected["kind"] == "none":
            if hint is not None:
                failures.append(f"{case['description']}: got {hint}")
            effective = backoff
        else:
            if (
                hint is None
                or hint["kind"] != expected["kind"]
                or hint["source"] != expected["source"]
            ):
                failures.append(f"{case['description']}: got {hint}, expected {expected}")
                continue
            if "hint" in expected and hint.get("hint") != expected["hint"]:
                failures.append(f"{case['description']}: hint {hint}")
            if expected["kind"] == "delay" and hint.get("delay") != expected["delay"]:
                failures.append(f"{case['description']}: delay {hint}")
            effective = parts.hint_delay(hint, backoff)
            if effective != expected.get("delay"):
                failures.append(f"{case['description']}: delay_with_backoff {effective}")
        if effective != secs(case["effective_delay_ms"]):
            failures.append(f"{case['description']}: effective {effective}")
    assert not failures, "\n".join(failures)
