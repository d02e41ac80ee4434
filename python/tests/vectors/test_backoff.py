"""Runs backoff.json through ``stoic.Backoff`` (core/tests/vectors_backoff.rs
runs it through Rust)."""

from __future__ import annotations

import pytest

import stoic
from conftest import load, py_field, secs


def _backoff(case: dict, seed: int) -> stoic.Backoff:
    spec = case["spec"]
    return stoic.Backoff(
        spec["strategy"],
        base=secs(spec["base_ms"]),
        cap=secs(spec["cap_ms"]),
        multiplier=spec["multiplier"],
        seed=seed,
    )


def test_backoff_cases() -> None:
    doc = load("backoff.json", "backoff")
    assert len(doc["cases"]) >= 20
    for case in doc["cases"]:
        backoff = _backoff(case, case["seed"])
        got = [backoff.delay(k) for k in case["retries"]]
        assert got == [secs(ms) for ms in case["expected_ms"]], case["name"]


def test_backoff_invalid_cases() -> None:
    doc = load("backoff.json", "backoff")
    assert len(doc["invalid_cases"]) >= 5
    for case in doc["invalid_cases"]:
        with pytest.raises(stoic.ConfigError) as info:
            _backoff(case, 0)
        assert (info.value.code, info.value.field) == (case["code"], py_field(case["field"]))
