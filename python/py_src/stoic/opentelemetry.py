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
worth noting (``stoic.retry``, ``stoic.exhausted``, ``stoic.gave_up``,
``stoic.success`` after retries, and ``stoic.hedge`` as a hedged call
(``hedging=``) sends another copy) becomes an event on the span current
where the call runs, with the attempt (a hedge's copy number), the delay in
seconds (a hedge's wait since the copy before) and the reason; the HTTP
integrations (httpx, requests, aiohttp) set ``http.request.resend_count`` on
it before each resend. Whatever made that span (your code, a framework's
instrumentation) gets the story of the call.

Needs ``opentelemetry-api`` (the ``opentelemetry`` extra); an SDK and an
exporter are the application's. Events reach the instruments as calls end
or sleep, like ``records=``.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
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


@dataclass
class _Attachments:
    """A policy's instrumentations, oldest first (measuring stays on, and
    resends stay marked, while any of them needs it), and whether the
    policy measured before the first."""

    instrumentations: list[Instrumentation]
    measured_before: bool


_attached: weakref.WeakKeyDictionary[Policy, _Attachments] = weakref.WeakKeyDictionary()


class Instrumentation:
    """What ``instrument`` attached to a policy: ``uninstrument()`` takes
    it off again (the instruments stay with their meter, unfed)."""

    def __init__(self, policy: Policy, provider: MeterProvider, traces: bool) -> None:
        self.policy = policy
        self.meter_provider = provider
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
        self.traces = traces

    @property
    def attached(self) -> bool:
        """Whether this instrumentation still feeds its instruments."""
        held = _attached.get(self.policy)
        return held is not None and self in held.instrumentations

    def _gauge(self, field: str) -> Any:
        """The callback of a gauge: its points in the policy's current
        metrics (none once uninstrumented)."""

        def observe(_options: CallbackOptions) -> Iterable[Observation]:
            if not self.attached:
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
        current span. Telemetry that fails never fails the call it
        describes: an SDK that raises loses the point."""
        with contextlib.suppress(Exception):
            self._record(event)

    def _record(self, event: dict[str, Any]) -> None:
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
        elif kind == "decision" and self.traces:
            span = trace.get_current_span()
            if span.is_recording():
                span.add_event(event["name"], event["attributes"])

    def _attach(self) -> None:
        held = _attached.get(self.policy)
        if held is None:
            held = _attached[self.policy] = _Attachments([], self.policy.measuring)
        held.instrumentations.append(self)
        self.policy.listen(self._on_event)
        _settle(self.policy, held.instrumentations)

    def uninstrument(self) -> None:
        """Stops feeding this instrumentation's instruments and spans.
        Measuring stays on while another instrumentation of the policy
        needs it; after the last, the policy measures only if it did
        before the first."""
        held = _attached.get(self.policy)
        if held is None or self not in held.instrumentations:
            return
        held.instrumentations.remove(self)
        with contextlib.suppress(Exception):  # a policy already closed
            self.policy.unlisten(self._on_event)
        if held.instrumentations:
            _settle(self.policy, held.instrumentations)
        else:
            del _attached[self.policy]
            self.policy.measuring = held.measured_before
            trace_resends(self.policy, None)


def _settle(policy: Policy, attached: list[Instrumentation]) -> None:
    """Measuring on, and resends marked while one instrumentation traces."""
    policy.measuring = True
    traced = any(i.traces for i in attached)
    trace_resends(policy, _mark_resend if traced else None)


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
    ``uninstrument()``. A second instrumentation with the same meter
    provider is a ``ValueError`` (it would count every point twice)."""
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
    provider = meter_provider if meter_provider is not None else metrics.get_meter_provider()
    held = _attached.get(policy)
    if held is not None and any(i.meter_provider is provider for i in held.instrumentations):
        raise ValueError(
            "instrument(policy): this policy is already instrumented with this meter provider "
            "(its points would be counted twice); uninstrument() the first"
        )
    instrumentation = Instrumentation(policy, provider, traces)
    instrumentation._attach()
    return instrumentation
