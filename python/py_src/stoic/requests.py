"""A requests adapter that retries as the engine decides.

::

    session = requests.Session()
    adapter = stoic.requests.RetryAdapter(max_attempts=4)
    session.mount("https://", adapter)
    session.mount("http://", adapter)

The same semantics as the httpx transports (``stoic.httpx``), from the same
shared half (``_http.py``): each request is one call, scoped by host; a
non-idempotent request (POST, PATCH) gets an ``Idempotency-Key`` header, the
same on every retry (``keys=False`` turns that off), and a key the caller set
is kept.

**Safety rule:** a request that may have been applied is repeated only when
the caller set the key header or declared ``server_deduplicates=True``; the
automatic key alone never makes a POST safe to repeat.

``Retry-After`` and the other server hints set the wait; every attempt runs
under the engine's per-attempt timeouts (never looser than the ``timeout=``
the caller gave requests), inside the call's total deadline. The body is read
inside the attempt, and the total deadline covers reading it
(``_BodyWithin``): a body cut off mid-read, by the connection or by the
deadline, is that attempt's failure, a ``body_cut`` (retried when the request
is safe to repeat; the ``RetryError`` keeps the response); with
``stream=True`` the response is returned unread (but for the validator and
for error excerpts), and so is a stream of events (``text/event-stream``). A
streamed request body (a generator or a file) is read once, before the first
attempt, so that a retry sends it again. ``validate=`` sees each 2xx response
and may reject it.

When the engine stops, the last response is returned as it is, its
``stoic`` attribute holding the decision with its observation; without a
response (network failures, an open breaker) ``RetryError`` is raised from
the last exception. Mount one adapter for both schemes to share its policy
(or pass ``policy=``): calls to one host then share a breaker and a budget.
Needs ``requests`` (the ``requests`` extra).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ReadTimeoutError

from ._classify import HOST, is_network, mark_cut
from ._clock import Clock
from ._executors import sync_loop
from ._http import LATE_BODY, HttpCalls, deadline_of, tighter, time_left
from ._runtime import Hook
from ._stoic import Call, Policy

__all__ = ["RetryAdapter"]


@dataclass
class _Attempt:
    """One ``send()``: the request and requests' own arguments, and the
    (connect, read) timeouts the engine set for the attempt under way."""

    request: requests.PreparedRequest
    stream: bool
    timeout: Any
    verify: bool | str
    cert: Any
    proxies: dict[str, str] | None
    limits: tuple[float | None, float | None] | None = None
    #: When the call's total deadline passes (``time.monotonic()``).
    deadline: float | None = None


class RetryAdapter(HttpCalls, HTTPAdapter):
    """A retrying ``requests.adapters.HTTPAdapter``. Config keywords build a
    private policy; ``policy=`` shares one. ``pool_*`` are HTTPAdapter's;
    its own ``max_retries`` is off (the engine retries)."""

    def __init__(
        self,
        *,
        policy: Policy | None = None,
        validate: Callable[[requests.Response], object] | None = None,
        key_header: str = HOST["key_header"],
        key_form: str = HOST["key_form"],
        keys: bool = HOST["http_defaults"]["keys"],
        server_deduplicates: bool = HOST["http_defaults"]["server_deduplicates"],
        reraise: bool = False,
        clock: Clock | None = None,
        records: Any = None,
        on_retry: Hook | None = None,
        on_give_up: Hook | None = None,
        pool_connections: int = 10,
        pool_maxsize: int = 10,
        pool_block: bool = False,
        **config: Any,
    ) -> None:
        HttpCalls.__init__(
            self,
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
            discard=requests.Response.close,
            adiscard=None,
            limit=self._limit,
            on_retry=on_retry,
            on_give_up=on_give_up,
        )
        HTTPAdapter.__init__(
            self,
            pool_connections=pool_connections,
            pool_maxsize=pool_maxsize,
            max_retries=0,
            pool_block=pool_block,
        )
        self._run = sync_loop(self._settings, self._send, "", start=self._start)

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: bool | str = True,
        cert: Any = None,
        proxies: dict[str, str] | None = None,
    ) -> requests.Response:
        _replayable(request)
        attempt = _Attempt(request, stream, timeout, verify, cert, proxies)
        response: requests.Response = self._run(attempt)
        return response

    def _start(self, clock: Clock, attempt: _Attempt) -> Call:
        """Plans the request and starts and admits its call."""
        request = attempt.request
        parts = urlsplit(request.url or "")
        name = parts.hostname or ""
        host = name if parts.port is None else f"{name}:{parts.port}"
        return self._plan(clock, request.method or "GET", host, parts.path or "/", request.headers)

    @staticmethod
    def _limit(call: Call, args: tuple[Any, ...]) -> None:
        """The engine's per-attempt timeouts for this attempt, never looser
        than the caller's ``timeout=`` (a number or a (connect, read) pair)."""
        attempt: _Attempt = args[0]
        attempt.deadline = deadline_of(call)
        given = attempt.timeout
        if isinstance(given, tuple) and len(given) == 2:
            connect, read = given
        elif isinstance(given, (int, float)) or given is None:
            connect = read = given
        else:
            return  # a urllib3 Timeout object: the caller's, as it is
        attempt.limits = (
            tighter(connect, call.connect_timeout),
            tighter(read, call.timeout),
        )

    def _send(self, attempt: _Attempt) -> requests.Response:
        """One attempt: the request, and its body unless streaming."""
        response = HTTPAdapter.send(
            self,
            attempt.request,
            stream=True,
            timeout=attempt.limits if attempt.limits is not None else attempt.timeout,
            verify=attempt.verify,
            cert=attempt.cert,
            proxies=attempt.proxies,
        )
        # The body is part of the attempt: a body cut off mid-read is this
        # attempt's failure, not the caller's.
        content_type = response.headers.get("content-type")
        if self._needs_body(response.status_code, attempt.stream, content_type):
            raw = response.raw
            if attempt.deadline is not None:
                response.raw = _BodyWithin(raw, attempt.deadline, attempt.request.url or "")
            try:
                _ = response.content
            except Exception as exc:
                response.close()
                if is_network(exc):  # after the headers: the body was cut
                    mark_cut(exc, response, response.status_code)
                raise
            except BaseException:
                response.close()
                raise
            finally:
                response.raw = raw
        return response

    def _status_of(self, response: requests.Response) -> int:
        return response.status_code

    def _headers_of(self, response: requests.Response) -> list[tuple[str, str]]:
        return list(response.headers.items())

    def _text_of(self, response: requests.Response) -> str:
        return response.text

    def _attach(self, response: requests.Response, decision: dict[str, Any] | None) -> None:
        response.stoic = decision  # type: ignore[attr-defined]


class _BodyWithin:
    """urllib3's response, read by requests inside the call's total
    deadline. requests reads a body through ``raw.stream()``, whose reads
    wait for a whole chunk (10 kB) while a slow body trickles in, each
    socket read within the read timeout; here each piece is returned as it
    arrives (``read1``, or a chunk of a chunked body), the body is cut at the
    first piece past the deadline (``ReadTimeoutError``, which requests
    raises as its ``ConnectionError``, as for any body that timed out), and
    the socket waits no longer than the time left. Everything else is the
    response's own."""

    def __init__(self, raw: Any, deadline: float, url: str) -> None:
        self._raw = raw
        self._deadline = deadline
        self._url = url

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)

    def stream(self, amt: int = 2**16, decode_content: bool | None = None) -> Iterator[bytes]:
        self._tighten_socket()
        for piece in self._pieces(amt, decode_content):
            if time.monotonic() > self._deadline:
                raise ReadTimeoutError(None, self._url, LATE_BODY)  # type: ignore[arg-type]
            yield piece

    def _pieces(self, amt: int, decode_content: bool | None) -> Iterator[bytes]:
        raw = self._raw
        if raw.chunked and raw.supports_chunked_reads():
            yield from raw.read_chunked(amt, decode_content=decode_content)
            return
        read1 = getattr(raw, "read1", None)
        if read1 is None:  # urllib3 < 2.3: whole chunks, each read within the read timeout
            yield from raw.stream(amt, decode_content=decode_content)
            return
        while True:
            piece = read1(amt, decode_content=decode_content)
            if not piece:
                return
            yield piece

    def _tighten_socket(self) -> None:
        """A body that stalls ends at the deadline, not a read timeout
        later (urllib3 sets the socket's timeout again for the next request
        on the connection)."""
        sock = getattr(getattr(self._raw, "connection", None), "sock", None)
        if sock is None:
            return
        sock.settimeout(tighter(sock.gettimeout(), time_left(self._deadline)))


def _replayable(request: requests.PreparedRequest) -> None:
    """Reads a streamed body (a generator, a file) once, so that every
    attempt sends all of it; bytes and text are sent as they are."""
    body = request.body
    if body is None or isinstance(body, (bytes, str)):
        return
    read = getattr(body, "read", None)
    if callable(read):
        data = read()
    else:
        chunks = cast(Iterable[bytes | str], body)
        data = b"".join(c.encode() if isinstance(c, str) else bytes(c) for c in chunks)
    request.body = data.encode() if isinstance(data, str) else data
    request.headers.pop("Transfer-Encoding", None)
    request.headers["Content-Length"] = str(len(request.body))
