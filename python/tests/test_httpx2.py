"""httpx2 and httpcore2 (what the OpenAI and Anthropic SDKs run on) against
a real local server: their exceptions mean what httpx's and httpcore's do.

The transports' behaviour (503s, ``Retry-After``, the safety rule, the key,
asyncio) is ``test_httpx.py``'s, run for httpx and httpx2 alike; the SDKs
on top are ``test_model_sdks.py``'s.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import httpcore2
import httpx
import httpx2
import pytest

import stoic
import stoic.httpx2


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def with_httpx2(url: str) -> object:
    return httpx2.get(url, timeout=0.2).raise_for_status()


def with_httpcore2(url: str) -> object:
    timeouts = {"connect": 0.2, "read": 0.2}
    with httpcore2.ConnectionPool() as pool:
        return pool.request("GET", url, extensions={"timeout": timeouts}).read()


@pytest.mark.parametrize("send", [with_httpx2, with_httpcore2])
@pytest.mark.parametrize(
    ("path", "matched", "cls"),
    [
        ("refused", "network_connect_refused", "transient"),
        ("/hang/{t}?n=-1&secs=1", "network_read_timeout", "ambiguous"),
        ("/cut/{t}?n=-1", "network_reset_after_send", "ambiguous"),
    ],
)
def test_network_errors_are_classified_as_httpx_ones_are(
    send: Callable[[str], object],
    path: str,
    matched: str,
    cls: str,
    server: Any,
    token: str,
    clock: stoic.VirtualClock,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/" if path == "refused" else server.url + path
    with pytest.raises(stoic.RetryError) as info:
        stoic.retry(max_attempts=2)(send)(url.format(t=token))
    assert info.value.reason == "attempts_exhausted"
    assert (info.value.decision["matched"], info.value.decision["class"]) == (matched, cls)
    if path != "refused":
        assert len(server.seen[token]) == 2


def test_a_status_error_is_its_status_with_its_retry_after(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # httpx2.HTTPStatusError, as httpx's: the status and its Retry-After.
    retried = stoic.retry(max_attempts=2)(with_httpx2)
    retried(f"{server.url}/retry-after/{token}?n=1&after=3")
    assert clock.sleeps == [3.0]
    assert len(server.seen[token]) == 2


def test_an_httpx_transport_is_refused_inside_the_httpx2_one() -> None:
    with pytest.raises(TypeError, match=r"must be an httpx2\.BaseTransport, not HTTPTransport"):
        stoic.httpx2.RetryTransport(transport=httpx.HTTPTransport())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"httpx2\.AsyncBaseTransport, not AsyncHTTPTransport"):
        stoic.httpx2.AsyncRetryTransport(transport=httpx.AsyncHTTPTransport())  # type: ignore[arg-type]
