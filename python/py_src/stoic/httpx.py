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

from ._clock import Clock
from ._executors import async_loop, sync_loop
from ._http import HOST, HttpCalls, tighter
from ._runtime import Hook
from ._stoic import Call, Policy

__all__ = ["AsyncRetryTransport", "RetryTransport"]


class _Base(HttpCalls):
    """What the sync and async transports share: httpx's requests and
    responses read for the shared HTTP half (``_http.py``)."""

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
        on_retry: Hook | None,
        on_give_up: Hook | None,
    ) -> None:
        super().__init__(
            policy=policy,
            validate=validate,
            key_header=key_header,
            key_form=key_form,
            keys=keys,
            server_deduplicates=server_deduplicates,
            reraise=reraise,
            clock=clock,
            records=records,
            config=config,
            discard=httpx.Response.close,
            adiscard=httpx.Response.aclose,
            # httpx enforces the per-attempt timeouts itself (``_limit``).
            limit=self._limit,
            on_retry=on_retry,
            on_give_up=on_give_up,
            stream=stream,
        )
        self._stream = stream

    def _start(self, clock: Clock, request: httpx.Request) -> Call:
        """Plans the request and starts and admits its call."""
        url = request.url
        host = url.host if url.port is None else f"{url.host}:{url.port}"
        return self._plan(clock, request.method, host, url.path, request.headers)

    @staticmethod
    def _limit(call: Call, args: tuple[Any, ...]) -> None:
        """Applies the engine's per-attempt timeouts to the request (never
        loosening the caller's own)."""
        request: httpx.Request = args[0]
        read, connect = call.timeout, call.connect_timeout
        if read is None and connect is None:
            return
        current = dict(request.extensions.get("timeout") or {})
        limits = {"connect": connect, "pool": connect, "read": read, "write": read}
        for name, limit in limits.items():
            if limit is not None:
                current[name] = tighter(current.get(name), limit)
        request.extensions["timeout"] = current

    def _status_of(self, response: httpx.Response) -> int:
        return response.status_code

    def _headers_of(self, response: httpx.Response) -> list[tuple[str, str]]:
        return response.headers.multi_items()

    def _text_of(self, response: httpx.Response) -> str:
        return response.text

    def _attach(self, response: httpx.Response, decision: dict[str, Any] | None) -> None:
        response.extensions["stoic"] = decision

    def _reads(self, response: httpx.Response) -> bool:
        """Whether this attempt reads the response's body."""
        return self._needs_body(response.status_code, self._stream)


_WRONG_CLIENT_SYNC = (
    "RetryTransport is for httpx.Client; give httpx.AsyncClient an AsyncRetryTransport"
)
_WRONG_CLIENT_ASYNC = (
    "AsyncRetryTransport is for httpx.AsyncClient; give httpx.Client a RetryTransport"
)


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
        key_header: str = HOST["key_header"],
        key_form: str = HOST["key_form"],
        keys: bool = True,
        server_deduplicates: bool = False,
        stream: bool = False,
        reraise: bool = False,
        clock: Clock | None = None,
        records: Any = None,
        on_retry: Hook | None = None,
        on_give_up: Hook | None = None,
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
            on_retry=on_retry,
            on_give_up=on_give_up,
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
        if self._reads(response):
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
        key_header: str = HOST["key_header"],
        key_form: str = HOST["key_form"],
        keys: bool = True,
        server_deduplicates: bool = False,
        stream: bool = False,
        reraise: bool = False,
        clock: Clock | None = None,
        records: Any = None,
        on_retry: Hook | None = None,
        on_give_up: Hook | None = None,
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
            on_retry=on_retry,
            on_give_up=on_give_up,
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
        if self._reads(response):
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
