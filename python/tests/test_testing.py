"""Testing mode: virtual time, no sleeping."""

from __future__ import annotations

import time
from typing import Any

import pytest

import stoic
from stoic import testing


def test_set_testing_swaps_the_clock() -> None:
    clock = stoic.set_testing(True)
    try:
        assert testing.is_testing()
        assert isinstance(clock, stoic.VirtualClock)
        started = time.monotonic()

        @stoic.retry(max_attempts=3)
        def always() -> None:
            raise ConnectionRefusedError()

        with pytest.raises(stoic.RetryError) as info:
            always()
        assert info.value.reason == "attempts_exhausted"
        assert len(clock.sleeps) == 2
        assert time.monotonic() - started < 1.0  # the default backoff is seconds
    finally:
        stoic.set_testing(False)
    assert not testing.is_testing()
    assert isinstance(testing.current_clock(), stoic.SystemClock)


def test_virtual_time_restores_the_previous_clock() -> None:
    before = testing.current_clock()
    with testing.virtual_time(stoic.VirtualClock(start=100.0)) as clock:
        assert testing.current_clock() is clock
        assert clock.monotonic() == 100.0
        clock.sleep(1.5)
        assert clock.monotonic() == 101.5
        assert clock.wall() > 1_700_000_000
    assert testing.current_clock() is before


def test_deadlines_pass_in_virtual_time() -> None:
    with testing.virtual_time() as clock:

        @stoic.retry(timeouts={"total": 5}, backoff={"strategy": "constant", "base": 2, "cap": 2})
        def down() -> None:
            raise ConnectionRefusedError()

        with pytest.raises(stoic.RetryError) as info:
            down()
        assert info.value.reason == "deadline_exceeded"
        assert clock.sleeps == [2.0, 2.0]


class Refused:
    """A function that fails with a connection error `failures` times."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionRefusedError("refused")
        return "ok"


def refused_in_a_loop(seen: list[int], **config: Any) -> None:
    """A ``retrying()`` loop whose every attempt is refused; ``seen`` gets
    each attempt's number."""
    for attempt in stoic.retrying(**config):
        with attempt:
            seen.append(attempt.num)
            raise ConnectionRefusedError()


def test_set_testing_caps_every_calls_attempts() -> None:
    stoic.set_testing(True, attempts=1)
    try:
        flaky = Refused(1)
        with pytest.raises(stoic.RetryError) as info:
            stoic.retry(max_attempts=5)(flaky)()
        assert (info.value.reason, flaky.calls) == ("attempts_exhausted", 1)
        # The loop too, and a call's other settings stay its own.
        seen: list[int] = []
        with pytest.raises(stoic.RetryError):
            refused_in_a_loop(seen, max_attempts=5, backoff={"base": 0.5})
        assert seen == [1]
        stoic.set_testing(True, attempts=2)
        flaky = Refused(1)
        assert stoic.retry(flaky)() == "ok"
        assert flaky.calls == 2
    finally:
        stoic.set_testing(False)
    flaky = Refused(3)
    with testing.virtual_time():
        assert stoic.retry(flaky)() == "ok"  # off again: the policy's 5 attempts
    assert flaky.calls == 4


def test_set_testing_refuses_a_cap_that_is_not_a_count() -> None:
    for bad in (0, -1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="attempts must be a whole number"):
            stoic.set_testing(True, attempts=bad)  # type: ignore[arg-type]
    assert not testing.is_testing()


def test_set_active_false_turns_retrying_off_entirely() -> None:
    policy = stoic.Policy(breaker={"trip": {"kind": "consecutive_failures", "threshold": 1}})
    stoic.set_active(False)
    try:
        assert not testing.is_active()
        flaky = Refused(1)
        # One attempt; the exception itself, not a RetryError.
        with pytest.raises(ConnectionRefusedError):
            stoic.retry(policy=policy, scope="api")(flaky)()
        assert flaky.calls == 1
        # The engine heard nothing: no breaker opened, nothing counted.
        assert policy.metrics() == {}
        seen: list[int] = []
        with pytest.raises(ConnectionRefusedError):
            refused_in_a_loop(seen, policy=policy, scope="api")
        assert seen == [1]
    finally:
        stoic.set_active(True)
    assert testing.is_active()
    # Two failures with a one-failure breaker, and it never opened.
    assert policy.breaker_state("api") is None


def test_set_active_false_for_asyncio_too() -> None:
    import asyncio

    calls = 0

    @stoic.retry
    async def refused() -> None:
        nonlocal calls
        calls += 1
        raise ConnectionRefusedError()

    stoic.set_active(False)
    try:
        with pytest.raises(ConnectionRefusedError):
            asyncio.run(refused())
    finally:
        stoic.set_active(True)
    assert calls == 1
