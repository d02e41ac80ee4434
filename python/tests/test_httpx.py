"""The httpx transports against a real local server (sync and asyncio), for
both libraries of the httpx family: httpx, and httpx2 (what the OpenAI and
Anthropic SDKs take; ``test_model_sdks.py`` runs them)."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest

import stoic

FAST = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}


class Lib:
    """httpx or httpx2 (one API under two names), with stoic's transports for
    it: ``lib.Client``, ``lib.ReadError``, ``lib.RetryTransport``, ..."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.module = importlib.import_module(name)
        transports = importlib.import_module(f"stoic.{name}")
        self.RetryTransport = transports.RetryTransport
        self.AsyncRetryTransport = transports.AsyncRetryTransport

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.module, attr)

    def client(self, **config: Any) -> Any:
        return self.Client(transport=self.RetryTransport(**{**FAST, **config}))


@pytest.fixture(params=["httpx", "httpx2"])
def lib(request: pytest.FixtureRequest) -> Lib:
    return Lib(request.param)


def test_503_then_200(lib: Lib, server: Any, token: str, clock: stoic.VirtualClock) -> None:
    with lib.client() as c:
        response = c.get(f"{server.url}/status/{token}?n=2&code=503")
    assert response.status_code == 200
    assert len(server.seen[token]) == 3
    assert clock.sleeps == [0.01, 0.02]


def test_429_retry_after_is_honoured(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client() as c:
        response = c.get(f"{server.url}/retry-after/{token}?n=1&after=2")
    assert response.status_code == 200
    assert clock.sleeps == [2.0]


def test_retry_after_past_the_deadline_returns_the_response(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client(timeouts={"total": 5}) as c:
        response = c.get(f"{server.url}/retry-after/{token}?n=1&after=60")
    assert response.status_code == 429
    decision = response.extensions["stoic"]
    assert decision["reason"] == "retry_after_exceeds_deadline"
    assert clock.sleeps == []


def test_automatic_key_alone_does_not_repeat_a_post(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # Most servers ignore Idempotency-Key: a reset after the POST was sent
    # may follow a committed order, so it is not sent again.
    with lib.client() as c, pytest.raises(lib.ReadError) as info:
        c.post(f"{server.url}/reset/{token}?n=2", json={"amount": 10})
    assert [m for m, _ in server.seen[token]] == ["POST"]
    assert server.seen[token][0][1] is not None  # the key is still sent
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "server is known to honour" in notes


def test_post_500_is_not_repeated_without_a_key(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client() as c:
        response = c.post(f"{server.url}/status/{token}?n=1&code=500")
    assert response.status_code == 500
    assert response.extensions["stoic"]["reason"] == "not_idempotent"
    assert len(server.seen[token]) == 1


def test_post_gets_one_idempotency_key_for_every_retry_when_the_server_deduplicates(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client(server_deduplicates=True) as c:
        response = c.post(f"{server.url}/reset/{token}?n=2", json={"amount": 10})
    assert response.status_code == 200
    seen = server.seen[token]
    assert [m for m, _ in seen] == ["POST"] * 3
    keys = {k for _, k in seen}
    assert len(keys) == 1
    assert None not in keys


def test_caller_key_is_kept(lib: Lib, server: Any, token: str, clock: stoic.VirtualClock) -> None:
    with lib.client() as c:
        c.post(f"{server.url}/status/{token}?n=1", headers={"Idempotency-Key": "order-7"})
    assert [k for _, k in server.seen[token]] == ["order-7", "order-7"]


def test_get_is_not_given_a_key(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client() as c:
        c.get(f"{server.url}/status/{token}?n=1")
    assert [k for _, k in server.seen[token]] == [None, None]


def test_unkeyed_post_reset_is_not_repeated(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client(keys=False) as c, pytest.raises(lib.TransportError) as info:
        c.post(f"{server.url}/reset/{token}?n=1")
    assert len(server.seen[token]) == 1
    notes = getattr(info.value, "__notes__", [])
    assert any("may have been applied" in note for note in notes), notes


def test_reset_exhausts_into_retry_error(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client(max_attempts=2) as c, pytest.raises(stoic.RetryError) as info:
        c.get(f"{server.url}/reset/{token}?n=-1")
    assert info.value.reason == "attempts_exhausted"
    assert info.value.attempts == 2
    assert isinstance(info.value.__cause__, lib.TransportError)


def test_hang_past_the_attempt_timeout(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client(timeouts={"read": 0.2, "connect": 0.2}) as c:
        response = c.get(f"{server.url}/hang/{token}?n=1&secs=1")
    assert response.status_code == 200
    assert len(server.seen[token]) == 2
    assert len(clock.sleeps) == 1


def test_validate_rejects_a_200_with_an_error_body(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    def validate(response: Any) -> object:
        return "error" not in response.json()

    with lib.Client(transport=lib.RetryTransport(validate=validate, **FAST)) as c:
        response = c.get(f"{server.url}/error-body/{token}?n=2")
    assert response.json() == {"ok": True}
    assert len(server.seen[token]) == 3


def test_404_is_returned_with_an_observation(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client() as c:
        response = c.get(f"{server.url}/status/{token}?n=-1&code=404&body=no+such+order")
    assert response.status_code == 404
    decision = response.extensions["stoic"]
    assert decision["reason"] == "not_retryable"
    assert "no such order" in decision["observation"]
    assert len(server.seen[token]) == 1


def test_transports_share_a_policy_breaker(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    policy = stoic.Policy(
        max_attempts=1,
        breaker={"trip": {"kind": "consecutive_failures", "threshold": 2}},
        budget={"ratio": None},
    )
    with lib.Client(transport=lib.RetryTransport(policy=policy)) as c:
        for _ in range(2):
            assert c.get(f"{server.url}/status/{token}?n=-1").status_code == 503
        with pytest.raises(stoic.RetryError) as info:
            c.get(f"{server.url}/status/{token}?n=-1")
    assert info.value.reason == "circuit_open"
    assert len(server.seen[token]) == 2
    assert policy.breaker_state(f"127.0.0.1:{lib.URL(server.url).port}") == "open"


def test_a_refused_retry_keeps_the_last_response(lib: Lib, server: Any, token: str) -> None:
    # The policy starts draining while the transport sleeps before its
    # retry, so the retry is refused at admission: the RetryError still
    # carries the response the server gave.
    policy = stoic.Policy(**FAST)

    class DrainingClock(stoic.VirtualClock):
        def sleep(self, seconds: float) -> None:
            policy.drain()
            super().sleep(seconds)

    transport = lib.RetryTransport(policy=policy, clock=DrainingClock())
    with lib.Client(transport=transport) as c, pytest.raises(stoic.RetryError) as info:
        c.get(f"{server.url}/status/{token}?n=-1")
    assert info.value.reason == "shutting_down"
    assert len(server.seen[token]) == 1
    last = info.value.last_result
    assert isinstance(last, lib.Response)
    assert last.status_code == 503
    assert last.is_closed


def test_async_transport(lib: Lib, server: Any, token: str, clock: stoic.VirtualClock) -> None:
    async def main() -> list[int]:
        transport = lib.AsyncRetryTransport(server_deduplicates=True, **FAST)
        async with lib.AsyncClient(transport=transport) as c:
            a = await c.get(f"{server.url}/status/{token}a?n=2")
            b = await c.get(f"{server.url}/retry-after/{token}b?n=1&after=1")
            d = await c.post(f"{server.url}/reset/{token}c?n=1")
            return [a.status_code, b.status_code, d.status_code]

    assert asyncio.run(main()) == [200, 200, 200]
    assert clock.sleeps == [0.01, 0.02, 1.0, 0.01]
    keys = {k for _, k in server.seen[f"{token}c"]}
    assert len(keys) == 1
    assert None not in keys


def test_async_hang_and_exhaustion(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def main() -> None:
        transport = lib.AsyncRetryTransport(max_attempts=2, timeouts={"read": 0.2}, **FAST)
        async with lib.AsyncClient(transport=transport) as c:
            ok = await c.get(f"{server.url}/hang/{token}?n=1&secs=1")
            assert ok.status_code == 200
            with pytest.raises(stoic.RetryError) as info:
                await c.get(f"{server.url}/reset/{token}x?n=-1")
            assert info.value.reason == "attempts_exhausted"

    asyncio.run(main())


def test_a_body_cut_off_mid_read_is_retried_for_a_get(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # The body is read inside the attempt: the cut is that attempt's failure.
    with lib.client() as c:
        response = c.get(f"{server.url}/cut/{token}?n=1")
    assert response.status_code == 200
    assert response.text == "ok"
    assert len(server.seen[token]) == 2
    assert len(clock.sleeps) == 1


def test_a_503_whose_body_is_cut_off_is_still_retried(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client() as c:
        response = c.get(f"{server.url}/cut/{token}?n=2&code=503")
    assert response.status_code == 200
    assert len(server.seen[token]) == 3


def test_a_cut_body_on_a_post_is_not_repeated(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with lib.client() as c, pytest.raises(lib.RemoteProtocolError):
        c.post(f"{server.url}/cut/{token}?n=1")
    assert len(server.seen[token]) == 1


def test_streaming_returns_the_response_unread(
    lib: Lib, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    transport = lib.RetryTransport(stream=True, **FAST)
    with (
        lib.Client(transport=transport) as c,
        c.stream("GET", f"{server.url}/status/{token}?n=0") as response,
    ):
        assert response.status_code == 200
        assert response.read() == b"ok"


def test_transport_options_are_checked_when_it_is_built(lib: Lib) -> None:
    with pytest.raises(TypeError, match=r"did you mean 'server_deduplicates'"):
        lib.RetryTransport(server_deduplicate=True)
    with pytest.raises(TypeError, match="keys= must be a bool"):
        lib.RetryTransport(keys="no")
    with pytest.raises(TypeError, match=rf"transport must be an {lib.name}\.BaseTransport"):
        lib.RetryTransport(transport=5)
    with pytest.raises(TypeError, match=rf"give {lib.name}\.Client a RetryTransport"):
        lib.Client(transport=lib.AsyncRetryTransport()).get("http://127.0.0.1:9/")
    with (
        pytest.raises(TypeError, match=rf"give {lib.name}\.Client a RetryTransport"),
        lib.Client(transport=lib.AsyncRetryTransport()),
    ):
        pass
