"""OpenTelemetry: a policy's metrics and decisions through the OpenTelemetry
API, for whatever SDK and exporter the application set up::

    import stoic
    from stoic.opentelemetry import instrument

    policy = stoic.Policy()
    instrumentation = instrument(policy)   # the global meter provider
    ...
    instrumentation.uninstrument()

Metrics: one instrument per entry of the engine's metric catalogue
(``stoic.parts.metric_catalogue()``), with its name, unit and description,
the same in every language. The counters (``stoic.calls``,
``stoic.attempts``, ``stoic.retries``, ``stoic.retry.attempts``,
``stoic.retry.successes``, ``stoic.retry.exhausted``, ``stoic.gave_up``) and
the ``stoic.retry.duration`` histogram (seconds, the catalogue's bucket
bounds as advice) are told each call's points, with the attributes
``scope``, ``operation``, ``outcome`` and ``reason`` where the point has
them; ``stoic.circuit_breaker.state`` is an observable gauge per ``scope``
(0 closed, 1 half open, 2 open). Budget refusals are
``stoic.gave_up{reason="budget_exhausted"}``. Which points a call adds, and
their attributes, are the engine's (``Policy.measuring``); this module
hands them to the SDK.

Traces (``traces=True``): stoic makes no spans of its own. Each decision
worth noting (``stoic.retry``, ``stoic.exhausted``, ``stoic.gave_up``, and
``stoic.success`` after retries) becomes an event on the span current where
the call runs, with the attempt, the delay in seconds and the reason; the
HTTP integrations (httpx, requests, aiohttp) set
``http.request.resend_count`` on it before each resend. Whatever made that
span (your code, a framework's instrumentation) gets the story of the call.

Needs ``opentelemetry-api`` (the ``opentelemetry`` extra); an SDK and an
exporter are the application's. Events reach the instruments as calls end
or sleep, like ``records=``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.metrics import (
    CallbackOptions,
    Counter,
    Histogram,
    MeterProvider,
    Observation,
)

from . import __version__
from ._stoic import Policy, metric_catalogue
from ._tracing import trace_resends

__all__ = ["Instrumentation", "instrument"]

_RESEND_COUNT = "http.request.resend_count"


class Instrumentation:
    """What ``instrument`` attached to a policy: ``uninstrument()`` takes
    it off again (the instruments stay with their meter, unfed)."""

    def __init__(self, policy: Policy, meter_provider: MeterProvider | None, traces: bool) -> None:
        self.policy = policy
        provider = meter_provider if meter_provider is not None else metrics.get_meter_provider()
        meter = provider.get_meter("stoic", __version__)
        self._counters: dict[str, Counter] = {}
        self._histograms: dict[str, Histogram] = {}
        for metric in metric_catalogue():
            name, unit, description = metric["otel_name"], metric["unit"], metric["description"]
            if metric["kind"] == "counter":
                self._counters[name] = meter.create_counter(name, unit, description)
            elif metric["kind"] == "histogram":
                self._histograms[name] = meter.create_histogram(
                    name,
                    unit,
                    description,
                    explicit_bucket_boundaries_advisory=metric["bounds_seconds"],
                )
            else:
                meter.create_observable_gauge(
                    name, [self._gauge(metric["field"])], unit, description
                )
        self._traces = traces
        self._attached = False
        self._measuring_before = policy.measuring

    def _gauge(self, field: str) -> Any:
        """The callback of a gauge: its points in the policy's current
        metrics (none once uninstrumented)."""

        def observe(_options: CallbackOptions) -> Iterable[Observation]:
            if not self._attached:
                return []
            for metric in metric_catalogue(self.policy.metrics()):
                if metric["field"] == field:
                    return [
                        Observation(point["value"], point["attributes"])
                        for point in metric["points"]
                    ]
            return []

        return observe

    def _on_event(self, event: dict[str, Any]) -> None:
        """Hands a metric point to its instrument, and a decision to the
        current span."""
        kind = event.get("kind")
        if kind == "metric":
            name, attributes = event["metric"], event["attributes"]
            counter = self._counters.get(name)
            if counter is not None:
                counter.add(event["value"], attributes)
            else:
                histogram = self._histograms.get(name)
                if histogram is not None:
                    histogram.record(event["value"], attributes)
        elif kind == "decision" and self._traces:
            span = trace.get_current_span()
            if span.is_recording():
                span.add_event(event["name"], event["attributes"])

    def attach(self) -> None:
        if self._attached:
            return
        self._attached = True
        self.policy.listen(self._on_event)
        self.policy.measuring = True
        if self._traces:
            trace_resends(self.policy, _mark_resend)

    def uninstrument(self) -> None:
        """Stops feeding the instruments and the spans; the policy measures
        again only if it did before."""
        if not self._attached:
            return
        self._attached = False
        self.policy.unlisten(self._on_event)
        self.policy.measuring = self._measuring_before
        if self._traces:
            trace_resends(self.policy, None)


def _mark_resend(resends: int) -> None:
    span = trace.get_current_span()
    if span.is_recording():
        span.set_attribute(_RESEND_COUNT, resends)


def instrument(
    policy: Policy,
    *,
    meter_provider: MeterProvider | None = None,
    traces: bool = True,
) -> Instrumentation:
    """Publishes ``policy``'s metrics through ``meter_provider`` (default:
    the global one) and, with ``traces``, its decisions as events on the
    caller's current span. Returns the instrumentation, to
    ``uninstrument()``. Instrument a policy once per meter provider."""
    if not isinstance(policy, Policy):
        what = "the class itself" if policy is Policy else type(policy).__name__
        raise TypeError(f"instrument(policy): policy must be a stoic.Policy, not {what}")
    if meter_provider is not None and not hasattr(meter_provider, "get_meter"):
        raise TypeError(
            "instrument(policy, meter_provider=...): meter_provider must be an "
            f"OpenTelemetry MeterProvider (with get_meter), not {type(meter_provider).__name__}"
        )
    if not isinstance(traces, bool):
        raise TypeError(f"instrument(policy, traces=...): traces must be a bool, not {traces!r}")
    instrumentation = Instrumentation(policy, meter_provider, traces)
    instrumentation.attach()
    return instrumentation
