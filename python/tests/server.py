"""A scripted HTTP server on 127.0.0.1 for the runtime tests.

Paths are ``/<behaviour>/<token>`` with query parameters; ``token`` keeps
each test's counters apart. ``n`` is how many requests misbehave before
the server answers 200 ``ok``:

- ``/status/<t>?n=2&code=503``: ``code`` n times (``n=-1``: always);
- ``/retry-after/<t>?n=1&after=1``: 429 with ``Retry-After: after``;
- ``/reset/<t>?n=1``: closes the connection without answering;
- ``/hang/<t>?n=1&secs=1``: answers only after ``secs`` seconds;
- ``/error-body/<t>?n=1``: 200 with ``{"error": "busy"}``;
- ``/cut/<t>?n=1&code=200``: ``code`` with a 1000-byte ``Content-Length``,
  then 10 bytes and a closed connection (a body cut off mid-read);
- ``/trickle/<t>?n=1&secs=6&code=200``: ``code`` and its headers at once,
  then a 60-byte body a byte at a time over ``secs`` seconds (a body that
  keeps coming, too slowly for the caller's deadline; ``chunked=1`` sends
  it chunked instead of with a ``Content-Length``; ``stall=1`` sends one
  byte, waits the ``secs`` and sends the rest; ``type=`` sets its
  ``Content-Type``);
- ``/tail/<t>?n=1&secs=10``: a latency tail: the first ``n`` requests wait
  ``secs`` seconds before answering, unless the client hangs up first (kept
  in ``aborted[token]``); every answer is ``arrival <i>``, the request's
  place in arrival order (from 1);
- ``/order/<t>?n=1&secs=10``: a server that deduplicates by
  ``Idempotency-Key``: a request with a key it has seen gets that key's
  order, any other makes a new one (``orders[token]`` lists the keys of the
  orders made, None for a request without one); the first ``n`` requests
  are slow as on ``/tail``; the answer is ``{"order": id, "arrival": i}``;
- ``/model/<t>/v1/chat/completions`` and ``/model/<t>/v1/messages``: a
  model API (OpenAI's and Anthropic's shapes) answering as
  ``script(token, replies)`` says (it returns ``{url}/model/<t>``), one
  reply per request: ``(status, headers)`` with the API's error body, or
  ``DROP`` (the connection reset once the request was read); a success in
  the API's shape once the replies run out.

Every request's method and ``Idempotency-Key`` header are kept in
``seen[token]``, its body in ``bodies[token]`` and all its headers
(lower-cased names) in ``headers[token]``.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

#: A scripted model API reply: the connection reset once the request was read.
DROP = "drop"
Reply = tuple[int, dict[str, str]] | str

#: The error ``type`` each API gives a status (Anthropic's; OpenAI's is close).
_ERROR_TYPES = {404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.counts: dict[str, int] = defaultdict(int)
        self.seen: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        self.bodies: dict[str, list[bytes]] = defaultdict(list)
        self.headers: dict[str, list[dict[str, str]]] = defaultdict(list)
        self.scripts: dict[str, Iterator[Reply]] = {}
        self.aborted: dict[str, int] = defaultdict(int)
        self.orders: dict[str, list[str | None]] = defaultdict(list)
        self.order_of: dict[tuple[str, str], int] = {}

    def script(self, token: str, replies: Iterable[Reply]) -> str:
        """Scripts ``/model/<token>``'s replies; the API's root URL."""
        self.scripts[token] = iter(replies)
        return f"{self.url}/model/{token}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is what some tests do

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, code: int, body: bytes = b"ok", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        segments = parts.path.strip("/").split("/")
        behaviour, token = segments[0], segments[1] if len(segments) > 1 else ""
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        server = self.server
        with server.lock:
            server.seen[token].append((self.command, self.headers.get("Idempotency-Key")))
            server.bodies[token].append(body)
            server.headers[token].append({k.lower(): v for k, v in self.headers.items()})
            count = server.counts[token]
            server.counts[token] = count + 1
        n = int(query.get("n", "1"))
        misbehave = n < 0 or count < n
        if behaviour == "model":
            with server.lock:
                script = server.scripts.get(token)
                reply = next(script, None) if script is not None else None
            self._model(parts.path, reply)
        elif behaviour in ("tail", "order"):
            order = self._order(token) if behaviour == "order" else None
            if misbehave and self._client_left(token, float(query.get("secs", "10"))):
                return
            arrival = count + 1
            if order is None:
                self._send(200, f"arrival {arrival}".encode())
            else:
                self._send(200, json.dumps({"order": order, "arrival": arrival}).encode())
        elif not misbehave:
            self._send(200, b'{"ok": true}' if behaviour == "error-body" else b"ok")
        elif behaviour == "status":
            code = int(query.get("code", "503"))
            self._send(code, query.get("body", f"status {code}").encode())
        elif behaviour == "retry-after":
            self._send(429, b"slow down", {"Retry-After": query.get("after", "1")})
        elif behaviour == "reset":
            self._reset()
        elif behaviour == "hang":
            time.sleep(float(query.get("secs", "1")))
            self._send(200)
        elif behaviour == "error-body":
            self._send(200, b'{"error": "busy"}')
        elif behaviour == "cut":
            self.send_response(int(query.get("code", "200")))
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif behaviour == "trickle":
            self._trickle(int(query.get("code", "200")), float(query.get("secs", "6")), query)
        else:
            self._send(404, b"no such behaviour")

    def _client_left(self, token: str, secs: float) -> bool:
        """Waits ``secs`` unless the client hangs up first; whether it did
        (counted in ``aborted``)."""
        ready, _, _ = select.select([self.connection], [], [], secs)
        if not ready:
            return False
        try:
            left = not self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            left = True
        if left:
            with self.server.lock:
                self.server.aborted[token] += 1
            self.close_connection = True
        return left

    def _order(self, token: str) -> int:
        """The order of this request: its key's, or a new one."""
        key = self.headers.get("Idempotency-Key")
        server = self.server
        with server.lock:
            if key is not None and (token, key) in server.order_of:
                return server.order_of[(token, key)]
            server.orders[token].append(key)
            order = len(server.orders[token])
            if key is not None:
                server.order_of[(token, key)] = order
            return order

    def _trickle(self, code: int, secs: float, query: dict[str, str]) -> None:
        body = b"x" * 60
        chunked = query.get("chunked") == "1"
        self.send_response(code)
        if "type" in query:
            self.send_header("Content-Type", query["type"])
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        try:
            stall = query.get("stall") == "1"
            for index, byte in enumerate(body):
                if not stall:
                    time.sleep(secs / len(body))
                elif index == 1:
                    time.sleep(secs)
                piece = bytes([byte])
                self.wfile.write(b"1\r\n" + piece + b"\r\n" if chunked else piece)
                self.wfile.flush()
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the caller hung up at its deadline, as it should
        self.close_connection = True

    def _reset(self) -> None:
        # RST instead of FIN: the client sees the connection torn down.
        linger = struct.pack("ii", 1, 0)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        self.close_connection = True
        self.connection.close()

    def _model(self, path: str, reply: Reply | None) -> None:
        """A model API's answer: Anthropic's on ``.../messages``, OpenAI's
        on ``.../chat/completions``."""
        anthropic = path.endswith("/messages")
        if isinstance(reply, str):  # DROP
            self._reset()
            return
        if reply is None:
            if anthropic:
                answer: dict[str, object] = {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [{"type": "text", "text": "ok"}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                }
            else:
                answer = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "gpt-test",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "ok"},
                            "finish_reason": "stop",
                        }
                    ],
                }
            self._send(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})
            return
        status, headers = reply
        kind = _ERROR_TYPES.get(status, "api_error")
        error = {"type": kind, "message": f"scripted {status}"}
        body = {"type": "error", "error": error} if anthropic else {"error": error}
        headers = {"Content-Type": "application/json", **headers}
        self._send(status, json.dumps(body).encode(), headers)

    do_GET = _handle
    do_POST = _handle
    do_PUT = _handle


def start() -> Server:
    server = Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
