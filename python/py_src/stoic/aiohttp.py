"""An aiohttp client middleware that retries as the engine decides.

::

    async with aiohttp.ClientSession(middlewares=(stoic.aiohttp.RetryMiddleware(),)) as s:
        async with s.get(url) as response:
            ...

The same semantics as the httpx transports and the requests adapter, from
the same shared half (``_http.py``): each request is one call, scoped by
host; a non-idempotent request (POST, PATCH) gets an ``Idempotency-Key``
header, the same on every retry (``keys=False`` turns that off), and a key
the caller set is kept.

**Safety rule:** a request that may have been applied is repeated only when
the caller set the key header or declared ``server_deduplicates=True``; the
automatic key alone never makes a POST safe to repeat.

``Retry-After`` and the other server hints set the wait; every attempt,
reading its body included, runs under the engine's per-attempt timeout
inside the call's total deadline (aiohttp's own ``ClientTimeout`` still
applies too). The body is read inside the attempt, so a body cut off
mid-read, by the connection or by the timeout, is that attempt's failure, a
``body_cut`` (the ``RetryError`` keeps the response); ``stream=True``
leaves bodies unread (but for the validator and error excerpts). A one-shot request body (an
async generator, a stream) is read once before the first attempt, so that a
retry sends all of it. When the engine stops on a
response, that response is returned with the decision in its ``stoic``
attribute (``None`` on a success); without one, ``RetryError`` is raised
from the last exception. Needs aiohttp >= 3.12 (client middlewares; the
``aiohttp`` extra).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import aiohttp.payload

from ._classify import HOST, is_network, mark_cut
from ._clock import Clock
from ._deadline import bounded
from ._executors import async_loop
from ._http import HttpCalls
from ._runtime import Hook
from ._stoic import Call, Policy

__all__ = ["RetryMiddleware"]

Handler = Callable[[aiohttp.ClientRequest], Awaitable[aiohttp.ClientResponse]]

#: The text of each response whose body an attempt read (aiohttp decodes
#: text only asynchronously; an error excerpt is read synchronously).
_TEXTS: weakref.WeakKeyDictionary[aiohttp.ClientResponse, str] = weakref.WeakKeyDictionary()


@dataclass
class _Attempt:
    """One request through the middleware, and its attempt's time limit."""

    request: aiohttp.ClientRequest
    handler: Handler
    timeout: float | None = None
    #: The attempt's response once its status and headers arrived.
    head: aiohttp.ClientResponse | None = None


class RetryMiddleware(HttpCalls):
    """A retrying aiohttp client middleware: pass it in a ``ClientSession``'s
    ``middlewares``. Config keywords build a private policy; ``policy=``
    shares one."""

    def __init__(
        self,
        *,
        policy: Policy | None = None,
        validate: Callable[[aiohttp.ClientResponse], object] | None = None,
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
        **config: Any,
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
            discard=None,
            adiscard=_release,
            limit=self._limit,
            on_retry=on_retry,
            on_give_up=on_give_up,
            stream=stream,
        )
        self._stream = stream
        self._run = async_loop(self._settings, self._send, "", start=self._start)

    async def __call__(
        self, request: aiohttp.ClientRequest, handler: Handler
    ) -> aiohttp.ClientResponse:
        body = request.body
        if isinstance(body, aiohttp.payload.AsyncIterablePayload):
            # A one-shot body (an async generator, a stream): read once, so
            # that a retry sends all of it, never an empty body.
            data = await body.as_bytes()
            # Sent with its length now, not chunked as a stream of unknown size.
            request.chunked = None  # aiohttp chunks any value but None
            request.headers.popall("Transfer-Encoding", None)
            await request.update_body(data)
        response: aiohttp.ClientResponse = await self._run(_Attempt(request, handler))
        return response

    def _start(self, clock: Clock, attempt: _Attempt) -> Call:
        """Plans the request and starts and admits its call."""
        url = attempt.request.url
        name = url.host or ""
        host = name if url.explicit_port is None else f"{name}:{url.explicit_port}"
        return self._plan(
            clock, attempt.request.method, host, url.path or "/", attempt.request.headers
        )

    @staticmethod
    def _limit(call: Call, args: tuple[Any, ...]) -> None:
        """The engine's per-attempt timeout for the attempt under way."""
        attempt: _Attempt = args[0]
        attempt.timeout = call.timeout

    async def _send(self, attempt: _Attempt) -> aiohttp.ClientResponse:
        """One attempt: the request, and its body unless streaming, within
        the attempt's time limit."""
        attempt.head = None
        try:
            response: aiohttp.ClientResponse = await bounded(
                self._attempt(attempt), attempt.timeout
            )
        except Exception as exc:
            head = attempt.head
            if head is not None and is_network(exc):  # after the headers: the body was cut
                mark_cut(exc, head, head.status)
            raise
        return response

    async def _attempt(self, attempt: _Attempt) -> aiohttp.ClientResponse:
        response = await attempt.handler(attempt.request)
        attempt.head = response
        # The body is part of the attempt: a body cut off mid-read is this
        # attempt's failure, not the caller's.
        if self._needs_body(response.status, self._stream, response.headers.get("Content-Type")):
            try:
                body = await response.read()
            except BaseException:
                response.release()
                raise
            _TEXTS[response] = body.decode(response.get_encoding(), errors="replace")
        return response

    def _status_of(self, response: aiohttp.ClientResponse) -> int:
        return response.status

    def _headers_of(self, response: aiohttp.ClientResponse) -> list[tuple[str, str]]:
        return list(response.headers.items())

    def _text_of(self, response: aiohttp.ClientResponse) -> str:
        return _TEXTS.get(response, "")

    def _attach(self, response: aiohttp.ClientResponse, decision: dict[str, Any] | None) -> None:
        response.stoic = decision  # type: ignore[attr-defined]


async def _release(response: aiohttp.ClientResponse) -> None:
    """Releases a retried response's connection."""
    response.release()
