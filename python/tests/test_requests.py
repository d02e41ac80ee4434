"""The requests adapter against a real local server (tests/server.py): the
same semantics as the httpx transports, from the same shared half."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
import requests

import stoic
from stoic.requests import RetryAdapter

FAST = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}


def session(**config: Any) -> requests.Session:
    s = requests.Session()
    adapter = RetryAdapter(**{**FAST, **config})
    s.mount("http://", adapter)
    s.mount("https://", adapter)
    return s


def test_503_then_200(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    with session() as s:
        response = s.get(f"{server.url}/status/{token}?n=2&code=503")
    assert response.status_code == 200
    assert response.text == "ok"
    assert response.stoic is None  # type: ignore[attr-defined]  # a success: no decision to keep
    assert len(server.seen[token]) == 3
    assert clock.sleeps == [0.01, 0.02]


def test_429_retry_after_is_honoured(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    with session() as s:
        response = s.get(f"{server.url}/retry-after/{token}?n=1&after=2")
    assert response.status_code == 200
    assert clock.sleeps == [2.0]


def test_retry_after_past_the_deadline_returns_the_response(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session(timeouts={"total": 5}) as s:
        response = s.get(f"{server.url}/retry-after/{token}?n=1&after=60")
    assert response.status_code == 429
    assert response.stoic["reason"] == "retry_after_exceeds_deadline"  # type: ignore[attr-defined]
    assert clock.sleeps == []


def test_the_automatic_key_alone_does_not_repeat_a_post(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # Most servers ignore Idempotency-Key: a reset after the POST was sent
    # may follow a committed order, so it is not sent again.
    with session() as s, pytest.raises(requests.ConnectionError) as info:
        s.post(f"{server.url}/reset/{token}?n=2", json={"amount": 10})
    assert [m for m, _ in server.seen[token]] == ["POST"]
    assert server.seen[token][0][1] is not None  # the key is still sent
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "server is known to honour" in notes


def test_a_post_500_is_not_repeated_without_a_key(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session() as s:
        response = s.post(f"{server.url}/status/{token}?n=1&code=500")
    assert response.status_code == 500
    assert response.stoic["reason"] == "not_idempotent"  # type: ignore[attr-defined]
    assert len(server.seen[token]) == 1


def test_one_key_for_every_retry_when_the_server_deduplicates(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session(server_deduplicates=True) as s:
        response = s.post(f"{server.url}/reset/{token}?n=2", json={"amount": 10})
    assert response.status_code == 200
    seen = server.seen[token]
    assert [m for m, _ in seen] == ["POST"] * 3
    keys = {k for _, k in seen}
    assert len(keys) == 1
    assert None not in keys


def test_the_callers_key_is_kept_and_makes_a_post_safe(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session() as s:
        s.post(f"{server.url}/status/{token}?n=1", headers={"Idempotency-Key": "order-7"})
    assert [k for _, k in server.seen[token]] == ["order-7", "order-7"]


def test_a_get_is_not_given_a_key(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    with session() as s:
        s.get(f"{server.url}/status/{token}?n=1")
    assert [k for _, k in server.seen[token]] == [None, None]


def test_resets_exhaust_into_retry_error(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session(max_attempts=2) as s, pytest.raises(stoic.RetryError) as info:
        s.get(f"{server.url}/reset/{token}?n=-1")
    assert info.value.reason == "attempts_exhausted"
    assert info.value.attempts == 2
    assert isinstance(info.value.__cause__, requests.ConnectionError)


def test_a_hang_past_the_attempt_timeout_is_retried(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session(timeouts={"read": 0.2, "connect": 0.2}) as s:
        response = s.get(f"{server.url}/hang/{token}?n=1&secs=1")
    assert response.status_code == 200
    assert len(server.seen[token]) == 2
    assert len(clock.sleeps) == 1


def test_the_callers_own_timeout_is_never_loosened(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # The engine's read timeout is 30 s by default; the caller's 0.2 s wins.
    with session() as s:
        response = s.get(f"{server.url}/hang/{token}?n=1&secs=1", timeout=0.2)
    assert response.status_code == 200
    assert len(server.seen[token]) == 2


def test_validate_rejects_a_200_with_an_error_body(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    def validate(response: requests.Response) -> object:
        return "error" not in response.json()

    with session(validate=validate) as s:
        response = s.get(f"{server.url}/error-body/{token}?n=2")
    assert response.json() == {"ok": True}
    assert len(server.seen[token]) == 3


def test_a_404_is_returned_with_an_observation(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session() as s:
        response = s.get(f"{server.url}/status/{token}?n=-1&code=404&body=no+such+order")
    assert response.status_code == 404
    decision = response.stoic  # type: ignore[attr-defined]
    assert decision["reason"] == "not_retryable"
    assert "no such order" in decision["observation"]
    assert len(server.seen[token]) == 1


def test_adapters_share_a_policys_breaker(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    policy = stoic.Policy(
        max_attempts=1,
        breaker={"trip": {"kind": "consecutive_failures", "threshold": 2}},
        budget={"ratio": None},
    )
    with requests.Session() as s:
        s.mount("http://", RetryAdapter(policy=policy))
        for _ in range(2):
            assert s.get(f"{server.url}/status/{token}?n=-1").status_code == 503
        with pytest.raises(stoic.RetryError) as info:
            s.get(f"{server.url}/status/{token}?n=-1")
    assert info.value.reason == "circuit_open"
    assert len(server.seen[token]) == 2


def test_a_body_cut_off_mid_read_is_retried_for_a_get(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # The body is read inside the attempt: the cut is that attempt's failure.
    with session() as s:
        response = s.get(f"{server.url}/cut/{token}?n=1")
    assert response.status_code == 200
    assert response.text == "ok"
    assert len(server.seen[token]) == 2
    assert len(clock.sleeps) == 1


def test_a_cut_body_on_a_post_is_not_repeated(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session() as s, pytest.raises(requests.exceptions.ChunkedEncodingError):
        s.post(f"{server.url}/cut/{token}?n=1")
    assert len(server.seen[token]) == 1


def test_streaming_returns_the_response_unread(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    with session() as s:
        response = s.get(f"{server.url}/status/{token}?n=0", stream=True)
        assert response.status_code == 200
        assert not response._content_consumed  # type: ignore[attr-defined]
        assert response.raw.read() == b"ok"


def test_a_streamed_request_body_is_sent_whole_on_every_attempt(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"amount": '
        yield b"10}"

    with session() as s:
        # A PUT is idempotent: retried, with the whole body each time.
        response = s.put(f"{server.url}/status/{token}?n=1", data=chunks())
        assert response.status_code == 200
        response = s.put(f"{server.url}/status/{token}x?n=1", data=io.BytesIO(b"file body"))
        assert response.status_code == 200
    assert [m for m, _ in server.seen[token]] == ["PUT", "PUT"]
    assert server.bodies[token] == [b'{"amount": 10}'] * 2
    assert server.bodies[f"{token}x"] == [b"file body"] * 2


def test_options_are_checked_when_the_adapter_is_built() -> None:
    with pytest.raises(TypeError, match=r"did you mean 'server_deduplicates'"):
        RetryAdapter(server_deduplicate=True)
    with pytest.raises(TypeError, match="keys= must be a bool"):
        RetryAdapter(keys="no")  # type: ignore[arg-type]
    with pytest.raises(stoic.ConfigError, match="max_attempts"):
        RetryAdapter(max_attempts=0)
