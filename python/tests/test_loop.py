"""``stoic.retrying``: the stamina-style loop, sync and async."""

from __future__ import annotations

import asyncio

import pytest

import stoic

FAST = {"backoff": {"strategy": "constant", "base": 0.5, "cap": 1}}


def test_loop_retries_until_success(clock: stoic.VirtualClock) -> None:
    nums = []
    for attempt in stoic.retrying(**FAST):
        with attempt:
            nums.append(attempt.num)
            if attempt.num < 3:
                raise ConnectionError("flaky")
    assert nums == [1, 2, 3]
    assert clock.sleeps == [0.5, 0.5]


def _always_timing_out() -> None:
    for attempt in stoic.retrying(max_attempts=2, **FAST):
        with attempt:
            raise TimeoutError()


def test_loop_gives_up_with_retry_error(clock: stoic.VirtualClock) -> None:
    with pytest.raises(stoic.RetryError) as info:
        _always_timing_out()
    assert info.value.reason == "attempts_exhausted"
    assert isinstance(info.value.__cause__, TimeoutError)


def test_loop_lets_unknown_errors_through(clock: stoic.VirtualClock) -> None:
    seen = []

    def divide() -> None:
        for attempt in stoic.retrying():
            with attempt:
                seen.append(attempt.num)
                _ = 1 / 0

    with pytest.raises(ZeroDivisionError):
        divide()
    assert seen == [1]


def test_attempt_reject_and_plan(clock: stoic.VirtualClock) -> None:
    bodies = iter(["busy", "busy", "done"])
    got = None
    for attempt in stoic.retrying(key="job-1", **FAST):
        with attempt:
            assert attempt.idempotency_key == "job-1"
            assert attempt.timeout == 30.0
            got = next(bodies)
            if got == "busy":
                attempt.reject("still busy")
    assert got == "done"


def test_async_loop(clock: stoic.VirtualClock) -> None:
    async def main() -> list[int]:
        nums = []
        async for attempt in stoic.retrying(**FAST):
            with attempt:
                nums.append(attempt.num)
                if attempt.num == 1:
                    raise ConnectionResetError()
        return nums

    assert asyncio.run(main()) == [1, 2]
    assert clock.sleeps == [0.5]


def test_breaking_out_cancels_the_call(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy()
    loop = stoic.retrying(policy=policy)
    for attempt in loop:
        with attempt:
            raise ConnectionError()
        break
    import gc

    gc.collect()
    assert policy.metrics_total()["calls_total"] == 1
