"""What ``@stoic.retry`` decorates: async callables however they are
spelled are retried, generators and classes are refused when decorated,
and a failure classified as a success is refused as the caller's bug."""

from __future__ import annotations

import asyncio
import functools
import urllib.error
from collections.abc import AsyncIterator, Callable, Iterator
from email.message import Message
from typing import Any

import pytest

import stoic

FAST: dict[str, Any] = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}


class AsyncFlaky:
    """An object with ``async def __call__``: fails ``failures`` times."""

    def __init__(self, failures: int) -> None:
        self.failures, self.calls = failures, 0

    async def __call__(self, value: str = "ok") -> str:
        self.calls += 1
        await asyncio.sleep(0)
        if self.calls <= self.failures:
            raise ConnectionResetError("reset")
        return value


# Async callables the decorator cannot tell from a sync one by looking.


def test_an_object_with_async_call_is_retried(clock: stoic.VirtualClock) -> None:
    flaky = AsyncFlaky(2)
    retried = stoic.retry(**FAST)(flaky)
    assert asyncio.run(retried("done")) == "done"
    assert flaky.calls == 3


def test_a_lambda_returning_a_coroutine_is_retried(clock: stoic.VirtualClock) -> None:
    flaky = AsyncFlaky(2)
    retried = stoic.retry(**FAST)(lambda: flaky("done"))
    assert asyncio.run(retried()) == "done"
    assert flaky.calls == 3
    statistics = retried.statistics()
    assert statistics is not None
    assert (statistics.attempts, statistics.succeeded) == (3, True), "one call, three attempts"


def test_a_partial_of_an_async_object_is_retried(clock: stoic.VirtualClock) -> None:
    flaky = AsyncFlaky(1)
    retried = stoic.retry(**FAST)(functools.partial(flaky, "done"))
    assert asyncio.run(retried()) == "done"
    assert flaky.calls == 2


def test_a_returned_coroutine_that_keeps_failing_gives_up(clock: stoic.VirtualClock) -> None:
    flaky = AsyncFlaky(10)
    retried = stoic.retry(max_attempts=3, **FAST)(lambda: flaky())
    with pytest.raises(stoic.RetryError) as info:
        asyncio.run(retried())
    assert info.value.reason == "attempts_exhausted"
    assert info.value.attempts == 3
    assert flaky.calls == 3


def test_a_returned_coroutine_is_validated_and_bounded(clock: stoic.VirtualClock) -> None:
    replies = iter(["pending", "pending", "done"])

    async def poll() -> str:
        return next(replies)

    retried = stoic.retry(validate=lambda r: r == "done", **FAST)(lambda: poll())
    assert asyncio.run(retried()) == "done"

    async def hang() -> None:
        await asyncio.sleep(60)

    # The attempt runs under the per-attempt timeout, as an `async def` one does.
    slow = stoic.retry(max_attempts=2, timeouts={"read": 0.05}, **FAST)(lambda: hang())
    with pytest.raises(stoic.RetryError) as info:
        asyncio.run(slow())
    assert info.value.last_outcome == "network_read_timeout"


def test_a_future_a_sync_function_returns_is_returned_as_it_is(
    clock: stoic.VirtualClock,
) -> None:
    # A task started in the background is a value the function made on
    # purpose: not awaited, not retried.
    async def main() -> None:
        async def work() -> str:
            return "done"

        started = stoic.retry(lambda: asyncio.ensure_future(work()))
        task = started()
        assert isinstance(task, asyncio.Task)
        assert await task == "done"

    asyncio.run(main())


def test_a_sync_function_that_returns_a_plain_value_is_unchanged(
    clock: stoic.VirtualClock,
) -> None:
    assert stoic.retry(lambda: {"ok": True})() == {"ok": True}


def test_an_async_hook_object_is_refused() -> None:
    class Notify:
        async def __call__(self, info: stoic.RetryInfo) -> None:
            pass

    with pytest.raises(TypeError, match="on_retry= must be a plain function, not an async one"):
        stoic.retry(on_retry=Notify())  # type: ignore[call-overload]


# What the decorator refuses.


def numbers() -> Iterator[int]:
    yield 1


async def anumbers() -> AsyncIterator[int]:
    yield 1


class Client:
    pass


class Lines:
    def __call__(self) -> Iterator[str]:
        yield "a"


@pytest.mark.parametrize(
    ("target", "said"),
    [
        (numbers, r"cannot retry the generator function numbers: .* stoic\.retrying\(\)"),
        (anumbers, r"cannot retry the async generator function anumbers: .*async for attempt"),
        (Lines(), r"cannot retry the generator function Lines"),
        (Client, r"decorates a function, not the class Client: .*isinstance"),
    ],
)
def test_generators_and_classes_are_refused_when_decorated(target: Any, said: str) -> None:
    with pytest.raises(TypeError, match=said):
        stoic.retry(target)
    with pytest.raises(TypeError, match=said):
        stoic.retry(max_attempts=2)(target)


def test_building_an_instance_is_retried_through_a_function(clock: stoic.VirtualClock) -> None:
    # What the class refusal suggests.
    attempts = iter([ConnectionRefusedError(), None])

    class Connection:
        def __init__(self) -> None:
            failure = next(attempts)
            if failure is not None:
                raise failure

    connect = stoic.retry(**FAST)(lambda: Connection())
    assert isinstance(connect(), Connection)


# A failure classified as a success.


def raising(exc: BaseException) -> Callable[[], None]:
    calls: list[int] = []

    def fn() -> None:
        calls.append(1)
        raise exc

    fn.calls = calls  # type: ignore[attr-defined]
    return fn


@pytest.mark.parametrize(
    "answer",
    ["success", {"class": "success"}, {"kind": "status", "status": 200, "headers": {}}],
)
def test_classify_answering_success_for_an_exception_is_refused(
    answer: Any, clock: stoic.VirtualClock
) -> None:
    policy = stoic.Policy()
    fn = raising(ValueError("boom"))
    retried = stoic.retry(policy=policy, scope="s", classify=lambda e: answer, **FAST)(fn)
    with pytest.raises(stoic.InputError, match=r"classify= returned .* for ValueError") as info:
        retried()
    assert (info.value.code, info.value.field) == ("not_a_failure", "classify")
    assert isinstance(info.value.__cause__, ValueError), "the exception it was asked about"
    assert fn.calls == [1]  # type: ignore[attr-defined]
    # Not an empty RetryError, and not a success.
    statistics = retried.statistics()
    assert statistics is not None
    assert statistics.succeeded is False


def test_the_loop_refuses_it_too(clock: stoic.VirtualClock) -> None:
    def run() -> None:
        for attempt in stoic.retrying(classify=lambda e: "success"):
            with attempt:
                raise KeyError("k")

    with pytest.raises(stoic.InputError, match="classify="):
        run()


def test_a_validator_cannot_reject_as_success(clock: stoic.VirtualClock) -> None:
    verdict = stoic.Rejected("success")  # type: ignore[arg-type]
    retried = stoic.retry(validate=lambda r: verdict)(lambda: "v")
    with pytest.raises(stoic.InputError) as info:
        retried()
    assert (info.value.code, info.value.field) == ("not_a_failure", "validate")

    def loop() -> None:
        for attempt in stoic.retrying():
            with attempt:
                attempt.reject("pending", cls="success")

    with pytest.raises(stoic.InputError, match=r'reject\(cls="success"\)'):
        loop()


def test_an_exception_carrying_a_redirect_is_the_caller_s_own_error(
    clock: stoic.VirtualClock,
) -> None:
    # urllib raises a 304 (aiohttp's ContentTypeError carries a 200): not a
    # failure the server reported, and not a success either.
    error = urllib.error.HTTPError("http://x/", 304, "Not Modified", Message(), None)
    fn = raising(error)
    with pytest.raises(urllib.error.HTTPError) as info:
        stoic.retry(**FAST)(fn)()
    assert info.value is error
    assert fn.calls == [1]  # type: ignore[attr-defined]
    assert any("local error" in n or "your code" in n for n in getattr(error, "__notes__", []))
