"""on_retry= and on_give_up=: what each runtime tells them, and when."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests

import stoic
from stoic.httpx import RetryTransport
from stoic.requests import RetryAdapter

FAST = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}


class Heard:
    """Records what each hook was told."""

    def __init__(self) -> None:
        self.retries: list[stoic.RetryInfo] = []
        self.give_ups: list[stoic.RetryInfo] = []

    def hooks(self) -> dict[str, Any]:
        return {"on_retry": self.retries.append, "on_give_up": self.give_ups.append}


def test_the_decorator_tells_each_retry_and_the_give_up(clock: stoic.VirtualClock) -> None:
    heard = Heard()
    errors = [ConnectionRefusedError(f"refused {i}") for i in range(3)]

    @stoic.retry(max_attempts=3, **FAST, **heard.hooks())
    def call() -> None:
        raise errors[len(heard.retries)]

    with pytest.raises(stoic.RetryError):
        call()
    assert [r.attempt for r in heard.retries] == [1, 2]
    assert [r.exception for r in heard.retries] == errors[:2]
    assert all(r.decision["kind"] == "retry" for r in heard.retries)
    assert [r.decision["delay"] for r in heard.retries] == clock.sleeps
    (gave_up,) = heard.give_ups
    assert (gave_up.attempt, gave_up.exception) == (3, errors[2])
    assert gave_up.decision["reason"] == "attempts_exhausted"
    assert "Gave up after 3 attempts" in gave_up.decision["observation"]


def test_a_success_tells_no_give_up(clock: stoic.VirtualClock) -> None:
    heard = Heard()
    failures = [ConnectionResetError()]

    @stoic.retry(**FAST, **heard.hooks())
    def call() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    assert call() == "ok"
    assert len(heard.retries) == 1
    assert heard.give_ups == []


def slow_in_a_loop(**config: Any) -> None:
    for attempt in stoic.retrying(**config):
        with attempt:
            raise TimeoutError("slow")


def test_the_loop_tells_them_too(clock: stoic.VirtualClock) -> None:
    heard = Heard()
    with pytest.raises(stoic.RetryError):
        slow_in_a_loop(max_attempts=2, **FAST, **heard.hooks())
    assert [r.attempt for r in heard.retries] == [1]
    assert isinstance(heard.retries[0].exception, TimeoutError)
    assert [g.decision["reason"] for g in heard.give_ups] == ["attempts_exhausted"]


def test_a_refused_next_attempt_is_a_give_up(clock: stoic.VirtualClock) -> None:
    # The policy starts draining while the call waits: the retry is refused
    # at admission, which is a give-up too.
    policy = stoic.Policy(**FAST)
    heard = Heard()

    def drain(info: stoic.RetryInfo) -> None:
        heard.retries.append(info)
        policy.drain()

    @stoic.retry(policy=policy, on_retry=drain, on_give_up=heard.give_ups.append)
    def call() -> None:
        raise ConnectionRefusedError()

    with pytest.raises(stoic.RetryError) as info:
        call()
    assert info.value.reason == "shutting_down"
    assert len(heard.retries) == 1
    assert [g.decision["reason"] for g in heard.give_ups] == ["shutting_down"]
    assert isinstance(heard.give_ups[0].exception, ConnectionRefusedError)


def test_an_interrupt_a_hook_raises_ends_the_call(clock: stoic.VirtualClock) -> None:
    calls = 0

    def refuse(info: stoic.RetryInfo) -> None:
        raise KeyboardInterrupt("stop")

    @stoic.retry(on_retry=refuse, **FAST)
    def call() -> None:
        nonlocal calls
        calls += 1
        raise ConnectionRefusedError()

    with pytest.raises(KeyboardInterrupt, match="stop"):
        call()
    assert calls == 1


def test_the_transports_tell_the_responses(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    heard = Heard()
    with httpx.Client(transport=RetryTransport(**FAST, **heard.hooks())) as c:
        assert c.get(f"{server.url}/status/{token}?n=1&code=503").status_code == 200
        assert c.get(f"{server.url}/status/{token}b?n=-1&code=404").status_code == 404
    (retried,) = heard.retries
    assert retried.result.status_code == 503
    assert retried.decision["matched"] == "status_503"
    (gave_up,) = heard.give_ups
    assert gave_up.result.status_code == 404
    assert gave_up.decision["reason"] == "not_retryable"

    heard = Heard()
    with requests.Session() as s:
        s.mount("http://", RetryAdapter(**FAST, **heard.hooks()))
        assert s.get(f"{server.url}/status/{token}c?n=1&code=503").status_code == 200
        assert s.get(f"{server.url}/status/{token}d?n=-1&code=404").status_code == 404
    assert [r.result.status_code for r in heard.retries] == [503]
    assert [g.result.status_code for g in heard.give_ups] == [404]


def test_hooks_must_be_callables() -> None:
    with pytest.raises(TypeError, match="on_retry= must be a callable"):
        stoic.retry(on_retry=5)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="on_give_up= must be a callable"):
        RetryTransport(on_give_up="log")  # type: ignore[arg-type]


def test_an_async_hook_is_refused_when_the_runtime_is_built() -> None:
    async def hook(info: stoic.RetryInfo) -> None:
        pass

    with pytest.raises(TypeError, match="on_retry= must be a plain function, not an async one"):
        stoic.retry(on_retry=hook)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="on_give_up= must be a plain function"):
        RetryTransport(on_give_up=hook)


def test_on_retry_may_read_the_retried_response(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    bodies: list[str] = []
    transport = RetryTransport(on_retry=lambda i: bodies.append(i.result.text), **FAST)
    with httpx.Client(transport=transport) as c:
        assert c.get(f"{server.url}/status/{token}?n=1&code=503&body=busy").status_code == 200
    assert bodies == ["busy"]


def test_a_wait_taken_from_an_sdk_exception_through_classify(clock: stoic.VirtualClock) -> None:
    class RateLimitError(Exception):
        def __init__(self, retry_after: float) -> None:
            super().__init__("rate limited")
            self.retry_after = retry_after

    def classify(exc: BaseException) -> Any:
        if isinstance(exc, RateLimitError):
            headers = {"retry-after": str(exc.retry_after)}
            return {"kind": "status", "status": 429, "headers": headers}
        return None

    left = [1]

    @stoic.retry(classify=classify)
    def complete() -> str:
        if left[0]:
            left[0] -= 1
            raise RateLimitError(retry_after=3)
        return "done"

    assert complete() == "done"
    assert clock.sleeps == [3.0]
    stats = complete.statistics()
    assert stats is not None
    assert stats.retries == 1
