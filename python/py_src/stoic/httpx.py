"""httpx transports that retry as the engine decides.

::

    client = httpx.Client(transport=stoic.httpx.RetryTransport(max_attempts=4))
    async_client = httpx.AsyncClient(transport=stoic.httpx.AsyncRetryTransport())

Each request is one call, scoped by host (calls to one host share a
breaker, a retry budget and metrics); the core's HTTP plan names it and
says whether it is safe to repeat. Non-idempotent requests (POST, PATCH)
get an ``Idempotency-Key`` header, the same on every retry (``keys=False``
turns that off); a key the caller set is kept.

**Safety rule:** a request that may have been applied is repeated only when
the caller set the key header or declared ``server_deduplicates=True``; the
automatic key alone never makes a POST safe to repeat, so after a lost
acknowledgement, a timeout or a 500/502/504 it is not sent again.

``Retry-After`` and the other server hints set the wait; every attempt runs
under the engine's per-attempt timeout, inside the call's total deadline.
The body is read inside the attempt, so a body cut off mid-read is that
attempt's failure (retried when the request is safe to repeat);
``stream=True`` returns responses unread, for streaming. ``validate=`` sees
each 2xx response (body read) and may reject a 200 with an error body
(return ``False`` or a ``stoic.Rejected``).

When the engine stops, the last response is returned as it is (its
``extensions["stoic"]`` holds the decision, with its observation); when
there is no response (network failures, an open breaker), ``RetryError``
is raised from the last exception. When a retry the engine planned is
refused before it starts (the breaker opened, the deadline ran out), the
``RetryError``'s ``last_result`` is the last response (closed, body read).

The loop is the one the decorator runs (``_executors.py``): the
transport adds the plan of the request, httpx's own timeouts per attempt,
and the judging of responses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from ._classify import classify_result
from ._clock import Clock
from ._executors import async_loop, sync_loop
from ._runtime import Settings, report, wrong_type
from ._stoic import (
    Call,
    Policy,
    host_policy,
    http_plan,
    key_header_value,
    parse_key_header,
    random_key,
    validates_status,
    wants_excerpt,
)

_HOST = host_policy()

__all__ = ["AsyncRetryTransport", "RetryTransport"]


class _Base:
    """What the sync and async transports share."""

    def __init__(
        self,
        *,
        policy: Policy | None,
        validate: Callable[[httpx.Response], object] | None,
        key_header: str,
        key_form: str,
        keys: bool,
        server_deduplicates: bool,
        stream: bool,
        reraise: bool,
        clock: Clock | None,
        records: Any,
        config: dict[str, Any],
    ) -> None:
        _check_options(
            keys=keys, server_deduplicates=server_deduplicates, stream=stream, key_header=key_header
        )
        if key_form not in ("bare", "quoted"):
            raise TypeError(f'key_form= must be "bare" or "quoted", not {key_form!r}')
        self._settings = Settings(
            policy=policy,
            config=config,
            records=records,
            operation="",
            scope="",
            idempotent=None,
            key=None,
            on=(),
            classify=None,
            validate=validate,
            reraise=reraise,
            clock=clock,
            caller=type(self).__name__,
            signature=type(self).__init__,
            judge=self._judge,
            discard=httpx.Response.close,
            adiscard=httpx.Response.aclose,
            # httpx enforces the per-attempt timeouts itself (``_limit``).
            limit=self._limit,
            preempt=False,
        )
        self._key_header = key_header
        self._key_form = key_form
        self._keys = keys
        self._server_deduplicates = server_deduplicates
        self._stream = stream
        self._excerpt = int(self._settings.policy.config["observation"]["max_excerpt_chars"])

    @property
    def policy(self) -> Policy:
        """The policy whose breakers and budgets this transport uses."""
        return self._settings.policy

    def _start(self, clock: Clock, request: httpx.Request) -> Call:
        """Plans the request (operation, scope, safety, key) and starts and
        admits its call."""
        existing = request.headers.get(self._key_header)
        key = parse_key_header(existing) if existing is not None else None
        url = request.url
        host = url.host if url.port is None else f"{url.host}:{url.port}"
        operation, scope, safe, auto_key, trust_key = http_plan(
            request.method,
            host,
            url.path,
            caller_key=key,
            server_deduplicates=self._server_deduplicates,
            auto_keys=self._keys,
        )
        if auto_key:
            key = random_key()
            request.headers[self._key_header] = key_header_value(key, self._key_form)
        call = self._settings.policy.start(
            clock.monotonic(),
            operation,
            scope=scope,
            idempotent=safe,
            key=key if trust_key else None,
            overrides=self._settings.overrides,
        )
        call.admit(clock.monotonic())
        return call

    @staticmethod
    def _limit(call: Call, args: tuple[Any, ...]) -> None:
        """Applies the engine's per-attempt timeouts to the request (never
        loosening the caller's own)."""
        request: httpx.Request = args[0]
        read, connect = call.timeout, call.connect_timeout
        if read is None and connect is None:
            return
        current = dict(request.extensions.get("timeout") or {})

        def tighter(name: str, limit: float | None) -> None:
            if limit is None:
                return
            mine = current.get(name)
            current[name] = limit if mine is None else min(mine, limit)

        tighter("connect", connect)
        tighter("pool", connect)
        tighter("read", read)
        tighter("write", read)
        request.extensions["timeout"] = current

    def _verdict(self, response: httpx.Response) -> tuple[str, Any, Any] | None:
        validate = self._settings.validate
        if validate is None or not validates_status(response.status_code):
            return None
        return classify_result(validate(response), response)

    def _judge(
        self, call: Call, clock: Clock, _settings: Settings, response: httpx.Response
    ) -> float | None:
        """Reports a response; the delay, or None when the call is over
        (the response is returned, with the decision when it failed)."""
        verdict = self._verdict(response)
        if verdict is not None:
            delay = report(call, clock, verdict, verdict[2])
        else:
            detail = (
                response.text[: self._excerpt]
                if self._needs_body(response) and wants_excerpt(response.status_code)
                else None
            )
            delay = call.on_status(
                clock.monotonic(),
                response.status_code,
                response.headers.multi_items(),
                detail=detail,
                wall_now=clock.wall(),
            )
        if delay is None and not call.succeeded:
            response.extensions["stoic"] = call.decision
        return delay

    def _needs_body(self, response: httpx.Response) -> bool:
        # Read inside the attempt unless streaming; when streaming, still for
        # the validator and for the excerpt an error observation quotes.
        status = response.status_code
        if not self._stream:
            return True
        return wants_excerpt(status) or (
            self._settings.validate is not None and validates_status(status)
        )


_WRONG_CLIENT_SYNC = (
    "RetryTransport is for httpx.Client; give httpx.AsyncClient an AsyncRetryTransport"
)
_WRONG_CLIENT_ASYNC = (
    "AsyncRetryTransport is for httpx.AsyncClient; give httpx.Client a RetryTransport"
)


def _check_options(**given: Any) -> None:
    """Refuses a wrong option when the transport is built, naming it."""
    for name, value in given.items():
        expected = str if name == "key_header" else bool
        if not isinstance(value, expected):
            raise wrong_type(name, f"a {expected.__name__}", value)


def _check_inner(transport: object, expected: type, advice: str) -> None:
    if not isinstance(transport, expected):
        raise TypeError(
            f"transport must be an httpx.{expected.__name__}, not {type(transport).__name__}"
            f" ({advice})"
        )


class RetryTransport(_Base, httpx.BaseTransport):
    """A retrying ``httpx.BaseTransport`` around ``transport`` (default
    ``httpx.HTTPTransport()``). Config keywords build a private policy;
    ``policy=`` shares one."""

    def __init__(
        self,
        transport: httpx.BaseTransport | None = None,
        *,
        policy: Policy | None = None,
        validate: Callable[[httpx.Response], object] | None = None,
        key_header: str = _HOST["key_header"],
        key_form: str = _HOST["key_form"],
        keys: bool = True,
        server_deduplicates: bool = False,
        stream: bool = False,
        reraise: bool = False,
        clock: Clock | None = None,
        records: Any = None,
        **config: Any,
    ) -> None:
        super().__init__(
            policy=policy,
            validate=validate,
            key_header=key_header,
            key_form=key_form,
            keys=keys,
            server_deduplicates=server_deduplicates,
            stream=stream,
            reraise=reraise,
            clock=clock,
            records=records,
            config=config,
        )
        if transport is not None:
            _check_inner(transport, httpx.BaseTransport, "async ones go in AsyncRetryTransport")
        self._inner = transport if transport is not None else httpx.HTTPTransport()
        self._run = sync_loop(self._settings, self._send, "", start=self._start)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()  # a retry re-sends the body
        response: httpx.Response = self._run(request)
        return response

    def _send(self, request: httpx.Request) -> httpx.Response:
        """One attempt: the request, and its body unless streaming."""
        response = self._inner.handle_request(request)
        # The body is part of the attempt: a body cut off mid-read is this
        # attempt's failure, not the caller's.
        if self._needs_body(response):
            try:
                response.read()
            except BaseException:
                response.close()
                raise
        return response

    def close(self) -> None:
        self._inner.close()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Not for ``httpx.AsyncClient``: says which transport is."""
        raise TypeError(_WRONG_CLIENT_SYNC)

    async def __aenter__(self) -> RetryTransport:
        raise TypeError(_WRONG_CLIENT_SYNC)


class AsyncRetryTransport(_Base, httpx.AsyncBaseTransport):
    """The asyncio (and trio) twin of ``RetryTransport``, around
    ``httpx.AsyncHTTPTransport()`` by default."""

    def __init__(
        self,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        policy: Policy | None = None,
        validate: Callable[[httpx.Response], object] | None = None,
        key_header: str = _HOST["key_header"],
        key_form: str = _HOST["key_form"],
        keys: bool = True,
        server_deduplicates: bool = False,
        stream: bool = False,
        reraise: bool = False,
        clock: Clock | None = None,
        records: Any = None,
        **config: Any,
    ) -> None:
        super().__init__(
            policy=policy,
            validate=validate,
            key_header=key_header,
            key_form=key_form,
            keys=keys,
            server_deduplicates=server_deduplicates,
            stream=stream,
            reraise=reraise,
            clock=clock,
            records=records,
            config=config,
        )
        if transport is not None:
            _check_inner(transport, httpx.AsyncBaseTransport, "sync ones go in RetryTransport")
        self._inner = transport if transport is not None else httpx.AsyncHTTPTransport()
        self._run = async_loop(self._settings, self._send, "", start=self._start)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        response: httpx.Response = await self._run(request)
        return response

    async def _send(self, request: httpx.Request) -> httpx.Response:
        """One attempt: the request, and its body unless streaming."""
        response = await self._inner.handle_async_request(request)
        if self._needs_body(response):
            try:
                await response.aread()
            except BaseException:
                await response.aclose()
                raise
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Not for ``httpx.Client``: says which transport is."""
        raise TypeError(_WRONG_CLIENT_ASYNC)

    def __enter__(self) -> AsyncRetryTransport:
        raise TypeError(_WRONG_CLIENT_ASYNC)
