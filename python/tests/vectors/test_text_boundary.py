"""Runs text_boundary.json through the package: text holding an unpaired
surrogate at each binding call, refused where its identity matters and read
lossily where it is free text (the JavaScript suite runs the same file)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import stoic
from conftest import load
from stoic import parts

CALLS: dict[str, Callable[[dict[str, Any]], object]] = {
    "start": lambda a: stoic.Policy(seed=1).start(
        0.0, a["operation"], scope=a["scope"], key=a.get("key")
    ),
    "breaker_state": lambda a: stoic.Policy(seed=1).breaker_state(a["scope"]),
    "canonical_json_text": lambda a: parts.canonical_json_text(a["text"]),
    "idempotency_key_text": lambda a: parts.idempotency_key_text(
        a["run_id"], a["step"], a["args_text"]
    ),
    "key_header_value": lambda a: parts.key_header_value(a["key"]),
    "request_fingerprint": lambda a: parts.request_fingerprint(a["body"]),
    "parse_key_header": lambda a: parts.parse_key_header(a["value"]),
    "parse_retry_after": lambda a: stoic.parse_retry_after(a["value"], a["now_ms"] / 1000),
}

DOC = load("text_boundary.json", "text_boundary")


def test_the_file_applies_here() -> None:
    assert "python" in DOC["applies_to"]


@pytest.mark.parametrize("case", DOC["refused"], ids=lambda c: c["name"])
def test_text_whose_identity_matters_is_refused(case: dict[str, Any]) -> None:
    with pytest.raises(stoic.InputError) as caught:
        CALLS[case["call"]](case["args"])
    assert caught.value.code == "lone_surrogate"


@pytest.mark.parametrize("case", DOC["read_lossily"], ids=lambda c: c["name"])
def test_free_text_is_read_lossily(case: dict[str, Any]) -> None:
    assert CALLS[case["call"]](case["args"]) == case["expected"]
