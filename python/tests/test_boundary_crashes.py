"""Values that used to crash the process at the binding: cyclic and
absurdly deep containers are bounded before they are walked, and come back
as a typed ``InputError`` with a code (never a segfault)."""

from __future__ import annotations

from typing import Any

import pytest

import stoic
import stoic.parts


def _cyclic_list() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items


def _cyclic_dict() -> dict[str, Any]:
    d: dict[str, Any] = {"strategy": "full_jitter"}
    d["self"] = d
    return d


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("make", "code"),
    [(_cyclic_list, "cyclic"), (_cyclic_dict, "cyclic"), (lambda: _deep(20_000), "too_deep")],
)
def test_helpers_reject_cyclic_and_deep_values(make: Any, code: str) -> None:
    for helper in (stoic.canonical_json, lambda v: stoic.idempotency_key("run", "step", v)):
        with pytest.raises(stoic.InputError) as info:
            helper(make())
        assert info.value.code == code


@pytest.mark.parametrize(
    ("make", "code"), [(_cyclic_dict, "cyclic"), (lambda: _deep(5_000), "too_deep")]
)
def test_config_rejects_cyclic_and_deep_values(make: Any, code: str) -> None:
    with pytest.raises(stoic.InputError) as info:
        stoic.Policy(backoff=make())
    assert info.value.code == code


def test_a_value_may_repeat_without_being_cyclic() -> None:
    shared = {"a": 1}
    assert stoic.canonical_json({"x": shared, "y": shared}) == '{"x":{"a":1},"y":{"a":1}}'
    assert stoic.canonical_json(_deep(100)) == "[" * 101 + "]" * 101


def test_integers_a_double_cannot_hold_are_refused_pass_them_as_strings() -> None:
    for order_id in (1234567890123456789, 2**70 + 1):
        for helper in (stoic.canonical_json, lambda v: stoic.idempotency_key("run", "step", v)):
            with pytest.raises(stoic.InputError) as info:
                helper({"order_id": order_id})
            assert info.value.code == "number_out_of_range"
            assert "pass it as a string" in str(info.value)
    a = stoic.idempotency_key("run", "step", {"order_id": "1234567890123456789"})
    b = stoic.idempotency_key("run", "step", {"order_id": "1234567890123456790"})
    assert a != b
    assert stoic.canonical_json({"n": 2**53}) == '{"n":9007199254740992}'


def test_a_config_or_snapshot_must_be_an_object() -> None:
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy.from_json("[1, 2]")
    assert info.value.code == "wrong_type"
    with pytest.raises(stoic.InputError) as bad:
        stoic.Policy(seed=1).restore("[1, 2]")
    assert bad.value.code == "invalid_snapshot", "the same class and code as in JavaScript"


@pytest.mark.parametrize(
    "call",
    [
        lambda: stoic.parts.format_http_date(-1),
        lambda: stoic.parts.format_http_date(2**64),
        lambda: stoic.Backoff("full_jitter", base=0.1, cap=1, seed=1).delay(-1),
        lambda: stoic.Backoff("full_jitter", base=0.1, cap=1, seed=1).delay(2**32),
        lambda: stoic.parts.Metrics().on_call_finished(0.0, -1, "success", 0.0),
    ],
)
def test_integers_out_of_range_are_input_errors_not_overflow(call: Any) -> None:
    with pytest.raises(stoic.InputError) as caught:
        call()
    assert caught.value.code == "out_of_range"


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_backoff_seed_out_of_range_is_a_config_error_naming_it(seed: int) -> None:
    with pytest.raises(stoic.ConfigError) as caught:
        stoic.Backoff("full_jitter", base=0.1, cap=1, seed=seed)
    assert (caught.value.code, caught.value.field) == ("out_of_range", "seed")


def test_data_handed_back_is_read_by_the_schema_in_seconds() -> None:
    hint = stoic.parts.server_hint({"retry-after": "2"})
    assert hint == {"kind": "delay", "delay": 2.0, "source": "retry_after"}
    assert stoic.parts.hint_delay(hint, 0.5) == 2.0
    with pytest.raises(stoic.InputError) as caught:
        stoic.parts.hint_delay({"kind": "delay", "delay_ms": 2000, "source": "retry_after"}, 0.5)
    assert (caught.value.code, caught.value.field) == ("unknown_field", "delay_ms")
    assert "write `delay`" in str(caught.value)


def test_an_unknown_code_argument_names_its_field_and_the_cores_codes() -> None:
    with pytest.raises(stoic.InputError) as caught:
        stoic.parts.RetryBudget().try_retry(0.0, "slow")
    assert (caught.value.code, caught.value.field) == ("invalid_value", "cost")
    assert '"normal", "timeout", "throttling"' in str(caught.value)
    with pytest.raises(stoic.InputError) as caught:
        stoic.parts.Metrics().on_call_finished(0.0, 0, "ok", 0.0)
    assert (caught.value.code, caught.value.field) == ("invalid_value", "outcome")
