"""OpenTelemetry with stoic: a flaky inventory call over httpx, inside a
span of the caller's; the SDK prints the span (with the retries as its
events and the resend count) and the metric points it aggregated.

Run: .venv/bin/python examples/py_opentelemetry.py
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from stoic.httpx import RetryTransport
from stoic.opentelemetry import instrument


class Flaky(BaseHTTPRequestHandler):
    """Answers 503 twice, then 200."""

    failures = 2

    def do_GET(self) -> None:
        status = 503 if Flaky.failures > 0 else 200
        Flaky.failures -= 1
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(tracer_provider)
    reader = InMemoryMetricReader()

    transport = RetryTransport(backoff={"base": 0.01, "cap": 0.05})
    instrument(transport.policy, meter_provider=MeterProvider(metric_readers=[reader]))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/stock/tea"
    try:
        tracer = trace.get_tracer("inventory-app")
        with tracer.start_as_current_span("check stock"), httpx.Client(transport=transport) as c:
            print(f"status: {c.get(url).status_code}")
    finally:
        server.shutdown()

    (span,) = spans.get_finished_spans()
    attributes = dict(span.attributes or {})
    print(f"span {span.name!r}: resend_count={attributes['http.request.resend_count']}")
    for event in span.events:
        print(f"  event {event.name} {dict(event.attributes or {})}")
    data = reader.get_metrics_data()
    assert data is not None
    for metric in data.resource_metrics[0].scope_metrics[0].metrics:
        for point in metric.data.data_points:
            value = getattr(point, "value", None)
            shown = value if value is not None else f"count={getattr(point, 'count', '?')}"
            print(f"{metric.name} {dict(point.attributes or {})} {shown}")


if __name__ == "__main__":
    main()
