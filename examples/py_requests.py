"""requests with stoic's adapter against a local flaky server: a 503, then a
429 with Retry-After, then success; a POST carries one Idempotency-Key, and
the server here deduplicates (``server_deduplicates=True``), so it is safe to
repeat.

Run: .venv/bin/python examples/py_requests.py
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

import stoic.requests

replies = [(503, {}), (429, {"Retry-After": "1"}), (200, {})]


class Flaky(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, headers = replies.pop(0) if replies else (200, {})
        print(f"  server: {self.command} key={self.headers.get('Idempotency-Key')} -> {status}")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/orders"
    adapter = stoic.requests.RetryAdapter(
        server_deduplicates=True, backoff={"base": 0.05, "cap": 0.5}
    )
    with requests.Session() as session:
        session.mount("http://", adapter)
        response = session.post(url, json={"item": "tea", "qty": 2}, timeout=5)
    print(f"client got {response.status_code} {response.text}")
    server.shutdown()


if __name__ == "__main__":
    main()
