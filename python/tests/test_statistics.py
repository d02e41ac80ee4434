"""fn.statistics() and fn.retry_with(...) on decorated functions (tenacity's
``.statistics`` and ``.retry_with``), sync and async, per thread and task."""

from __future__ import annotations

import asyncio
import threading

import pytest

import stoic


def flaky(failures: int) -> stoic.RetryingFunction[[], str]:
    left = [failures]

    @stoic.retry(max_attempts=4, backoff={"base": 0.01, "cap": 0.05}, seed=3)
    def call() -> str:
        if left[0] > 0:
            left[0] -= 1
            raise ConnectionResetError("reset")
        return "ok"

    return call


def test_statistics_of_the_last_call(clock: stoic.VirtualClock) -> None:
    fn = flaky(2)
    assert fn.statistics() is None
    assert fn() == "ok"
    stats = fn.statistics()
    assert stats is not None
    assert (stats.attempts, stats.retries, stats.finished, stats.succeeded) == (3, 2, True, True)
    assert stats.decision is not None
    assert stats.decision["kind"] == "done"
    assert stats.total == pytest.approx(sum(clock.sleeps))
    assert fn() == "ok"  # the next call replaces it
    stats = fn.statistics()
    assert stats is not None
    assert stats.attempts == 1


def test_statistics_of_a_call_that_gave_up(clock: stoic.VirtualClock) -> None:
    fn = flaky(10)
    with pytest.raises(stoic.RetryError):
        fn()
    stats = fn.statistics()
    assert stats is not None
    assert not stats.succeeded
    assert stats.attempts == 4
    assert stats.decision is not None
    assert stats.decision["reason"] == "attempts_exhausted"


def test_statistics_are_per_thread(clock: stoic.VirtualClock) -> None:
    fn = flaky(1)
    fn()
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(fn.statistics()))
    thread.start()
    thread.join()
    assert seen == [None]
    assert fn.statistics() is not None


def test_statistics_of_an_async_function_per_task(clock: stoic.VirtualClock) -> None:
    left = [1]

    @stoic.retry(backoff={"base": 0.01, "cap": 0.05})
    async def fetch() -> str:
        if left[0] > 0:
            left[0] -= 1
            raise ConnectionResetError("reset")
        return "ok"

    async def main() -> None:
        assert await fetch() == "ok"
        stats = fetch.statistics()
        assert stats is not None
        assert stats.attempts == 2
        other = await asyncio.create_task(asyncio.sleep(0, result=fetch.statistics()))
        # A task started after the call copies the context it was made in.
        assert other == stats

    asyncio.run(main())


def test_retry_with_overrides_and_shares_the_policy(clock: stoic.VirtualClock) -> None:
    fn = flaky(10)
    once = fn.retry_with(max_attempts=1)
    with pytest.raises(stoic.RetryError):
        once()
    stats = once.statistics()
    assert stats is not None
    assert stats.attempts == 1
    assert fn.statistics() is None  # each variant remembers its own calls
    hooks: list[int] = []
    noisy = fn.retry_with(on_retry=lambda info: hooks.append(info.attempt))
    with pytest.raises(stoic.RetryError):
        noisy()
    assert hooks == [1, 2, 3]


def test_a_variant_shares_the_private_policys_breaker(clock: stoic.VirtualClock) -> None:
    @stoic.retry(
        max_attempts=1,
        breaker={"trip": {"kind": "consecutive_failures", "threshold": 2, "compare": "ge"}},
    )
    def down() -> None:
        raise ConnectionRefusedError()

    for _ in range(2):
        with pytest.raises(stoic.RetryError):
            down()
    with pytest.raises(stoic.RetryError) as info:
        down.retry_with(max_attempts=3)()
    assert info.value.reason == "circuit_open"


def test_retry_with_refuses_what_belongs_to_the_policy() -> None:
    fn = flaky(0)
    with pytest.raises(TypeError, match=r"'breaker': it takes .*max_attempts"):
        fn.retry_with(breaker={"cooldown": 5})
    with pytest.raises(TypeError, match="'nonsense'"):
        fn.retry_with(nonsense=1)
