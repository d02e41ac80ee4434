"""Runs config_errors.json through ``stoic.Policy(**config)``: each case's
``python`` config (snake_case keys, float seconds), the error's class and
code, its field exactly as the vector spells it in the Python dialect, and
for ``problems`` cases every problem in order
(core/tests/vectors_config_errors.rs runs the file in every dialect,
npm/testlib/run-config-errors.js through the npm package)."""

from __future__ import annotations

from typing import Any

import pytest

import stoic
from conftest import load


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = load("config_errors.json", "config_errors")["cases"]
    return [c for c in cases if "python" in c["config"]]


def test_enough_cases() -> None:
    assert len(_cases()) >= 30


@pytest.mark.parametrize("case", _cases(), ids=lambda c: str(c["name"]))
def test_invalid_config_names_its_field(case: dict[str, Any]) -> None:
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy(**case["config"]["python"])
    error = info.value
    assert type(error).__name__ == case["class"]
    assert (error.code, error.field) == (case["code"], case["field"]["python"]), error
    if "problems" in case:
        got = [[p.code, p.field] for p in error.problems]
        assert got == case["problems"]["python"]
