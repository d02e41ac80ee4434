"""Hedging with real parts: a local HTTP server with a latency tail
(``server.py``'s ``/tail`` and ``/order``), the httpx2 async transport and
the decorator on asyncio.

Nothing here is timed: the tests assert what the server recorded (the
copies it received, the connections the client hung up on, the keys, the
orders made) and what the caller got. A slow copy waits 10 s unless it is
aborted, so a loser left running would show as a missing abort.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx2
import pytest

import stoic
import stoic.httpx
import stoic.httpx2

#: A hedge 50 ms after each copy: far below the tail's 10 s.
FIXED = {"max_hedges": 1, "delay": {"kind": "fixed", "after": 0.05}}


def aborts(server: Any, token: str, want: int) -> int:
    """The aborts the server saw, once it saw ``want`` (its handler thread
    notices a hang-up on its own; 5 s is a bound, not a measurement)."""
    bound = time.monotonic() + 5
    while server.aborted[token] < want and time.monotonic() < bound:
        time.sleep(0.01)
    return int(server.aborted[token])


def arrived(server: Any, token: str, want: int) -> None:
    """Returns once the server has seen ``want`` requests (5 s bound)."""
    bound = time.monotonic() + 5
    while len(server.seen[token]) < want and time.monotonic() < bound:
        time.sleep(0.01)


def client(**options: Any) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=stoic.httpx2.AsyncRetryTransport(**options))


def test_a_hedged_get_returns_the_fast_copy_and_aborts_the_slow_one(
    server: Any, token: str
) -> None:
    async def main() -> httpx2.Response:
        async with client(hedging=FIXED) as http:
            return await http.get(f"{server.url}/tail/{token}?n=1&secs=10")

    response = asyncio.run(main())
    # The first copy hung; the hedge (the second arrival) answered.
    assert (response.status_code, response.text) == (200, "arrival 2")
    assert response.extensions["stoic"] is None
    assert [method for method, _ in server.seen[token]] == ["GET", "GET"]
    assert aborts(server, token, 1) == 1


def test_a_fast_answer_sends_no_hedge(server: Any, token: str) -> None:
    async def main() -> httpx2.Response:
        async with client(hedging={"delay": {"kind": "fixed", "after": 30}}) as http:
            return await http.get(f"{server.url}/tail/{token}?n=0")

    assert asyncio.run(main()).text == "arrival 1"
    assert len(server.seen[token]) == 1
    assert server.aborted[token] == 0


def test_a_post_without_a_key_is_never_hedged(server: Any, token: str) -> None:
    # The transport adds its own key, but the server was not said to
    # deduplicate: the POST is not safe to repeat, so it goes once.
    async def main() -> httpx2.Response:
        async with client(hedging=FIXED) as http:
            return await http.post(f"{server.url}/order/{token}?n=1&secs=0.3", content=b"{}")

    response = asyncio.run(main())
    assert response.json() == {"order": 1, "arrival": 1}
    assert len(server.seen[token]) == 1
    assert server.aborted[token] == 0


def test_a_keyed_posts_copies_carry_one_key_and_make_one_order(server: Any, token: str) -> None:
    async def main() -> httpx2.Response:
        async with client(hedging=FIXED) as http:
            return await http.post(
                f"{server.url}/order/{token}?n=1&secs=10",
                content=b'{"item": 1}',
                headers={"Idempotency-Key": "order-77"},
            )

    response = asyncio.run(main())
    # Both copies carried the caller's key; the server made one order and
    # the hedge got it back.
    assert server.seen[token] == [("POST", "order-77"), ("POST", "order-77")]
    assert server.orders[token] == ["order-77"]
    assert response.json() == {"order": 1, "arrival": 2}
    assert aborts(server, token, 1) == 1


def test_hedges_stop_when_the_budget_is_spent_and_nothing_in_flight_is_cancelled(
    server: Any, token: str
) -> None:
    # A correlated overload: every request is slow, so every call of a
    # burst wants a hedge. Hedges are paid for by the retry budget (a hedge
    # in flight holds its slot): once it is spent the other calls go out as
    # one copy each, and every call still gets its answer.
    calls = 20
    policy = stoic.Policy(budget={"ratio": {"ratio": 0.1, "min_retries_per_sec": 0.01}})
    events: list[dict[str, Any]] = []
    policy.listen(events.append)

    async def main() -> list[int]:
        async with client(policy=policy, hedging=FIXED) as http:
            url = f"{server.url}/tail/{token}?n=-1&secs=0.5"
            responses = await asyncio.gather(*(http.get(url) for _ in range(calls)))
        return [r.status_code for r in responses]

    assert asyncio.run(main()) == [200] * calls
    hedges = len(server.seen[token]) - calls
    assert 1 <= hedges <= calls // 4
    assert any(e["kind"] == "budget_exhausted" for e in events)
    # Only a hedge race's loser is aborted (none, if it answered before its
    # cancellation landed): no copy was dropped for the budget's sake.
    assert aborts(server, token, hedges) <= hedges


def test_the_decorator_hedges_an_async_function(server: Any, token: str) -> None:
    url = f"{server.url}/tail/{token}?n=1&secs=10"

    @stoic.retry(hedging=FIXED)
    async def fetch() -> str:
        async with httpx2.AsyncClient() as http:
            response = await http.get(url)
            response.raise_for_status()
            return response.text

    async def main() -> tuple[str, stoic.CallStatistics | None]:
        # Statistics are per task: read in the task that called.
        return await fetch(), fetch.statistics()

    text, statistics = asyncio.run(main())
    assert text == "arrival 2"
    assert len(server.seen[token]) == 2
    assert aborts(server, token, 1) == 1
    assert statistics is not None
    assert (statistics.attempts, statistics.succeeded) == (2, True)
    assert statistics.decision is not None
    assert (statistics.decision["winner"], statistics.decision["cancel"]) == (2, [1])


def test_the_decorator_refuses_to_hedge_a_call_not_safe_to_repeat(server: Any, token: str) -> None:
    @stoic.retry(hedging=FIXED, idempotent=False)
    async def create() -> str:
        async with httpx2.AsyncClient() as http:
            return (await http.post(f"{server.url}/order/{token}?n=0")).text

    with pytest.raises(stoic.ConfigError) as info:
        asyncio.run(create())
    assert (info.value.code, info.value.field) == ("not_idempotent", "idempotent")
    assert server.seen[token] == []


def test_the_decorator_hedges_a_keyed_call_with_one_key(server: Any, token: str) -> None:
    url = f"{server.url}/order/{token}?n=1&secs=10"

    @stoic.retry(hedging=FIXED, idempotent=False, key="order-9")
    async def create() -> Any:
        async with httpx2.AsyncClient() as http:
            response = await http.post(url, headers={"Idempotency-Key": "order-9"})
            return response.json()

    assert asyncio.run(create()) == {"order": 1, "arrival": 2}
    assert server.seen[token] == [("POST", "order-9"), ("POST", "order-9")]
    assert server.orders[token] == ["order-9"]
    assert aborts(server, token, 1) == 1


def test_a_caller_cancelling_a_hedged_call_leaves_no_copy_running(server: Any, token: str) -> None:
    url = f"{server.url}/tail/{token}?n=-1&secs=10"

    @stoic.retry(hedging=FIXED)
    async def fetch() -> str:
        async with httpx2.AsyncClient() as http:
            return (await http.get(url)).text

    async def main() -> None:
        task = asyncio.ensure_future(fetch())
        # Both copies at the server, then the caller gives up on the call.
        await asyncio.to_thread(arrived, server, token, 2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert aborts(server, token, 2) == 2


def test_every_copy_failing_gives_up_with_the_last_failure(server: Any, token: str) -> None:
    url = f"{server.url}/status/{token}?n=-1&code=503"

    @stoic.retry(hedging={"max_hedges": 2, "delay": {"kind": "fixed", "after": 5}})
    async def fetch() -> str:
        async with httpx2.AsyncClient() as http:
            response = await http.get(url)
            response.raise_for_status()
            return response.text

    with pytest.raises(stoic.RetryError) as info:
        asyncio.run(fetch())
    # A failure sends the next copy at once; three copies in all.
    assert (info.value.reason, info.value.attempts) == ("attempts_exhausted", 3)
    assert info.value.last_outcome == "status_503"
    assert len(server.seen[token]) == 3


def test_sync_code_is_refused_with_a_config_error_naming_the_option() -> None:
    with pytest.raises(stoic.ConfigError) as info:

        @stoic.retry(hedging=FIXED)
        def fetch() -> None:
            pass

    assert (info.value.code, info.value.field) == ("inconsistent", "hedging")
    for transport in (stoic.httpx2.RetryTransport, stoic.httpx.RetryTransport):
        with pytest.raises(stoic.ConfigError) as info:
            transport(hedging=FIXED)
        assert (info.value.code, info.value.field) == ("inconsistent", "hedging")


def test_wrong_hedging_settings_are_refused_by_field() -> None:
    # The field from the option down, as in JavaScript (hedging.delay.afterMs).
    with pytest.raises(stoic.ConfigError) as info:
        stoic.retry(hedging={"delay": {"kind": "fixed"}})
    assert (info.value.code, info.value.field) == ("required", "hedging.delay.after")
    with pytest.raises(stoic.ConfigError) as info:
        stoic.httpx2.AsyncRetryTransport(hedging={"max_hedges": 9, "delay": {"kind": "quantile"}})
    assert (info.value.code, info.value.field) == ("out_of_range", "hedging.max_hedges")
    # The settings' own constructor names its own keywords.
    with pytest.raises(stoic.ConfigError) as info:
        stoic.HedgingConfig(max_hedges=9)
    assert (info.value.code, info.value.field) == ("out_of_range", "max_hedges")
    with pytest.raises(stoic.ConfigError) as info:
        stoic.retry(hedging=0.05)  # type: ignore[call-overload]
    assert (info.value.code, info.value.field) == ("wrong_type", "hedging")
