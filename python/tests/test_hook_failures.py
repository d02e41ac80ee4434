"""Hooks and sinks never fail a call: a ``records=`` sink, a listener,
``on_retry=`` and ``on_give_up=`` that raise are reported once (a
``stoic.HookWarning``) and the call ends as it would have without them.
What a hook returns is ignored, ``on_give_up``'s too."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import requests

import stoic
from stoic.httpx import AsyncRetryTransport, RetryTransport
from stoic.requests import RetryAdapter

FAST: dict[str, Any] = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}
#: A breaker that opens on the first failure and lets a probe through at once.
TRIP_AT_ONCE: dict[str, Any] = {
    "trip": {"kind": "consecutive_failures", "threshold": 1},
    "cooldown": 0.001,
}


class Down:
    """A sink, listener or hook that raises every time it is called."""

    def __init__(self, only: str | None = None) -> None:
        self.only = only
        self.calls = 0

    def __call__(self, item: Any) -> None:
        self.calls += 1
        if self.only is None or (isinstance(item, dict) and item.get("kind") == self.only):
            raise RuntimeError("the sink is down")


def test_a_sink_that_fails_on_a_breaker_transition_fails_no_call(
    clock: stoic.VirtualClock,
) -> None:
    # The field finding: the function returned "ok", the caller got the
    # sink's RuntimeError.
    sink = Down(only="breaker_transition")
    policy = stoic.Policy(records=sink, breaker=TRIP_AT_ONCE)
    outcomes = iter([ConnectionRefusedError(), None])

    @stoic.retry(policy=policy, **FAST)
    def call() -> str:
        failure = next(outcomes)
        if failure is not None:
            raise failure
        return "ok"

    with pytest.warns(stoic.HookWarning, match=r"records=Down raised RuntimeError") as heard:
        assert call() == "ok"  # the breaker opened, then closed: two transitions
    assert len(heard) == 1, "reported once, not once per event"
    assert isinstance(heard[0].message, stoic.HookWarning)
    assert heard[0].message.hook == "records="
    assert isinstance(heard[0].message.error, RuntimeError)
    assert sink.calls > 2, "every later event was still offered to the sink"


def test_a_failing_sink_is_reported_once_across_calls(clock: stoic.VirtualClock) -> None:
    sink = Down()
    policy = stoic.Policy(records=sink)
    ok = stoic.retry(policy=policy)(lambda: "ok")
    with pytest.warns(stoic.HookWarning) as heard:
        assert [ok() for _ in range(3)] == ["ok", "ok", "ok"]
    assert len(heard) == 1
    assert sink.calls >= 3


def test_a_failing_listener_fails_no_call(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(log_records=True)
    listener = Down()
    policy.listen(listener)
    try:
        with pytest.warns(stoic.HookWarning, match=r"policy\.listen\(Down\) raised"):
            assert stoic.retry(policy=policy)(lambda: "ok")() == "ok"
    finally:
        policy.unlisten(listener)


def test_a_failing_on_retry_does_not_stop_the_retries(clock: stoic.VirtualClock) -> None:
    failures = [ConnectionResetError(), ConnectionResetError()]

    def broken(info: stoic.RetryInfo) -> None:
        raise ValueError("bad format string")

    @stoic.retry(on_retry=broken, **FAST)
    def call() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    with pytest.warns(stoic.HookWarning, match=r"on_retry=.*broken raised ValueError") as heard:
        assert call() == "ok"
    assert len(heard) == 1, "two retries, one report"
    assert len(clock.sleeps) == 2


def test_a_failing_on_give_up_leaves_the_call_s_own_ending(clock: stoic.VirtualClock) -> None:
    def broken(info: stoic.RetryInfo) -> None:
        raise ValueError("bad format string")

    @stoic.retry(on_give_up=broken, max_attempts=2, **FAST)
    def call() -> None:
        raise ConnectionRefusedError()

    with (
        pytest.warns(stoic.HookWarning, match="on_give_up="),
        pytest.raises(stoic.RetryError) as info,
    ):
        call()
    assert info.value.reason == "attempts_exhausted"
    assert isinstance(info.value.__cause__, ConnectionRefusedError)


def test_on_give_up_s_return_value_is_ignored(clock: stoic.VirtualClock) -> None:
    # Unlike tenacity's retry_error_callback: a hook that logs and returns
    # what its logger returned (an event id, a webhook's response) must not
    # turn a failure into that value.
    @stoic.retry(on_give_up=lambda info: "event-id-7", max_attempts=2, **FAST)
    def call() -> None:
        raise ConnectionRefusedError()

    with pytest.raises(stoic.RetryError):
        call()


def test_a_hook_returning_a_coroutine_is_closed_and_reported(clock: stoic.VirtualClock) -> None:
    told: list[int] = []

    async def notify(info: stoic.RetryInfo) -> None:
        told.append(info.attempt)  # never runs: nothing awaits a hook

    failures = [ConnectionResetError()]

    @stoic.retry(on_retry=lambda info: notify(info), **FAST)
    def call() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    # Closed, so Python does not also warn "coroutine was never awaited".
    with pytest.warns(stoic.HookWarning, match="returned an awaitable") as heard:
        assert call() == "ok"
    assert len(heard) == 1
    assert told == []


def test_the_loop_survives_a_failing_hook(clock: stoic.VirtualClock) -> None:
    failures = [TimeoutError()]

    def run() -> None:
        for attempt in stoic.retrying(on_retry=Down(), **FAST):
            with attempt:
                if failures:
                    raise failures.pop()

    with pytest.warns(stoic.HookWarning, match="on_retry="):
        run()
    assert failures == []


def test_the_async_decorator_survives_failing_hooks(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(records=Down(), **FAST)
    failures = [ConnectionResetError()]

    @stoic.retry(policy=policy, on_retry=Down())
    async def call() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    with pytest.warns(stoic.HookWarning) as heard:
        assert asyncio.run(call()) == "ok"
    assert sorted(w.message.hook for w in heard if isinstance(w.message, stoic.HookWarning)) == [
        "on_retry=",
        "records=",
    ]


def test_the_http_integrations_survive_failing_hooks(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    hooks: dict[str, Any] = {"on_retry": Down(), "on_give_up": Down(), "records": Down()}
    url = f"{server.url}/status/{token}"

    def synchronous() -> list[int]:
        with httpx.Client(transport=RetryTransport(**hooks, **FAST)) as c:
            return [
                c.get(f"{url}?n=1&code=503").status_code,
                c.get(f"{url}a?n=-1&code=404").status_code,
            ]

    with pytest.warns(stoic.HookWarning):
        assert synchronous() == [200, 404]

    async def asynchronous() -> list[int]:
        transport = AsyncRetryTransport(**hooks, **FAST)
        async with httpx.AsyncClient(transport=transport) as c:
            first = await c.get(f"{url}b?n=1&code=503")
            second = await c.get(f"{url}c?n=-1&code=404")
        return [first.status_code, second.status_code]

    # Each hook was reported already: no second warning (warnings are errors here).
    assert asyncio.run(asynchronous()) == [200, 404]

    with requests.Session() as s:
        s.mount("http://", RetryAdapter(**hooks, **FAST))
        assert s.get(f"{url}d?n=1&code=503").status_code == 200
        assert s.get(f"{url}e?n=-1&code=404").status_code == 404
