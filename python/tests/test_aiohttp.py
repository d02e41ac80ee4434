"""The aiohttp middleware against a real local server (tests/server.py): the
same semantics as the httpx transports and the requests adapter."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
import pytest

import stoic
from stoic.aiohttp import RetryMiddleware

FAST = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}
T = TypeVar("T")


def run(body: Callable[[aiohttp.ClientSession], Awaitable[T]], **config: Any) -> T:
    """``body`` with a session whose middleware has ``config``."""

    async def main() -> T:
        middleware = RetryMiddleware(**{**FAST, **config})
        async with aiohttp.ClientSession(middlewares=(middleware,)) as session:
            return await body(session)

    return asyncio.run(main())


def test_503_then_200(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    async def body(s: aiohttp.ClientSession) -> tuple[int, str, Any]:
        async with s.get(f"{server.url}/status/{token}?n=2&code=503") as r:
            return r.status, await r.text(), r.stoic  # type: ignore[attr-defined]

    assert run(body) == (200, "ok", None)
    assert len(server.seen[token]) == 3
    assert clock.sleeps == [0.01, 0.02]


def test_429_retry_after_is_honoured(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    async def body(s: aiohttp.ClientSession) -> int:
        async with s.get(f"{server.url}/retry-after/{token}?n=1&after=2") as r:
            return r.status

    assert run(body) == 200
    assert clock.sleeps == [2.0]


def test_the_automatic_key_alone_does_not_repeat_a_post(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def body(s: aiohttp.ClientSession) -> None:
        async with s.post(f"{server.url}/reset/{token}?n=2", json={"amount": 10}):
            pass

    with pytest.raises(aiohttp.ClientError) as info:
        run(body)
    assert [m for m, _ in server.seen[token]] == ["POST"]
    assert server.seen[token][0][1] is not None  # the key is still sent
    assert "server is known to honour" in "".join(getattr(info.value, "__notes__", []))


def test_a_post_500_is_not_repeated_and_keeps_its_decision(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def body(s: aiohttp.ClientSession) -> tuple[int, str]:
        async with s.post(f"{server.url}/status/{token}?n=1&code=500") as r:
            return r.status, r.stoic["reason"]  # type: ignore[attr-defined]

    assert run(body) == (500, "not_idempotent")
    assert len(server.seen[token]) == 1


def test_one_key_for_every_retry_when_the_server_deduplicates(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def body(s: aiohttp.ClientSession) -> int:
        async with s.post(f"{server.url}/reset/{token}?n=2", json={"amount": 10}) as r:
            return r.status

    assert run(body, server_deduplicates=True) == 200
    seen = server.seen[token]
    assert [m for m, _ in seen] == ["POST"] * 3
    assert len({k for _, k in seen}) == 1
    assert server.bodies[token] == [b'{"amount": 10}'] * 3


def test_a_get_reset_is_retried_and_a_hang_times_out(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def body(s: aiohttp.ClientSession) -> list[int]:
        statuses = []
        for path in (f"reset/{token}?n=1", f"hang/{token}b?n=1&secs=1"):
            async with s.get(f"{server.url}/{path}") as r:
                statuses.append(r.status)
        return statuses

    assert run(body, timeouts={"read": 0.2}) == [200, 200]
    assert len(server.seen[token]) == 2
    assert len(server.seen[f"{token}b"]) == 2


def test_a_body_cut_off_mid_read_is_retried_for_a_get(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def body(s: aiohttp.ClientSession) -> str:
        async with s.get(f"{server.url}/cut/{token}?n=1") as r:
            return await r.text()

    assert run(body) == "ok"
    assert len(server.seen[token]) == 2


def test_a_404_is_returned_with_an_observation(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def body(s: aiohttp.ClientSession) -> dict[str, Any]:
        url = f"{server.url}/status/{token}?n=-1&code=404&body=no+such+order"
        async with s.get(url) as r:
            decision: dict[str, Any] = r.stoic  # type: ignore[attr-defined]
            return decision

    decision = run(body)
    assert decision["reason"] == "not_retryable"
    assert "no such order" in decision["observation"]
    assert len(server.seen[token]) == 1


def test_connection_refused_exhausts_into_retry_error(clock: stoic.VirtualClock) -> None:
    async def body(s: aiohttp.ClientSession) -> None:
        async with s.get("http://127.0.0.1:9/"):
            pass

    with pytest.raises(stoic.RetryError) as info:
        run(body, max_attempts=2)
    assert info.value.reason == "attempts_exhausted"
    assert info.value.last_outcome == "network_connect_refused"


def test_options_are_checked_when_the_middleware_is_built() -> None:
    with pytest.raises(TypeError, match="keys= must be a bool"):
        RetryMiddleware(keys="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"did you mean 'server_deduplicates'"):
        RetryMiddleware(server_deduplicate=True)


def test_a_one_shot_body_is_sent_whole_on_every_attempt(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    async def chunks() -> Any:
        yield b'{"amount": '
        yield b"10}"

    async def body(s: aiohttp.ClientSession) -> int:
        # A keyed POST to a 503-then-200 route: retried, with the whole body.
        headers = {"Idempotency-Key": "order-7"}
        async with s.post(f"{server.url}/status/{token}?n=1", data=chunks(), headers=headers) as r:
            return r.status

    assert run(body) == 200
    assert server.bodies[token] == [b'{"amount": 10}'] * 2
