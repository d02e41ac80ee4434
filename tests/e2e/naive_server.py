"""A server that does not cooperate: it ignores ``Idempotency-Key``, like
most real servers, and stores every POST it receives as a new order in
SQLite. It commits before it fails, which is what makes a repeated POST a
duplicate:

- ``lost_ack``: commit, then reset the connection before answering;
- ``slow``: commit, then answer after ``slow_secs`` (past the client's timeout);
- ``500``, ``502``, ``504``: commit, then answer that status;
- ``503``: answer 503 *without* committing (the request was turned away).

``POST /orders?fault=<name>`` meets the fault on the first request for its
``ref`` (from the JSON body) and succeeds after that, so the test can tell
"retried and duplicated" from "not retried". ``GET /orders`` lists what was
stored.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import struct
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

COMMITTING_FAULTS = ("lost_ack", "slow", "500", "502", "504")


class NaiveServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, db: Path, slow_secs: float = 1.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.slow_secs = slow_secs
        self.lock = threading.Lock()
        self.attempts: dict[str, int] = defaultdict(int)
        self.db = sqlite3.connect(db, check_same_thread=False)
        self.db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, ref TEXT, key TEXT)")
        self.db.commit()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that time out and hang up are part of the test

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def store(self, ref: str, key: str | None) -> None:
        with self.lock:
            self.db.execute("INSERT INTO orders (ref, key) VALUES (?, ?)", (ref, key))
            self.db.commit()

    def orders(self) -> list[tuple[str, str | None]]:
        with self.lock:
            return list(self.db.execute("SELECT ref, key FROM orders ORDER BY id"))

    def start(self) -> NaiveServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self.db.close()


class _Handler(BaseHTTPRequestHandler):
    server: NaiveServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        rows = [{"ref": ref, "key": key} for ref, key in self.server.orders()]
        self._send(200, json.dumps(rows).encode())

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        fault = parse_qs(parts.query).get("fault", [""])[0]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        ref = str(json.loads(body or b"{}").get("ref", ""))
        server = self.server
        with server.lock:
            server.attempts[ref] += 1
            first = server.attempts[ref] == 1
        if first and fault == "503":
            self._send(503, b'{"error": "busy"}')
            return
        server.store(ref, self.headers.get("Idempotency-Key"))
        if not first or fault not in COMMITTING_FAULTS:
            self._send(201, json.dumps({"ref": ref}).encode())
        elif fault == "lost_ack":
            linger = struct.pack("ii", 1, 0)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.close_connection = True
            self.connection.close()
        elif fault == "slow":
            time.sleep(server.slow_secs)
            self._send(201, json.dumps({"ref": ref}).encode())
        else:
            self._send(int(fault), b'{"error": "failed after committing"}')
