"""Config errors speak Python: seconds, the Python spelling, no Rust type
names or milliseconds, every problem reported (the core's schema writes
them in the Python dialect; see core/src/schema.rs)."""

from __future__ import annotations

import math
from typing import Any

import pytest

import stoic
import stoic.parts


def _error(**config: object) -> stoic.ConfigError:
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy(**config)  # type: ignore[arg-type]
    return info.value


def test_messages_are_in_seconds_and_python_names() -> None:
    cap = _error(backoff={"base": 10, "cap": 1})
    assert (cap.code, cap.field) == ("inconsistent", "backoff.cap")
    assert cap.problems[0].message == "must be at least `base` (10 s), got 1 s"
    negative = _error(backoff={"base": -1})
    assert negative.code == "out_of_range"
    for leak in ("u64", "-1000", "_ms", "struct"):
        assert leak not in str(negative), str(negative)
    huge = _error(max_attempts=10**30)
    assert huge.code == "out_of_range"
    assert "floating point" not in str(huge)
    limit = _error(timeouts={"read": 40 * 86400})
    assert "2592000 s (30 days)" in str(limit), str(limit)


def test_a_duration_below_a_millisecond_is_refused_not_rounded_to_zero() -> None:
    tiny = _error(backoff={"base": 1e-9})
    assert (tiny.code, tiny.field) == ("out_of_range", "backoff.base")
    assert stoic.Policy(seed=1, backoff={"base": 0}).config["backoff"]["base"] == 0


def test_every_problem_is_reported() -> None:
    error = _error(max_attempts="5", timeouts={"raed": 5}, hints={"respect": 1})
    assert [(p.code, p.field) for p in error.problems] == [
        ("wrong_type", "max_attempts"),
        ("unknown_field", "timeouts.raed"),
        ("wrong_type", "hints.respect"),
    ]
    assert "did you mean `read`?" in str(error)


def test_the_config_reads_back_in_the_python_spelling() -> None:
    config = stoic.Policy(seed=1, backoff={"base": 0.25}).config
    assert config["backoff"]["base"] == 0.25
    assert config["timeouts"] == {"connect": 5.0, "read": 30.0, "total": 120.0}
    assert stoic.Policy(**config).config == config, "what config gives, Policy takes"


def test_a_status_table_takes_int_keys() -> None:
    policy = stoic.Policy(seed=1, classify={"status": {404: "transient"}})
    assert policy.config["classify"]["status"] == {"404": "transient"}
    wrong = _error(classify={"status": {404: "transiant"}})
    assert (wrong.code, wrong.field) == ("invalid_value", "classify.status.404")


@pytest.mark.parametrize("now", [math.inf, math.nan, -1.0, 1e15, 2**1100])
def test_an_absurd_time_is_refused_by_name_and_does_not_freeze_the_policy(now: float) -> None:
    policy = stoic.Policy(seed=1)
    with pytest.raises(stoic.InputError) as caught:
        policy.start(now, operation="op")
    assert caught.value.code == "out_of_range"
    assert str(caught.value).startswith("out_of_range: now must be")
    fine = policy.start(10.0, operation="op")
    assert fine.admit(10.0), "the policy's clock was not frozen"


@pytest.mark.parametrize(
    "call",
    [
        lambda: stoic.parts.Breaker().acquire(math.nan),
        lambda: _held_permit_reported_after(-1.0),
        lambda: stoic.parts.Metrics().on_call_finished(0.0, 1, "success", math.nan),
        lambda: stoic.parts.ServerIdempotency().in_flight("f", math.inf),
        lambda: stoic.parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", math.nan),
    ],
)
def test_times_and_durations_are_checked_at_the_edge(call: Any) -> None:
    with pytest.raises(stoic.InputError) as caught:
        call()
    assert caught.value.code == "out_of_range"


def _held_permit_reported_after(duration: float) -> bool:
    breaker = stoic.parts.Breaker()
    permit = breaker.acquire(0.0)
    assert isinstance(permit, stoic.parts.Permit)
    return breaker.on_success(0.0, permit, duration)


def test_a_bool_is_not_a_time() -> None:
    with pytest.raises(TypeError):
        stoic.parts.Breaker().acquire(True)
