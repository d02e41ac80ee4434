"""The total deadline holds for the body: every HTTP integration (httpx and
httpx2, sync and async, requests, aiohttp) stops a body that keeps
trickling in past ``timeouts={"total": ...}``, and a body cut after its
status arrived (by the deadline, or by the connection) is a ``body_cut``
whose ``RetryError`` keeps the response. A stream of events is still passed
on unread: the caller reads it, outside the deadline.

The server sends the status at once, then a byte at a time over 6 s; the
deadline is 1 s. Assertions are about outcomes, with wide margins: the call
ended with ``deadline_exceeded`` well before the trickle would have."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
import requests

import stoic
import stoic.aiohttp
import stoic.httpx
import stoic.httpx2
import stoic.requests

DEADLINE = {"timeouts": {"total": 1}}
TRICKLE = "secs=6&n=-1"
#: Far below the trickle's 6 s, far above the 1 s deadline.
ENDED_EARLY = 4.0

#: Sends one request through an integration: (method, url, config) -> (status, body).
Send = Callable[[str, str, dict[str, Any]], tuple[int, bytes]]


def with_httpx_family(module: Any, transports: Any) -> Send:
    def send(method: str, url: str, config: dict[str, Any]) -> tuple[int, bytes]:
        with module.Client(transport=transports.RetryTransport(**config)) as client:
            response = client.request(method, url)
            return response.status_code, response.content

    return send


def with_async_httpx_family(module: Any, transports: Any) -> Send:
    def send(method: str, url: str, config: dict[str, Any]) -> tuple[int, bytes]:
        async def run() -> tuple[int, bytes]:
            transport = transports.AsyncRetryTransport(**config)
            async with module.AsyncClient(transport=transport) as client:
                response = await client.request(method, url)
                return response.status_code, response.content

        return asyncio.run(run())

    return send


def with_requests(method: str, url: str, config: dict[str, Any]) -> tuple[int, bytes]:
    with requests.Session() as session:
        session.mount("http://", stoic.requests.RetryAdapter(**config))
        response = session.request(method, url)
        return response.status_code, response.content


def with_aiohttp(method: str, url: str, config: dict[str, Any]) -> tuple[int, bytes]:
    async def run() -> tuple[int, bytes]:
        middleware = stoic.aiohttp.RetryMiddleware(**config)
        async with (
            aiohttp.ClientSession(middlewares=(middleware,)) as session,
            session.request(method, url) as response,
        ):
            return response.status, await response.read()

    return asyncio.run(run())


SENDERS: dict[str, Send] = {
    "httpx": with_httpx_family(httpx, stoic.httpx),
    "httpx-async": with_async_httpx_family(httpx, stoic.httpx),
    "httpx2": with_httpx_family(httpx2, stoic.httpx2),
    "httpx2-async": with_async_httpx_family(httpx2, stoic.httpx2),
    "requests": with_requests,
    "aiohttp": with_aiohttp,
}


def status_of(response: Any) -> int:
    """A response's status, in each library's spelling."""
    status = getattr(response, "status_code", None)
    return int(status if status is not None else response.status)


@pytest.fixture(params=sorted(SENDERS))
def send(request: pytest.FixtureRequest) -> Send:
    return SENDERS[request.param]


@pytest.mark.parametrize(
    "shape",
    [
        "chunked=0",  # a byte at a time, each within the read timeout
        "chunked=1",
        "stall=1",  # one byte, then nothing for longer than the deadline
    ],
)
def test_a_trickling_body_ends_at_the_total_deadline(
    send: Send, shape: str, server: Any, token: str
) -> None:
    url = f"{server.url}/trickle/{token}?{TRICKLE}&{shape}"
    started = time.monotonic()
    with pytest.raises(stoic.RetryError) as info:
        send("GET", url, DEADLINE)
    assert time.monotonic() - started < ENDED_EARLY, "stopped long before the body ended"
    error = info.value
    assert error.reason == "deadline_exceeded"
    assert error.last_outcome == "network_body_cut"
    assert "body was cut off" in error.observation
    # The response whose body was cut stays with the error.
    assert status_of(error.last_result) == 200
    assert len(server.seen[token]) == 1


def test_a_post_whose_body_trickles_past_the_deadline_is_not_repeated(
    send: Send, server: Any, token: str
) -> None:
    url = f"{server.url}/trickle/{token}?{TRICKLE}"
    started = time.monotonic()
    # The request may have been applied, and is not safe to repeat: the
    # integration's own exception, with the engine's observation as a note.
    with pytest.raises(Exception) as info:  # noqa: PT011 (each library's own type)
        send("POST", url, DEADLINE)
    assert time.monotonic() - started < ENDED_EARLY
    assert not isinstance(info.value, stoic.RetryError)
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "body was cut off" in notes
    assert len(server.seen[token]) == 1


def test_a_body_that_arrives_in_time_is_returned_whole(send: Send, server: Any, token: str) -> None:
    status, body = send(
        "GET", f"{server.url}/trickle/{token}?secs=0.3", {"timeouts": {"total": 20}}
    )
    assert (status, body) == (200, b"x" * 60)


def test_a_body_cut_by_the_connection_keeps_its_response(
    send: Send, server: Any, token: str
) -> None:
    # The server sends 10 of 1000 bytes and closes: on the last attempt the
    # caller hears that the body was cut, and gets the response's head.
    with pytest.raises(stoic.RetryError) as info:
        send("GET", f"{server.url}/cut/{token}?n=-1", {"max_attempts": 1})
    error = info.value
    assert error.reason == "attempts_exhausted"
    assert error.last_outcome == "network_body_cut"
    assert status_of(error.last_result) == 200
    assert "HTTP 200, then" in error.observation, "the client's words name the status"


def test_on_give_up_is_told_the_cut_response(server: Any, token: str) -> None:
    heard: list[stoic.RetryInfo] = []
    transport = stoic.httpx.RetryTransport(on_give_up=heard.append, max_attempts=1)
    with httpx.Client(transport=transport) as client, pytest.raises(stoic.RetryError):
        client.get(f"{server.url}/cut/{token}?n=-1")
    (gave_up,) = heard
    assert isinstance(gave_up.exception, httpx.RemoteProtocolError)
    assert gave_up.result.status_code == 200


def test_an_event_stream_is_passed_on_unread_whatever_the_deadline(server: Any, token: str) -> None:
    # The model APIs' streamed completions: the caller reads the events as
    # they come, for as long as they come; the deadline bounded the attempt
    # (the status and headers), not the caller's reading.
    url = f"{server.url}/trickle/{token}?secs=2&type=text/event-stream"
    transport = stoic.httpx.RetryTransport(timeouts={"total": 1})
    with httpx.Client(transport=transport) as client, client.stream("GET", url) as response:
        assert response.status_code == 200
        assert response.read() == b"x" * 60
