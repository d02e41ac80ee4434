"""stoic.opentelemetry against the real OpenTelemetry SDK: its in-memory
metric reader and span exporter, calls through the decorator and the httpx
transport against the local server. The points the SDK aggregates, summed
over their attributes, are the policy's own metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import stoic
from stoic.httpx import AsyncRetryTransport, RetryTransport
from stoic.opentelemetry import instrument
from stoic.parts import metric_catalogue

FAST = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}


@pytest.fixture
def reader() -> InMemoryMetricReader:
    return InMemoryMetricReader()


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    """Metric name -> its data points, from one collection."""
    data = reader.get_metrics_data()
    out: dict[str, list[Any]] = {}
    if data is None:  # nothing recorded at all
        return out
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            assert scope.scope.name == "stoic"
            for metric in scope.metrics:
                out[metric.name] = list(metric.data.data_points)
    return out


def traffic(policy: stoic.Policy) -> None:
    """`payments`: a call that succeeds after two retries and one that
    gives up on a 404; `search`: one that succeeds at once."""
    failures = iter([ConnectionRefusedError(), ConnectionResetError()])

    @stoic.retry(policy=policy, scope="payments", operation="pay")
    def pay() -> str:
        error = next(failures, None)
        if error is not None:
            raise error
        return "paid"

    @stoic.retry(policy=policy, scope="search", operation="search")
    def search() -> str:
        return "found"

    assert pay() == "paid"
    assert search() == "found"

    @stoic.retry(policy=policy, scope="payments", operation="lookup")
    def lookup() -> None:
        raise LookupError("no such order")

    with pytest.raises(LookupError):
        lookup()


def test_each_point_carries_its_call_and_the_sums_are_the_policys(
    reader: InMemoryMetricReader, clock: stoic.VirtualClock
) -> None:
    policy = stoic.Policy(seed=7)
    instrument(policy, meter_provider=MeterProvider(metric_readers=[reader]))
    traffic(policy)
    got = points(reader)

    calls = {tuple(sorted(p.attributes.items())): p.value for p in got["stoic.calls"]}
    assert calls == {
        (("operation", "pay"), ("outcome", "success"), ("scope", "payments")): 1,
        (("operation", "search"), ("outcome", "success"), ("scope", "search")): 1,
        (
            ("operation", "lookup"),
            ("outcome", "gave_up"),
            ("reason", "not_retryable"),
            ("scope", "payments"),
        ): 1,
    }
    retries = sorted((p.attributes["reason"], p.value) for p in got["stoic.retries"])
    assert retries == [("network_connect_refused", 1), ("network_unknown", 1)]
    assert sum(value for _, value in retries) == 2

    # Summed over the attributes, each counter is the policy's own metric.
    snapshots = policy.metrics()
    for metric in metric_catalogue():
        name, field = metric["otel_name"], metric["field"]
        if metric["kind"] == "counter":
            for scope, snapshot in snapshots.items():
                total = sum(p.value for p in got.get(name, []) if p.attributes["scope"] == scope)
                assert total == snapshot[field], (name, scope)
    duration = got["stoic.retry.duration"]
    assert [p.attributes for p in duration] == [
        {"scope": "payments", "operation": "pay", "outcome": "success"}
    ]
    (point,) = duration
    bounds = next(m for m in metric_catalogue() if m["kind"] == "histogram")["bounds_seconds"]
    assert list(point.explicit_bounds) == bounds
    assert point.count == 1
    assert point.sum == pytest.approx(snapshots["payments"]["retry_duration"]["sum"])
    assert point.sum > 0  # the two waits, in seconds


def test_the_breaker_gauge_is_observed_per_scope(
    reader: InMemoryMetricReader, clock: stoic.VirtualClock
) -> None:
    policy = stoic.Policy(
        seed=1,
        max_attempts=1,
        breaker={"trip": {"kind": "consecutive_failures", "threshold": 2, "compare": "ge"}},
    )
    instrument(policy, meter_provider=MeterProvider(metric_readers=[reader]))

    @stoic.retry(policy=policy, scope="flaky")
    def down() -> None:
        raise ConnectionRefusedError()

    for _ in range(2):
        with pytest.raises(stoic.RetryError):
            down()
    gauge = {p.attributes["scope"]: p.value for p in points(reader)["stoic.circuit_breaker.state"]}
    assert gauge == {"flaky": 2}
    with pytest.raises(stoic.RetryError) as info:
        down()
    assert info.value.reason == "circuit_open"
    refused = [
        p for p in points(reader)["stoic.gave_up"] if p.attributes.get("reason") == "circuit_open"
    ]
    assert [p.value for p in refused] == [1]


def test_decisions_are_events_on_the_callers_span(
    spans: tuple[TracerProvider, InMemorySpanExporter], clock: stoic.VirtualClock
) -> None:
    provider, exporter = spans
    policy = stoic.Policy(seed=7)
    instrument(policy)
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("checkout"):
        traffic(policy)
    (span,) = exporter.get_finished_spans()
    events = [(e.name, dict(e.attributes or {})) for e in span.events]
    names = [name for name, _ in events]
    # Two retries and a success after them (pay), a stop (lookup); the
    # clean success (search) is no event.
    assert names == ["stoic.retry", "stoic.retry", "stoic.success", "stoic.gave_up"]
    first = events[0][1]
    assert first["scope"] == "payments"
    assert first["operation"] == "pay"
    assert first["attempt"] == 1
    assert first["reason"] == "network_connect_refused"
    assert first["delay_seconds"] == clock.sleeps[0]
    assert events[3][1]["reason"] == "not_retryable"


def test_an_http_resend_count_is_set_on_the_callers_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
    server: Any,
    token: str,
    clock: stoic.VirtualClock,
) -> None:
    provider, exporter = spans
    transport = RetryTransport(**FAST)
    instrument(transport.policy, traces=True)
    with (
        provider.get_tracer("test").start_as_current_span("GET order"),
        httpx.Client(transport=transport) as c,
    ):
        response = c.get(f"{server.url}/status/{token}?n=2&code=503")
    assert response.status_code == 200
    (span,) = exporter.get_finished_spans()
    assert span.attributes is not None
    assert span.attributes["http.request.resend_count"] == 2
    assert [e.name for e in span.events] == ["stoic.retry", "stoic.retry", "stoic.success"]
    assert span.events[0].attributes is not None
    assert span.events[0].attributes["reason"] == "status_503"


def test_uninstrument_stops_the_points_and_restores_measuring(
    reader: InMemoryMetricReader, clock: stoic.VirtualClock
) -> None:
    policy = stoic.Policy(seed=7)
    assert not policy.measuring
    instrumentation = instrument(policy, meter_provider=MeterProvider(metric_readers=[reader]))
    assert policy.measuring
    instrumentation.uninstrument()
    assert not policy.measuring
    assert policy.listeners == []
    traffic(policy)
    got = points(reader)
    assert all(not got.get(name) for name in ("stoic.calls", "stoic.retries"))
    # The gauge is not observed once uninstrumented.
    assert not got.get("stoic.circuit_breaker.state")


def test_records_and_instrumentation_both_hear_every_event(
    reader: InMemoryMetricReader, clock: stoic.VirtualClock
) -> None:
    heard: list[dict[str, Any]] = []
    policy = stoic.Policy(seed=7, records=heard.append)
    instrument(policy, meter_provider=MeterProvider(metric_readers=[reader]))
    traffic(policy)
    kinds = {event["kind"] for event in heard}
    assert {"log", "metric", "decision"} <= kinds
    assert sum(p.value for p in points(reader)["stoic.calls"]) == 3


def test_the_global_no_op_provider_costs_nothing_but_works(clock: stoic.VirtualClock) -> None:
    # No SDK configured: the API's no-op meter and the invalid current span.
    policy = stoic.Policy(seed=7)
    instrument(policy)
    traffic(policy)
    assert policy.pending_events == 0


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("policy",), {}, "policy must be a stoic.Policy, not str"),
        ((stoic.Policy,), {}, "not the class itself"),
        ((None,), {"meter_provider": object()}, "policy must be a stoic.Policy"),
        ((stoic.Policy(),), {"meter_provider": object()}, "meter_provider must be"),
        ((stoic.Policy(),), {"traces": "yes"}, "traces must be a bool"),
    ],
)
def test_wrong_arguments_are_named(
    args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        instrument(*args, **kwargs)


def test_a_view_drops_the_operation_as_the_readme_says(
    reader: InMemoryMetricReader, clock: stoic.VirtualClock
) -> None:
    from opentelemetry.sdk.metrics.view import View

    view = View(instrument_name="stoic.*", attribute_keys={"scope", "outcome", "reason"})
    policy = stoic.Policy(seed=7)
    instrument(policy, meter_provider=MeterProvider(metric_readers=[reader], views=[view]))
    traffic(policy)
    calls = points(reader)["stoic.calls"]
    assert all("operation" not in p.attributes for p in calls)
    assert sum(p.value for p in calls) == 3


def test_two_instrumentations_stay_independent(clock: stoic.VirtualClock) -> None:
    first, second = InMemoryMetricReader(), InMemoryMetricReader()
    policy = stoic.Policy(seed=7)
    a = instrument(policy, meter_provider=MeterProvider(metric_readers=[first]), traces=False)
    b = instrument(policy, meter_provider=MeterProvider(metric_readers=[second]))
    a.uninstrument()  # not the last one added
    assert policy.measuring
    traffic(policy)
    assert sum(p.value for p in points(second)["stoic.calls"]) == 3
    assert not points(first).get("stoic.calls")
    b.uninstrument()
    assert not policy.measuring


def test_the_same_provider_twice_is_refused() -> None:
    policy = stoic.Policy()
    provider = MeterProvider()
    instrument(policy, meter_provider=provider)
    with pytest.raises(ValueError, match="already instrumented with this meter provider"):
        instrument(policy, meter_provider=provider)


def test_a_failing_meter_never_fails_the_call(clock: stoic.VirtualClock) -> None:
    class Exploding:
        def add(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("add boom")

        record = add

    policy = stoic.Policy(seed=7)
    instrumentation = instrument(policy, meter_provider=MeterProvider())
    instrumentation._counters = dict.fromkeys(instrumentation._counters, Exploding())  # type: ignore[misc]
    traffic(policy)  # succeeds and fails as without telemetry


def test_a_hedge_is_an_event_on_the_callers_span(
    spans: tuple[TracerProvider, InMemorySpanExporter], server: Any, token: str
) -> None:
    provider, exporter = spans
    transport = AsyncRetryTransport(hedging={"delay": {"kind": "fixed", "after": 0.05}})
    instrument(transport.policy, traces=True)

    async def main() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport) as c:
            with provider.get_tracer("test").start_as_current_span("GET user"):
                return await c.get(f"{server.url}/tail/{token}?n=1&secs=10")

    assert asyncio.run(main()).text == "arrival 2"
    (span,) = exporter.get_finished_spans()
    hedges = [dict(e.attributes or {}) for e in span.events if e.name == "stoic.hedge"]
    # The core's note: the copy as its attempt, the wait since the copy before.
    assert len(hedges) == 1, hedges
    assert hedges[0]["operation"] == f"GET /tail/{token}"
    assert hedges[0]["attempt"] == 2
    assert hedges[0]["delay_seconds"] >= 0.05  # sent once the 50 ms hedge delay passed
