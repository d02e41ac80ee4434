"""A request the client refuses before sending it (an unknown scheme, a
malformed URL) is ``refused_locally``: deterministic, sent never, tried
once, and the observation says why, in every HTTP library stoic reads.
A deterministic failure propagates as itself, the observation in its
notes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
import requests

import stoic
import stoic.httpx


def _aiohttp_get(url: str) -> Any:
    async def get() -> Any:
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            return response.status

    return asyncio.run(get())


#: Each library's request, and the errors its refusal may be raised as.
CLIENTS: dict[str, tuple[Callable[[str], Any], tuple[type[Exception], ...]]] = {
    "requests": (requests.get, (requests.RequestException,)),
    "httpx": (httpx.get, (httpx.HTTPError, httpx.InvalidURL)),
    "httpx2": (httpx2.get, (httpx2.HTTPError, httpx2.InvalidURL)),
    "aiohttp": (_aiohttp_get, (aiohttp.ClientError,)),
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("url", ["gopher://127.0.0.1/orders", "http://"])
def test_a_request_the_client_refuses_is_tried_once_and_says_why(client: str, url: str) -> None:
    calls = 0

    @stoic.retry(policy=stoic.Policy(seed=1))
    def fetch() -> Any:
        nonlocal calls
        calls += 1
        return CLIENTS[client][0](url)

    with pytest.raises(CLIENTS[client][1]) as info:
        fetch()
    assert calls == 1, "no wait changes a refusal"
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "the client refused the request before sending it" in notes, notes
    assert "not transient" in notes


def test_the_httpx_transport_tries_an_unknown_scheme_once() -> None:
    transport = stoic.httpx.RetryTransport()
    with (
        httpx.Client(transport=transport) as client,
        pytest.raises(httpx.UnsupportedProtocol) as info,
    ):
        client.get("gopher://127.0.0.1/orders")
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "the client refused the request before sending it" in notes, notes
