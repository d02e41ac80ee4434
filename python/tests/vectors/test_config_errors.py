"""Runs config_errors.json through ``stoic.Policy(**config)``: the config in
the Python spelling (``_ms`` keys dropped, seconds), the error's field in
the same spelling (core/tests/vectors_config_errors.rs runs it through
Rust, npm/testlib/run-config-errors.js through the npm package)."""

from __future__ import annotations

import pytest

import stoic
from conftest import load, py_field, py_form


def _cases() -> list[dict[str, object]]:
    cases: list[dict[str, object]] = load("config_errors.json", "config_errors")["cases"]
    return cases


def test_enough_cases() -> None:
    assert len(_cases()) >= 20


@pytest.mark.parametrize("case", _cases(), ids=lambda c: str(c["name"]))
def test_invalid_config_names_its_field(case: dict[str, object]) -> None:
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy(**py_form(case["config"]))
    field = str(case["field"])
    assert (info.value.code, info.value.field) == (case["code"], py_field(field)), info.value
