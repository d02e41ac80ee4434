"""aiohttp with stoic's middleware against a local flaky server: a 503, then
a 429 with Retry-After, then success; a POST carries one Idempotency-Key, and
this server deduplicates (``server_deduplicates=True``), so it is safe to
repeat.

Run: .venv/bin/python examples/py_aiohttp.py
"""

from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import aiohttp

import stoic.aiohttp

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


async def order(url: str) -> None:
    middleware = stoic.aiohttp.RetryMiddleware(
        server_deduplicates=True, backoff={"base": 0.05, "cap": 0.5}
    )
    async with (
        aiohttp.ClientSession(middlewares=(middleware,)) as session,
        session.post(url, json={"item": "tea", "qty": 2}) as response,
    ):
        print(f"client got {response.status} {await response.text()}")


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    asyncio.run(order(f"http://127.0.0.1:{server.server_address[1]}/orders"))
    server.shutdown()


if __name__ == "__main__":
    main()
