"""Runs jcs.json, jcs_numbers.json and idempotency_keys.json through the
package (core/tests/vectors_jcs.rs runs them through Rust)."""

from __future__ import annotations

import json
import struct

import pytest

import stoic
from conftest import load
from stoic import parts


def test_canonical_json_text_cases() -> None:
    doc = load("jcs.json", "canonical_json")
    names = {c["name"] for c in doc["cases"]}
    assert {"arrays", "french", "structures", "unicode", "values", "weird"} <= names
    for case in doc["cases"]:
        got = parts.canonical_json_text(case["input"])
        assert got == case["expected"], case["name"]
        assert parts.canonical_json_text(got) == got, case["name"]


def _holds_an_inexact_int(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) > 2**53 and float(value) != value
    if isinstance(value, list):
        return any(_holds_an_inexact_int(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_an_inexact_int(v) for v in value.values())
    return False


def test_canonical_json_of_python_values() -> None:
    # The same documents as Python values (where Python's json can hold them).
    doc = load("jcs.json", "canonical_json")
    checked = 0
    for case in doc["cases"]:
        try:
            value = json.loads(case["input"])
        except ValueError:
            continue
        if "\\ud8" in case["input"].lower() or "\\udc" in case["input"].lower():
            continue  # lone surrogates have no Python str form
        if _holds_an_inexact_int(value):
            # A Python int is exact: one a double cannot hold is refused here
            # (the text form above still reads it as a double, as RFC 8785 says).
            with pytest.raises(stoic.InputError) as info:
                stoic.canonical_json(value)
            assert info.value.code == "number_out_of_range", case["name"]
        else:
            assert stoic.canonical_json(value) == case["expected"], case["name"]
        checked += 1
    assert checked >= 6


def test_canonical_json_error_cases() -> None:
    doc = load("jcs.json", "canonical_json")
    for case in doc["error_cases"]:
        with pytest.raises(stoic.InputError) as info:
            parts.canonical_json_text(case["input"])
        assert info.value.code == case["code"], case["name"]
        assert isinstance(info.value, ValueError)


def test_es6_numbers() -> None:
    doc = load("jcs_numbers.json", "es6_number")
    assert len(doc["cases"]) == 1000
    for case in doc["cases"]:
        value = struct.unpack(">d", bytes.fromhex(case["bits"]))[0]
        assert parts.es6_number(value) == case["expected"], case["bits"]
        assert parts.canonical_json_text(case["expected"]) == case["expected"]
        assert stoic.canonical_json(value) == case["expected"], case["bits"]


def test_idempotency_keys() -> None:
    doc = load("idempotency_keys.json", "idempotency_key")
    for case in doc["cases"]:
        run_id, step, expected = case["run_id"], case["step"], case["expected"]
        assert parts.canonical_json_text(case["args_text"]) == case["canonical"], case["name"]
        assert parts.idempotency_key_text(run_id, step, case["args_text"]) == expected
        assert stoic.idempotency_key(run_id, step, case["args"]) == expected, case["name"]
    for case in doc["error_cases"]:
        with pytest.raises(stoic.InputError) as info:
            parts.idempotency_key_text(case["run_id"], case["step"], case["args_text"])
        assert info.value.code == case["code"], case["name"]


def test_random_keys() -> None:
    doc = load("idempotency_keys.json", "idempotency_key")
    for case in doc["random_cases"]:
        assert stoic.random_key(bytes.fromhex(case["bytes_hex"])) == case["expected"]


def test_key_headers() -> None:
    doc = load("idempotency_keys.json", "idempotency_key")
    for case in doc["header_cases"]:
        assert parts.key_header_value(case["key"], case["form"]) == case["expected"], case
    for case in doc["parse_header_cases"]:
        assert parts.parse_key_header(case["value"]) == case["expected"], case
