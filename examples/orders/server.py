"""The demo's orders API: ``POST /orders`` with an ``Idempotency-Key``.

An HTTP server on 127.0.0.1 (ephemeral port by default) that stores orders
in SQLite and applies each one exactly once, however often a client
repeats it: stoic's server-side decisions (``stoic.parts.ServerIdempotency``)
say whether a request proceeds, replays the stored answer, or is refused
(400 no key, 409 still in flight, 422 key reused with another payload).
Meanwhile it fails in every way the faults module describes, reproducibly.

Endpoints:

- ``POST /orders``: body ``{"order_ref", "client", "sku", "quantity"}``; 201
  with the order, a replay of it (``Idempotent-Replayed: true``), 422 for an
  invalid order (not stored: a fixed request can reuse its key), or a fault;
- ``GET /orders?client=NAME``: what the server holds, with a duplicate count
  (orders sharing an ``order_ref``: must be 0);
- anything else: 404 or 405, as problem JSON.

Run ``python -m orders.server --scenario mixed`` from ``examples/`` (it
prints the URL and serves until interrupted), or use ``OrdersServer`` in a
``with`` block.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import struct
import sys
import threading
import time
from collections import Counter
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from stoic.parts import ServerIdempotency, format_http_date, parse_key_header, request_fingerprint

from .faults import SCENARIOS, FaultPlan
from .store import Answer, Store

KEY_HEADER = "Idempotency-Key"


def invalid_reason(order: Any) -> str | None:
    """Why ``order`` cannot be created, or None. Deterministic: the same
    order is invalid however often it is sent."""
    if not isinstance(order, dict):
        return "the body must be a JSON object"
    for name in ("order_ref", "client", "sku"):
        value = order.get(name)
        if not isinstance(value, str) or not value:
            return f"{name} must be a non-empty string"
    quantity = order.get("quantity")
    if not isinstance(quantity, int) or isinstance(quantity, bool) or quantity <= 0:
        return f"quantity must be a positive integer, got {json.dumps(quantity)}"
    if quantity > 1000:
        return f"quantity must be at most 1000, got {quantity}"
    return None


def problem(status: int, code: str, title: str, detail: str) -> Answer:
    """An RFC 9457 problem body."""
    return Answer(
        status,
        {"type": "about:blank", "status": status, "code": code, "title": title, "detail": detail},
    )


class OrdersServer:
    """The server, in a background thread. ``with OrdersServer(plan) as s:``
    serves on ``s.url`` until the block ends."""

    def __init__(
        self,
        plan: FaultPlan | None = None,
        *,
        db: str = ":memory:",
        host: str = "127.0.0.1",
        port: int = 0,
        in_flight_timeout: float = 2.0,
    ) -> None:
        self.plan = plan or FaultPlan()
        self.store = Store(db)
        self.idempotency = ServerIdempotency(in_flight_timeout=in_flight_timeout)
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> OrdersServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="orders-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> OrdersServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def summary(self, client: str | None = None) -> dict[str, Any]:
        """The orders held (for ``client``, or all) and their duplicates."""
        orders = [o for o in self.store.orders() if client is None or o["client"] == client]
        refs = Counter(o["order_ref"] for o in orders)
        return {
            "count": len(orders),
            "duplicates": sum(n - 1 for n in refs.values() if n > 1),
            "orders": orders,
        }


def _handler_for(server: OrdersServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_OrdersHandler):
        app = server

    return Handler


class _OrdersHandler(BaseHTTPRequestHandler):
    """One request. Each step is logged in the ``requests`` table."""

    protocol_version = "HTTP/1.1"
    server_version = "stoic-orders-demo"
    app: OrdersServer
    _date: str | None = None

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the requests table is the log."""

    def date_time_string(self, timestamp: float | None = None) -> str:
        # One Date per response, the one a Retry-After date is relative to.
        return self._date or super().date_time_string(timestamp)

    # ------------------------------------------------------------- routing

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        row, _ = self.app.store.arrive(time.monotonic(), "GET", url.path, None, None)
        if url.path != "/orders":
            answer = problem(404, "not_found", "Not Found", f"There is no resource at {url.path}.")
            self._send(answer)
            self.app.store.settle(row, "not_found", 404)
            return
        client = parse_qs(url.query).get("client", [None])[0]
        self._send(Answer(200, self.app.summary(client)))
        self.app.store.settle(row, "listed", 200)

    def do_PUT(self) -> None:
        self._not_allowed()

    def do_DELETE(self) -> None:
        self._not_allowed()

    def do_PATCH(self) -> None:
        self._not_allowed()

    def _not_allowed(self) -> None:
        row, _ = self.app.store.arrive(time.monotonic(), self.command, self.path, None, None)
        self._read_body()
        self._send(
            problem(
                405, "method_not_allowed", "Method Not Allowed", "Use POST /orders or GET /orders."
            )
        )
        self.app.store.settle(row, "not_allowed", 405)

    def do_POST(self) -> None:
        arrived = time.monotonic()
        path = urlsplit(self.path).path
        header = self.headers.get(KEY_HEADER)
        key = parse_key_header(header) if header is not None else None
        if header is not None and key is None:
            key = header  # unparseable: the decision refuses it as invalid
        store = self.app.store
        row, attempt = store.arrive(arrived, "POST", path, key, None)
        if path != "/orders":
            self._read_body()
            self._send(problem(404, "not_found", "Not Found", f"There is no resource at {path}."))
            store.settle(row, "not_found", 404)
            return
        fault = self.app.plan.choose(key, attempt, row)
        if fault == "reset":
            self._reset()
            store.settle(row, "fault", None, fault)
            return
        body = self._read_body()
        self._orders(row, key, body, fault)

    # --------------------------------------------------------------- orders

    def _orders(self, row: int, key: str | None, body: bytes, fault: str | None) -> None:
        store, plan = self.app.store, self.app.plan
        text = body.decode("utf-8", errors="replace")
        try:
            order = json.loads(text)
            fingerprint = request_fingerprint(text)
        except ValueError as exc:
            self._send(
                problem(400, "malformed_json", "Bad Request", f"The body is not JSON: {exc}")
            )
            store.settle(row, "malformed", 400)
            return
        ref = order.get("order_ref") if isinstance(order, dict) else None
        store.set_order_ref(row, ref if isinstance(ref, str) else None)
        if fault in ("retry_after_seconds", "retry_after_date"):
            self._too_many(row, fault, plan.retry_after_seconds)
            return
        if fault == "unavailable":
            self._send(
                problem(503, "unavailable", "Service Unavailable", "The service is overloaded.")
            )
            store.settle(row, "fault", 503, fault)
            return
        if fault == "error_body":
            # A 200 that failed: what some gateways and APIs send.
            self._send(Answer(200, {"ok": False, "error": "upstream_timeout"}))
            store.settle(row, "fault", 200, fault)
            return
        self._decide(row, key, fingerprint, order, fault)

    def _decide(
        self, row: int, key: str | None, fingerprint: str, order: Any, fault: str | None
    ) -> None:
        store = self.app.store
        for _ in range(3):  # a lost claim race reads the winner's entry and decides again
            now = time.time()
            stored = store.entry(key) if key is not None else None
            decision = self.app.idempotency.decide(now, key, fingerprint, stored)
            kind = decision["kind"]
            if kind == "refuse":
                status, hint = int(decision["status"]), decision["retry_after_s"]
                headers = {"Retry-After": str(hint)} if hint is not None else {}
                self._send(
                    problem(
                        status, decision["refusal"], "Idempotency-Key refused", decision["detail"]
                    ),
                    headers,
                )
                store.settle(row, "refused", status, fault, hint)
                return
            if kind == "replay" and key is not None:
                answer = store.stored_answer(key)
                if answer is not None:
                    self._send(answer, {"Idempotent-Replayed": "true"})
                    store.settle(row, "replayed", answer.status, fault)
                    return
            if kind == "proceed" and key is not None:
                # Validated before the key is claimed: an invalid order is
                # not stored, so the caller may fix it and reuse its key.
                reason = invalid_reason(order)
                if reason is not None:
                    self._send(problem(422, "invalid_order", "Invalid order", reason))
                    store.settle(row, "invalid", 422)
                    return
                if store.claim(key, fingerprint, now, bool(decision["replaces"])):
                    self._create(row, key, order, fault)
                    return
        self._send(
            problem(503, "busy", "Service Unavailable", "The key's entry kept changing; retry.")
        )
        store.settle(row, "busy", 503, fault)

    def _create(self, row: int, key: str, order: dict[str, Any], fault: str | None) -> None:
        store = self.app.store
        if fault == "slow":
            time.sleep(self.app.plan.slow_seconds)
        answer = store.create_order(key, order, order["client"], time.time())
        if fault == "lost_ack":
            self._reset()
            store.settle(row, "created", None, fault)
            return
        try:
            self._send(answer)
        except OSError:  # the client gave up waiting (slow): it will retry
            store.settle(row, "created", None, fault)
            return
        store.settle(row, "created", answer.status, fault)

    def _too_many(self, row: int, fault: str, hint: int) -> None:
        now = int(time.time())
        self._date = format_http_date(now)
        value = str(hint) if fault == "retry_after_seconds" else format_http_date(now + hint)
        self._send(
            problem(429, "rate_limited", "Too Many Requests", "Slow down."), {"Retry-After": value}
        )
        self.app.store.settle(row, "fault", 429, fault, float(hint))

    # ----------------------------------------------------------------- wire

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send(self, answer: Answer, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(answer.body).encode()
        self.send_response(answer.status)
        kind = "application/problem+json" if answer.status >= 400 else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _reset(self) -> None:
        """Drops the connection with a TCP reset, answering nothing."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--db", default=":memory:", help="SQLite file, or :memory:")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="mixed")
    parser.add_argument("--seed", type=int, help="fault seed (default: the scenario's)")
    parser.add_argument("--rate", type=float, help="fault rate 0..1 (default: the scenario's)")
    args = parser.parse_args(argv)
    plan = SCENARIOS[args.scenario]
    if args.seed is not None:
        plan = replace(plan, seed=args.seed)
    if args.rate is not None:
        plan = replace(plan, rate=args.rate)
    server = OrdersServer(plan, db=args.db, host=args.host, port=args.port).start()
    print(f"orders server listening on {server.url} (scenario {args.scenario})", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
