"""The httpx transports, once, for every library of the httpx family.

``httpx`` and ``httpx2`` (what the OpenAI and Anthropic SDKs take) have the
same API under two module names: ``stoic.httpx`` and ``stoic.httpx2`` are
thin classes that name their library (``_lib``) and its types; everything
they do is here.

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
The body is read inside the attempt, and the total deadline covers reading
it (``_BodyWithin``): a body cut off mid-read, by the connection or by the
deadline, is that attempt's failure, a ``body_cut`` (retried when the
request is safe to repeat; the ``RetryError`` keeps the response);
``stream=True`` returns responses unread, for streaming, and a stream of
events (``text/event-stream``) is always passed on unread. ``validate=`` sees
each 2xx response (body read) and may reject a 200 with an error body
(return ``False`` or a ``stoic.Rejected``).

When the engine stops, the last response is returned as it is (its
``extensions["stoic"]`` holds the decision, with its observation); when
there is no response (network failures, an open breaker), ``RetryError``
is raised from the last exception. When a retry the engine planned is
refused before it starts (the breaker opened, the deadline ran out), the
``RetryError``'s ``last_result`` is the last response (closed, body read).

The loop is the one the decorator runs (``_executors.py``): the
transport adds the plan of the request, the library's own timeouts per
attempt, and the judging of responses.
"""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, ClassVar, Generic, NoReturn, TypeVar

from ._classify import HOST, is_network, mark_cut
from ._clock import Clock
from ._executors import async_loop, sync_loop
from ._hedging import hedging_config, refuse_sync, run_hedged
from ._http import LATE_BODY, HttpCalls, deadline_of, tighter, time_left
from ._runtime import Hook
from ._stoic import Call, HedgedCall, HedgingConfig, Policy
from .testing import runtime

__all__ = ["AsyncTransport", "SyncTransport"]

# The library's own classes, read through the API httpx and httpx2 share.
InnerT = TypeVar("InnerT", bound=Any)
RequestT = TypeVar("RequestT", bound=Any)
ResponseT = TypeVar("ResponseT", bound=Any)


class _Attempt:
    """One request through the transport, and when its call's total
    deadline passes (``time.monotonic()``; None: no total deadline), set
    as each attempt starts."""

    __slots__ = ("call", "deadline", "request")

    def __init__(self, request: Any, call: Call | None = None) -> None:
        self.request = request
        self.deadline: float | None = None
        #: The call already planned for it (a request ``hedging=`` found
        #: unsafe to repeat), taken by ``_start`` instead of planning again.
        self.call = call


@functools.cache
def _bounded_streams(lib: ModuleType) -> tuple[type[Any], type[Any]]:
    """The library's byte streams, bounded by a deadline: a body that keeps
    arriving too slowly for it (a byte at a time, each read within the read
    timeout) is cut at the first piece past the deadline. The library's own
    base classes, which ``Response.read()`` insists on."""

    class Sync(lib.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, deadline: float, request: Any) -> None:
            self.inner, self.deadline, self.request = inner, deadline, request

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self.inner:
                if time.monotonic() > self.deadline:
                    raise lib.ReadTimeout(LATE_BODY, request=self.request)
                yield chunk

        def close(self) -> None:
            self.inner.close()

    class Async(lib.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, deadline: float, request: Any) -> None:
            self.inner, self.deadline, self.request = inner, deadline, request

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self.inner:
                if time.monotonic() > self.deadline:
                    raise lib.ReadTimeout(LATE_BODY, request=self.request)
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    return Sync, Async


def _tighten_read(request: Any, deadline: float) -> None:
    """The body's reads wait no longer than the time left: a body that
    stalls ends at the deadline, not a whole read timeout later. A new
    dict, read by the connection as the body starts."""
    timeouts = request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        left = time_left(deadline)
        request.extensions["timeout"] = {**timeouts, "read": tighter(timeouts.get("read"), left)}


class _Transport(HttpCalls, Generic[InnerT, RequestT, ResponseT]):
    """What the sync and async transports share: the options, the inner
    transport, and the library's requests and responses read for the
    shared HTTP half (``_http.py``)."""

    #: The library of the httpx family (``httpx``, ``httpx2``), named by the
    #: public classes (``class RetryTransport(..., lib=httpx)``).
    _lib: ClassVar[ModuleType]
    #: The library's class the inner transport must be, and its default.
    _inner_names: ClassVar[tuple[str, str]]
    #: Where the other kind of inner transport goes.
    _advice: ClassVar[str]
    #: Why this transport refuses the other kind of client ({lib}: the library).
    _wrong_client: ClassVar[str]
    #: Whether it can hedge (cancel a losing copy): only the async one.
    _hedges: ClassVar[bool] = False

    def __init_subclass__(cls, lib: ModuleType | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if lib is not None:
            cls._lib = lib

    def __init__(
        self,
        transport: InnerT | None = None,
        *,
        policy: Policy | None = None,
        validate: Callable[[ResponseT], object] | None = None,
        key_header: str = HOST["key_header"],
        key_form: str = HOST["key_form"],
        keys: bool = HOST["http_defaults"]["keys"],
        server_deduplicates: bool = HOST["http_defaults"]["server_deduplicates"],
        stream: bool = False,
        reraise: bool = False,
        clock: Clock | None = None,
        records: Any = None,
        on_retry: Hook | None = None,
        on_give_up: Hook | None = None,
        hedging: Mapping[str, Any] | HedgingConfig | None = None,
        **config: Any,
    ) -> None:
        lib = self._lib
        self._hedging = hedging_config(hedging)
        if self._hedging is not None and not self._hedges:
            raise refuse_sync(type(self).__name__)
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
            discard=lib.Response.close,
            adiscard=lib.Response.aclose,
            # The library enforces the per-attempt timeouts itself (``_limit``).
            limit=self._limit,
            on_retry=on_retry,
            on_give_up=on_give_up,
            stream=stream,
        )
        self._stream = stream
        expected, default = (getattr(lib, name) for name in self._inner_names)
        if transport is not None and not isinstance(transport, expected):
            raise TypeError(
                f"transport must be an {lib.__name__}.{expected.__name__},"
                f" not {type(transport).__name__} ({self._advice})"
            )
        self._inner: InnerT = transport if transport is not None else default()
        self._run = self._loop()

    def _loop(self) -> Callable[..., Any]:
        """The function that runs one request's attempts as one call."""
        raise NotImplementedError

    def _refuse(self) -> NoReturn:
        """Says which transport the other kind of client takes."""
        raise TypeError(self._wrong_client.format(lib=self._lib.__name__))

    def _start(self, clock: Clock, attempt: _Attempt) -> Call:
        """Plans the request and starts and admits its call (or takes the
        one planned already)."""
        if attempt.call is not None:
            call, attempt.call = attempt.call, None
            return call
        request = attempt.request
        url = request.url
        host = url.host if url.port is None else f"{url.host}:{url.port}"
        return self._plan(clock, request.method, host, url.path, request.headers)

    def _start_hedged(self, clock: Clock, request: RequestT) -> Call | HedgedCall:
        """Plans the request and starts it hedged, or, when it is not safe
        to repeat, as a plain call (admitted)."""
        url = request.url
        host = url.host if url.port is None else f"{url.host}:{url.port}"
        return self._planned(clock, request.method, host, url.path, request.headers, self._hedging)

    @staticmethod
    def _limit(call: Call, args: tuple[Any, ...]) -> None:
        """Applies the engine's per-attempt timeouts to the request (never
        loosening the caller's own), and notes when the total deadline
        passes, for reading the body."""
        _Transport._limits(args[0], call.timeout, call.connect_timeout, deadline_of(call))

    @staticmethod
    def _limits(
        attempt: _Attempt, read: float | None, connect: float | None, deadline: float | None
    ) -> None:
        """``_limit`` for one attempt or copy, from its timeouts."""
        request = attempt.request
        attempt.deadline = deadline
        if read is None and connect is None:
            return
        current = dict(request.extensions.get("timeout") or {})
        limits = {"connect": connect, "pool": connect, "read": read, "write": read}
        for name, limit in limits.items():
            if limit is not None:
                current[name] = tighter(current.get(name), limit)
        request.extensions["timeout"] = current

    def _status_of(self, response: ResponseT) -> int:
        status: int = response.status_code
        return status

    def _headers_of(self, response: ResponseT) -> list[tuple[str, str]]:
        items: list[tuple[str, str]] = response.headers.multi_items()
        return items

    def _text_of(self, response: ResponseT) -> str:
        text: str = response.text
        return text

    def _attach(self, response: ResponseT, decision: dict[str, Any] | None) -> None:
        response.extensions["stoic"] = decision

    def _reads(self, response: ResponseT) -> bool:
        """Whether this attempt reads the response's body."""
        return self._needs_body(
            response.status_code, self._stream, response.headers.get("content-type")
        )


class SyncTransport(_Transport[InnerT, RequestT, ResponseT]):
    """The sync transport (``RetryTransport``), around the library's
    ``HTTPTransport()`` by default. Config keywords build a private policy;
    ``policy=`` shares one."""

    _inner_names = ("BaseTransport", "HTTPTransport")
    _advice = "async ones go in AsyncRetryTransport"
    _wrong_client = (
        "RetryTransport is for {lib}.Client; give {lib}.AsyncClient an AsyncRetryTransport"
    )

    def _loop(self) -> Callable[..., Any]:
        return sync_loop(self._settings, self._send, "", start=self._start)

    def handle_request(self, request: RequestT) -> ResponseT:
        request.read()  # a retry re-sends the body
        response: ResponseT = self._run(_Attempt(request))
        return response

    def _send(self, attempt: _Attempt) -> ResponseT:
        """One attempt: the request, and its body unless streaming."""
        response: ResponseT = self._inner.handle_request(attempt.request)
        # The body is part of the attempt, inside the call's deadline: a body
        # cut off mid-read is this attempt's failure, not the caller's.
        if self._reads(response):
            stream = response.stream
            if attempt.deadline is not None:
                _tighten_read(attempt.request, attempt.deadline)
                bounded = _bounded_streams(self._lib)[0]
                response.stream = bounded(stream, attempt.deadline, attempt.request)
            try:
                response.read()
            except Exception as exc:
                response.close()
                if is_network(exc):  # after the headers: the body was cut
                    mark_cut(exc, response, response.status_code)
                raise
            except BaseException:
                response.close()
                raise
            finally:
                response.stream = stream
        return response

    def close(self) -> None:
        self._inner.close()

    async def handle_async_request(self, request: RequestT) -> ResponseT:
        """Not for the library's ``AsyncClient``: says which transport is."""
        self._refuse()

    async def __aenter__(self) -> NoReturn:
        self._refuse()


class AsyncTransport(_Transport[InnerT, RequestT, ResponseT]):
    """The asyncio (and trio) twin (``AsyncRetryTransport``), around the
    library's ``AsyncHTTPTransport()`` by default."""

    _inner_names = ("AsyncBaseTransport", "AsyncHTTPTransport")
    _advice = "sync ones go in RetryTransport"
    _wrong_client = (
        "AsyncRetryTransport is for {lib}.AsyncClient; give {lib}.Client a RetryTransport"
    )

    def _loop(self) -> Callable[..., Any]:
        return async_loop(self._settings, self._send, "", start=self._start)

    _hedges = True

    async def handle_async_request(self, request: RequestT) -> ResponseT:
        await request.aread()
        if self._hedging is None or not runtime.active:
            response: ResponseT = await self._run(_Attempt(request))
            return response
        clock = self._settings.clock or runtime.clock
        call = self._start_hedged(clock, request)
        if not isinstance(call, HedgedCall):
            # Not safe to repeat: one plain call, its retries the engine's.
            response = await self._run(_Attempt(request, call))
            return response

        async def send(step: dict[str, Any]) -> ResponseT:
            copy = _Attempt(request)
            remaining = step["remaining"]
            deadline = None if remaining is None else time.monotonic() + remaining
            self._limits(copy, step["timeout"], step["connect_timeout"], deadline)
            return await self._send(copy)

        hedged: ResponseT = await run_hedged(
            call, clock, self._settings, send, self._judge_copy, returns_last=True
        )
        return hedged

    async def _send(self, attempt: _Attempt) -> ResponseT:
        """One attempt: the request, and its body unless streaming."""
        response: ResponseT = await self._inner.handle_async_request(attempt.request)
        if self._reads(response):
            stream = response.stream
            if attempt.deadline is not None:
                _tighten_read(attempt.request, attempt.deadline)
                bounded = _bounded_streams(self._lib)[1]
                response.stream = bounded(stream, attempt.deadline, attempt.request)
            try:
                await response.aread()
            except Exception as exc:
                await response.aclose()
                if is_network(exc):  # after the headers: the body was cut
                    mark_cut(exc, response, response.status_code)
                raise
            except BaseException:
                await response.aclose()
                raise
            finally:
                response.stream = stream
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    def handle_request(self, request: RequestT) -> ResponseT:
        """Not for the library's ``Client``: says which transport is."""
        self._refuse()

    def __enter__(self) -> NoReturn:
        self._refuse()
