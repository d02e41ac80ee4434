"""jcs.json, jcs_numbers.json, idempotency_keys.json, retry_after.json and
server_hints.json through the component's `keys` and `hints` interfaces."""

from __future__ import annotations

import struct

import pytest

from engine import ComponentError, Engine, load, plain


def test_canonical_json(engine: Engine) -> None:
    doc = load("jcs.json", "canonical_json")
    for case in doc["cases"]:
        got = engine.call("keys", "canonical-json", case["input"])
        assert got == case["expected"], case["name"]
    for case in doc["error_cases"]:
        with pytest.raises(ComponentError) as info:
            engine.call("keys", "canonical-json", case["input"])
        assert info.value.error["code"] == case["code"], case["name"]


def test_es6_numbers(engine: Engine) -> None:
    doc = load("jcs_numbers.json", "es6_number")
    assert len(doc["cases"]) == 1000
    for case in doc["cases"]:
        value = struct.unpack(">d", bytes.fromhex(case["bits"]))[0]
        assert engine.call("keys", "es6-number", value) == case["expected"], case["bits"]


def test_idempotency_keys(engine: Engine) -> None:
    doc = load("idempotency_keys.json", "idempotency_key")
    for case in doc["cases"]:
        args = case["args_text"]
        assert engine.call("keys", "canonical-json", args) == case["canonical"], case["name"]
        got = engine.call("keys", "idempotency-key", case["run_id"], case["step"], args)
        assert got == case["expected"], case["name"]
    for case in doc["error_cases"]:
        with pytest.raises(ComponentError) as info:
            engine.call(
                "keys",
                "idempotency-key",
                case["run_id"],
                case["step"],
                case["args_text"],
            )
        assert info.value.error["code"] == case["code"], case["name"]
    for case in doc["random_cases"]:
        got = engine.call("keys", "random-key", bytes.fromhex(case["bytes_hex"]))
        assert got == case["expected"]
    for case in doc["header_cases"]:
        got = engine.call("keys", "key-header-value", case["key"], case["form"])
        assert got == case["expected"], case
    for case in doc["parse_header_cases"]:
        assert engine.call("keys", "parse-key-header", case["value"]) == case["expected"], case


def test_retry_after(engine: Engine) -> None:
    doc = load("retry_after.json", "retry_after")
    for case in doc["cases"]:
        got = engine.call("hints", "parse-retry-after", case["input"], case["now_unix_ms"])
        assert got == case["expected_ms"], case["input"]
        if case.get("policy_max_ms") is not None:
            clamped = None if got is None else min(got, case["policy_max_ms"])
            assert clamped == case.get("expected_clamped_ms"), case["input"]
        if case.get("saturates") is True:
            assert got == 2**64 - 1, case["input"]
    for case in doc["http_date_cases"]:
        got = engine.call("hints", "parse-http-date", case["input"], case["now_unix_s"])
        assert got == case["expected_unix_s"], case["input"]


def test_server_hints(engine: Engine) -> None:
    doc = load("server_hints.json", "server_hint")
    for case in doc["cases"]:
        headers = [tuple(pair) for pair in case["headers"]]
        hint = engine.call("hints", "parse-server-hint", headers, case["wall_now_unix_ms"])
        expected = case["expected"]
        context = case["description"]
        if expected["kind"] == "none":
            assert hint is None, context
            effective = case["backoff_ms"]
        else:
            got = plain(hint)
            assert (got["kind"], got["source"]) == (
                expected["kind"],
                expected["source"],
            ), context
            if "hint_ms" in expected:
                assert got["hint_ms"] == expected["hint_ms"], context
            if expected["kind"] == "delay":
                assert got["delay_ms"] == expected["delay_ms"], context
            # `delay_ms` of a bounded hint is its wait given the backoff.
            effective = engine.call("hints", "hint-delay-with-backoff", hint, case["backoff_ms"])
            assert effective == expected.get("delay_ms"), context
        assert effective == case["effective_delay_ms"], context
