"""The OpenAI and Anthropic SDKs over stoic's httpx2 transport, against a
local model API that does not cooperate (``server.py``'s ``/model/``).

The recipe: the SDK's own retries off (``max_retries=0``) and stoic's
transport as its ``http_client``, so each SDK call is one stoic call:

    openai.OpenAI(max_retries=0, http_client=httpx2.Client(transport=stoic.httpx2.RetryTransport()))

What is asserted is what the **server** counted, against stoic's attempts.
Neither SDK sends an idempotency key on these calls (``x-stainless-retry-count``
is all they add per attempt): stoic's automatic ``Idempotency-Key`` is the
one key of a call, and a key the caller sets (``extra_headers=``) is kept.

Around the SDK instead (``@stoic.retry`` on a function that makes the SDK
call, the SDK's retries off): its errors are read as what they stand for,
an ``APIStatusError`` as the HTTP answer it carries (status and headers), an
``APIConnectionError`` or ``APITimeoutError`` by the httpx2 error it wraps.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import anthropic
import httpx2
import openai
import pytest

import stoic
import stoic.httpx2
from server import DROP
from stoic._classify import classify_exception

MESSAGES = [{"role": "user", "content": "hi"}]


def storm() -> Any:
    """503s without end, each with a small hinted wait (the SDKs' own waits
    are real ones)."""
    return itertools.repeat((503, {"retry-after-ms": "1"}))


@dataclass(frozen=True)
class Sdk:
    """One SDK: its module, its client's name, and the path its ``base_url``
    adds to the API's root (OpenAI's includes ``/v1``, Anthropic's does not)."""

    module: ModuleType
    client_name: str
    path: str

    def client(
        self, root: str, http_client: Any = None, *, asynchronous: bool = False, **options: Any
    ) -> Any:
        cls = getattr(self.module, ("Async" if asynchronous else "") + self.client_name)
        return cls(base_url=root + self.path, api_key="test", http_client=http_client, **options)

    def recipe(self, root: str, **transport: Any) -> Any:
        """The SDK's retries off, stoic's transport under it."""
        http_client = httpx2.Client(transport=stoic.httpx2.RetryTransport(**transport))
        return self.client(root, http_client, max_retries=0)

    def ask(self, client: Any, **extra: Any) -> Any:
        """One logical call (a coroutine for an async client)."""
        if self.module is openai:
            return client.chat.completions.create(model="gpt-test", messages=MESSAGES, **extra)
        return client.messages.create(
            model="claude-test", max_tokens=16, messages=MESSAGES, **extra
        )


OPENAI = Sdk(openai, "OpenAI", "/v1")
ANTHROPIC = Sdk(anthropic, "Anthropic", "")


@pytest.fixture(params=[OPENAI, ANTHROPIC], ids=["openai", "anthropic"])
def sdk(request: pytest.FixtureRequest) -> Sdk:
    given: Sdk = request.param
    return given


def test_a_503_storm_ends_with_the_sdk_s_typed_error_after_stoic_s_attempts(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, storm())
    with sdk.recipe(root) as client, pytest.raises(sdk.module.InternalServerError) as info:
        sdk.ask(client)
    assert info.value.status_code == 503
    decision = info.value.response.extensions["stoic"]
    assert decision["reason"] == "attempts_exhausted"
    assert len(server.seen[token]) == decision["attempts"] == 5


def test_one_call_keeps_one_key_across_stoic_s_retries(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [(503, {}), (503, {})])
    with sdk.recipe(root) as client:
        sdk.ask(client)
    assert len(server.seen[token]) == 3 == len(clock.sleeps) + 1
    keys = {key for _, key in server.seen[token]}
    assert len(keys) == 1
    assert None not in keys  # stoic's: the SDKs send none
    # The SDK made one attempt: stoic made the retries.
    assert [h["x-stainless-retry-count"] for h in server.headers[token]] == ["0"] * 3


@pytest.mark.parametrize(
    ("header", "value", "wait"), [("retry-after-ms", "50", 0.05), ("Retry-After", "2", 2.0)]
)
def test_a_429_is_retried_after_the_server_s_wait(
    sdk: Sdk,
    header: str,
    value: str,
    wait: float,
    server: Any,
    token: str,
    clock: stoic.VirtualClock,
) -> None:
    root = server.script(token, [(429, {header: value})])
    with sdk.recipe(root) as client:
        sdk.ask(client)
    assert clock.sleeps == [wait]
    assert len(server.seen[token]) == 2


def test_a_404_is_sent_once_and_raises_not_found(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [(404, {})])
    with sdk.recipe(root) as client, pytest.raises(sdk.module.NotFoundError) as info:
        sdk.ask(client)
    assert info.value.response.extensions["stoic"]["reason"] == "not_retryable"
    assert len(server.seen[token]) == 1


def test_x_should_retry_false_on_a_503_is_obeyed(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # What both SDKs obey (their _should_retry): the server says this 503 is
    # not worth repeating.
    root = server.script(token, itertools.repeat((503, {"x-should-retry": "false"})))
    with sdk.recipe(root) as client, pytest.raises(sdk.module.InternalServerError):
        sdk.ask(client)
    assert len(server.seen[token]) == 1


def test_a_dropped_connection_is_not_repeated_without_a_key_the_server_honours(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # The request was read: the model may be running it. stoic's automatic
    # key alone does not make it safe to send again.
    root = server.script(token, [DROP])
    with sdk.recipe(root) as client, pytest.raises(sdk.module.APIConnectionError) as info:
        sdk.ask(client)
    assert len(server.seen[token]) == 1
    cause = info.value.__cause__
    assert isinstance(cause, httpx2.ReadError)
    assert "it was not repeated" in "".join(getattr(cause, "__notes__", []))


def test_a_caller_s_key_is_kept_and_lets_stoic_repeat_after_a_drop(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [DROP])
    with sdk.recipe(root) as client:
        sdk.ask(client, extra_headers={"Idempotency-Key": "chat-7"})
    assert [key for _, key in server.seen[token]] == ["chat-7", "chat-7"]


def test_anthropic_s_529_is_retried_and_ends_as_its_overloaded_error(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    sdk = ANTHROPIC
    root = server.script(token, [(529, {})])
    with sdk.recipe(root) as client:
        sdk.ask(client)
    assert len(server.seen[token]) == 2
    root = server.script(f"{token}-storm", itertools.repeat((529, {})))
    with sdk.recipe(root) as client, pytest.raises(anthropic.OverloadedError) as info:
        sdk.ask(client)
    assert info.value.body["error"]["type"] == "overloaded_error"
    decision = info.value.response.extensions["stoic"]
    assert len(server.seen[f"{token}-storm"]) == decision["attempts"] == 5


def test_async_clients(sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock) -> None:
    root = server.script(token, [(503, {}), (429, {"retry-after-ms": "50"})])

    async def main() -> None:
        transport = stoic.httpx2.AsyncRetryTransport()
        http_client = httpx2.AsyncClient(transport=transport)
        async with sdk.client(root, http_client, asynchronous=True, max_retries=0) as client:
            await sdk.ask(client)

    asyncio.run(main())
    assert len(server.seen[token]) == 3
    assert len(clock.sleeps) == 2
    assert clock.sleeps[1] == 0.05
    assert len({key for _, key in server.seen[token]} - {None}) == 1


def test_without_a_response_to_return_the_caller_sees_retry_error_or_with_reraise_the_sdk_s(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # Drops to the end (retried: the server is declared to deduplicate).
    # stoic.RetryError is no httpx2.RequestError: OpenAI's SDK lets it
    # through, Anthropic's wraps it; reraise=True hands the SDK httpx2's own
    # exception, which each makes its APIConnectionError.
    root = server.script(token, itertools.repeat(DROP))
    with (
        sdk.recipe(root, server_deduplicates=True) as client,
        pytest.raises((stoic.RetryError, sdk.module.APIConnectionError)) as info,
    ):
        sdk.ask(client)
    error: BaseException | None = info.value
    if sdk.module is anthropic:
        assert isinstance(error, anthropic.APIConnectionError)
        error = error.__cause__
    assert isinstance(error, stoic.RetryError)
    assert error.reason == "attempts_exhausted"
    assert len(server.seen[token]) == 5
    with (
        sdk.recipe(root, server_deduplicates=True, reraise=True) as client,
        pytest.raises(sdk.module.APIConnectionError) as info,
    ):
        sdk.ask(client)
    assert isinstance(info.value.__cause__, httpx2.ReadError)
    assert len(server.seen[token]) == 10


def test_retries_multiply_unless_the_sdk_s_are_off(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    """One call under a 503 storm: what the server receives in each set-up
    (python/README.md quotes these numbers)."""

    def count(setup: str, **options: Any) -> tuple[int, BaseException]:
        root = server.script(f"{token}-{setup}", storm())
        errors = (stoic.RetryError, sdk.module.APIError)
        with sdk.client(root, **options) as client, pytest.raises(errors) as info:
            sdk.ask(client)
        return len(server.seen[f"{token}-{setup}"]), info.value

    def stoic_client(**config: Any) -> httpx2.Client:
        return httpx2.Client(transport=stoic.httpx2.RetryTransport(**config))

    # The SDK alone: 1 + max_retries=2.
    alone, error = count("alone")
    assert alone == 3
    assert isinstance(error, sdk.module.InternalServerError)
    # The SDK's retries on top of stoic's: each SDK attempt is a stoic call
    # of 5 attempts, with a key of its own.
    multiplied, error = count("both", http_client=stoic_client(breaker=None))
    assert multiplied == 15
    assert isinstance(error, sdk.module.InternalServerError)
    assert len({key for _, key in server.seen[f"{token}-both"]}) == 3
    # With stoic's default breaker, the first stoic call's 5 failures open it:
    # the SDK's retries are refused (circuit_open) and the caller gets that
    # instead of the SDK's typed error.
    broken, error = count("breaker", http_client=stoic_client())
    assert broken == 5
    refused = error.__cause__ if sdk.module is anthropic else error
    assert isinstance(refused, stoic.RetryError)
    assert refused.reason == "circuit_open"
    # The recipe: stoic's attempts, and the SDK's typed error.
    recipe, error = count("recipe", http_client=stoic_client(), max_retries=0)
    assert recipe == 5
    assert isinstance(error, sdk.module.InternalServerError)


# ---------------------------------------------------------------- @stoic.retry around an SDK call


def around(sdk: Sdk, client: Any, heard: list[stoic.RetryInfo], **options: Any) -> Any:
    """One SDK call under ``@stoic.retry`` (a private policy, no breaker),
    each retry's decision told to ``heard``."""

    @stoic.retry(breaker=None, on_retry=heard.append, **options)
    def ask() -> Any:
        return sdk.ask(client)

    return ask()


@pytest.mark.parametrize(
    ("header", "value", "wait", "source"),
    [("retry-after-ms", "30", 0.03, "retry_after_ms"), ("Retry-After", "2", 2.0, "retry_after")],
)
def test_stoic_retry_reads_the_sdk_s_429_as_status_429_with_its_wait(
    sdk: Sdk,
    header: str,
    value: str,
    wait: float,
    source: str,
    server: Any,
    token: str,
    clock: stoic.VirtualClock,
) -> None:
    root = server.script(token, [(429, {header: value})])
    heard: list[stoic.RetryInfo] = []
    with sdk.client(root, max_retries=0) as client:
        around(sdk, client, heard)
    [retried] = heard
    assert isinstance(retried.exception, sdk.module.RateLimitError)
    assert retried.decision["matched"] == "status_429"
    assert retried.decision["source"] == source
    assert retried.decision["delay"] == wait
    assert clock.sleeps == [wait]
    assert len(server.seen[token]) == 2


def test_stoic_retry_does_not_retry_the_sdk_s_404(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [(404, {})])
    heard: list[stoic.RetryInfo] = []
    with sdk.client(root, max_retries=0) as client, pytest.raises(sdk.module.NotFoundError) as info:
        around(sdk, client, heard)
    assert heard == []
    assert clock.sleeps == []
    assert len(server.seen[token]) == 1
    assert any("not transient" in note for note in getattr(info.value, "__notes__", []))


def test_stoic_retry_obeys_x_should_retry_false_on_the_sdk_s_503(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # A plain 503 is retried to the end; one the server refuses is sent once.
    root = server.script(token, storm())
    with sdk.client(root, max_retries=0) as client, pytest.raises(stoic.RetryError) as info:
        around(sdk, client, [], max_attempts=3)
    assert info.value.reason == "attempts_exhausted"
    assert len(server.seen[token]) == 3
    refused = f"{token}-refused"
    root = server.script(refused, itertools.repeat((503, {"x-should-retry": "false"})))
    with sdk.client(root, max_retries=0) as client, pytest.raises(stoic.RetryError) as info:
        around(sdk, client, [], max_attempts=3)
    assert info.value.reason == "server_refused_retry"
    assert isinstance(info.value.__cause__, sdk.module.InternalServerError)
    assert len(server.seen[refused]) == 1


def test_stoic_retry_keeps_its_classify_first(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [(429, {"retry-after-ms": "30"})])
    heard: list[stoic.RetryInfo] = []
    with sdk.client(root, max_retries=0) as client, pytest.raises(sdk.module.RateLimitError):
        around(sdk, client, heard, classify=lambda e: "deterministic")
    assert heard == []
    assert len(server.seen[token]) == 1


def test_stoic_retry_reads_the_sdk_s_connection_error_by_what_it_wraps(
    sdk: Sdk, server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # The connection dropped once the request was read: the SDK raises its
    # APIConnectionError from httpx2's error, which says the request was sent.
    root = server.script(token, [DROP])
    heard: list[stoic.RetryInfo] = []
    with sdk.client(root, max_retries=0) as client:
        around(sdk, client, heard)
    [retried] = heard
    assert type(retried.exception) is sdk.module.APIConnectionError
    assert isinstance(retried.exception.__cause__, httpx2.TransportError)
    assert retried.decision["matched"] == "network_reset_after_send"
    assert len(server.seen[token]) == 2


@pytest.fixture
def silent_root() -> Iterator[str]:
    """An API root whose server takes connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        host, port = listener.getsockname()[:2]
        yield f"http://{host}:{port}"


def test_stoic_retry_reads_the_sdk_s_timeout_as_a_read_timeout(
    sdk: Sdk, silent_root: str, clock: stoic.VirtualClock
) -> None:
    heard: list[stoic.RetryInfo] = []
    with (
        sdk.client(silent_root, max_retries=0, timeout=0.05) as client,
        pytest.raises(stoic.RetryError) as info,
    ):
        around(sdk, client, heard, max_attempts=2)
    error = info.value.__cause__
    assert isinstance(error, sdk.module.APITimeoutError)
    assert isinstance(error.__cause__, httpx2.ReadTimeout)
    assert classify_exception(error, (), None) == ("network", "read_timeout", None)
    assert [r.decision["matched"] for r in heard] == ["network_read_timeout"]
    assert info.value.reason == "attempts_exhausted"


def test_an_sdk_error_that_read_a_success_is_not_that_success() -> None:
    # openai's APIResponseValidationError carries the 200 it could not read:
    # the caller's own error, not an answer to retry or to count as a success.
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx2.Response(200, headers={"retry-after": "1"}, request=request)
    error = openai.APIResponseValidationError(response=response, body=None)
    assert classify_exception(error, (), None)[0] == "raised"
