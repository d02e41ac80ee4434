"""Bad input at the component's boundary gets a typed error, never a trap:
malformed, deep and huge documents, steps out of order, another policy's
call, wrong lengths and unknown codes. After each, the same instance keeps
deciding."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wasmtime.component import Variant

from engine import ComponentError, Engine, plain, record

SPEC = {
    "operation": "op",
    "scope": "",
    "idempotent": None,
    "method": "GET",
    "idempotency_key": None,
    "max_attempts": None,
    "backoff_json": None,
}
OK = {"kind": Variant("success"), "headers": [], "wall_now_unix_ms": None, "detail": None}


def policy(engine: Engine, config: str = '{"seed": 1}') -> Any:
    return engine.call("policy", "[static]policy.create", config)


def on(engine: Engine, name: str, *args: Any) -> Any:
    return engine.call("policy", f"[method]policy.{name}", *args)


def still_decides(engine: Engine) -> None:
    p = policy(engine)
    call = on(engine, "start", p, 0, record(**SPEC))
    assert on(engine, "before-attempt", p, 0, call).tag == "proceed"
    assert on(engine, "on-outcome", p, 1, call, record(**OK)).tag == "done"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        "null",
        '{"seed": 1, "seed": 2}',
        '{"seed": "1"}',
        '{"seed": -1}',
        '{"seed": 1e400}',
        '{"seed": 1, "max_attempts": 4294967296}',
        "[" * 100_000 + "]" * 100_000,
        '{"seed": 1, "x": "' + "a" * 1_000_000 + '"}',
        '{"seed": 1, "backoff": {"strategy": "full_jitter", "base_ms": 10, "cap_ms": 1}}',
    ],
)
def test_bad_configs_are_config_errors(engine: Engine, text: str) -> None:
    with pytest.raises(ComponentError) as info:
        policy(engine, text)
    assert info.value.error["code"]
    still_decides(engine)


def test_steps_out_of_order_and_foreign_calls_are_misuse(engine: Engine) -> None:
    a, b = policy(engine), policy(engine)
    call = on(engine, "start", a, 0, record(**SPEC))
    with pytest.raises(ComponentError) as info:
        on(engine, "on-outcome", a, 0, call, record(**OK))
    assert info.value.error["code"] == "misuse"
    with pytest.raises(ComponentError) as info:
        on(engine, "before-attempt", b, 0, call)
    assert info.value.error["code"] == "misuse"
    assert on(engine, "before-attempt", a, 0, call).tag == "proceed"
    with pytest.raises(ComponentError) as info:
        on(engine, "before-attempt", a, 0, call)
    assert info.value.error["code"] == "misuse"
    assert on(engine, "on-outcome", a, 1, call, record(**OK)).tag == "done"
    with pytest.raises(ComponentError):
        on(engine, "start", a, 0, record(**{**SPEC, "backoff_json": '{"strategy": "x"}'}))
    with pytest.raises(ComponentError):
        on(engine, "start", a, 0, record(**{**SPEC, "max_attempts": 0}))
    still_decides(engine)


def test_helpers_refuse_bad_arguments(engine: Engine) -> None:
    with pytest.raises(ComponentError) as info:
        engine.call("keys", "random-key", b"short")
    assert info.value.error["code"] == "misuse"
    with pytest.raises(ComponentError):
        engine.call("keys", "key-header-value", "k", "fancy")
    with pytest.raises(ComponentError):
        engine.call("keys", "idempotency-key", "run", "step", "{" * 10_000)
    with pytest.raises(ComponentError):
        engine.call("parts", "merge-metrics", "{}", "[]")
    with pytest.raises(ComponentError):
        engine.call("parts", "[static]breaker.from-snapshot", '{"version": 99}')
    with pytest.raises(ComponentError):
        on(engine, "restore", policy(engine), "not a snapshot")
    metrics = engine.call("parts", "[static]metrics.create", "{}")
    with pytest.raises(ComponentError):
        engine.call("parts", "[method]metrics.on-call-finished", metrics, 0, 0, "maybe", 0)
    bad_hint = Variant("delay", record(delay_ms=5, source="no_such_header"))
    assert engine.call("hints", "hint-delay-with-backoff", bad_hint, 10) is None
    garbage = [("Retry-After", "\x00" * 10_000), ("retry-after-ms", "-1"), ("", "")]
    assert engine.call("hints", "parse-server-hint", garbage, None) is None
    assert engine.call("hints", "parse-retry-after", "soon", -5) is None
    still_decides(engine)


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
        max_leaves=20,
    )
)
def test_any_json_config_is_accepted_or_refused(value: Any) -> None:
    engine = ENGINE
    text = json.dumps({"seed": 1, "budget": value, "breaker": value})
    refused: dict[str, Any] | None = None
    try:
        policy(engine, text)
    except ComponentError as error:
        refused = error.error
    if refused is not None:
        assert refused["code"]
        assert isinstance(refused["problems"], list)
    assert plain(engine.call("keys", "es6-number", 1.5)) == "1.5"


ENGINE = Engine()
