"""A stream of events (``text/event-stream``, how the model APIs stream a
completion) passes through stoic's transports unbuffered: the caller reads
the first event while the server still holds the rest. The server below
sends one event, then waits until the test has read it (or a safety bound
passes) before it sends the last: a transport that buffered the body would
hand nothing over until the bound ran out, and the server would report that
it was never released."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import httpx2
import openai
import pytest

import stoic.httpx
import stoic.httpx2

SAFETY_BOUND = 10.0  # seconds the server waits for the test before finishing anyway


class EventServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()
        self.released_in_time: list[bool] = []

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: EventServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        first = (
            'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
            '"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
        )
        last = (
            'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
            '"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n'
            "data: [DONE]\n\n"
        )
        self._chunk(first)
        self.server.released_in_time.append(self.server.release.wait(SAFETY_BOUND))
        self._chunk(last)
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


@pytest.fixture
def events() -> Iterator[EventServer]:
    server = EventServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


LIBS = [(httpx, stoic.httpx), (httpx2, stoic.httpx2)]


@pytest.mark.parametrize("lib", LIBS, ids=["httpx", "httpx2"])
def test_an_event_stream_is_handed_over_as_it_arrives(events: EventServer, lib: Any) -> None:
    client_lib, transports = lib
    url = f"{events.url}/v1/chat/completions"
    # The transport is given no stream=True: the content type decides.
    with (
        client_lib.Client(transport=transports.RetryTransport()) as client,
        client.stream("POST", url, json={}) as response,
    ):
        lines = response.iter_lines()
        first = next(line for line in lines if line.startswith("data:"))
        events.release.set()
        rest = [line for line in lines if line.startswith("data:")]
    assert '"Hel"' in first
    assert rest[-1] == "data: [DONE]"
    assert events.released_in_time == [True]


def test_the_openai_sdk_streams_through_the_recipe(events: EventServer) -> None:
    transport = stoic.httpx2.RetryTransport()
    client = openai.OpenAI(
        base_url=f"{events.url}/v1",
        api_key="test",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )
    with client:
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        first = next(iter(stream))
        events.release.set()
        text = (first.choices[0].delta.content or "") + "".join(
            chunk.choices[0].delta.content or "" for chunk in stream
        )
    assert text == "Hello"
    assert events.released_in_time == [True]
