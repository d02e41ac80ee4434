"""Prometheus: a policy's metrics, per scope, for ``prometheus_client``.

``StoicCollector(policy)`` reads ``policy.metrics()`` at every scrape and
publishes each metric under the name, help text and histogram buckets of the
engine's metric catalogue (``stoic.parts.metric_catalogue()``), the same in
every language::

    from prometheus_client import REGISTRY, generate_latest
    import stoic
    from stoic.prometheus import StoicCollector

    policy = stoic.Policy()
    REGISTRY.register(StoicCollector(policy))
    print(generate_latest().decode())   # stoic_retry_total{scope="..."} ...

Counters (``stoic_calls_total``, ``stoic_retry_total``, ...), the
``stoic_retry_duration_seconds`` histogram and the
``stoic_circuit_breaker_state`` gauge (0 closed, 1 half open, 2 open) carry
one label, ``scope``. One policy per registry: a second collector's names
clash. Needs ``prometheus_client`` (the ``prometheus`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from ._stoic import Policy, metric_catalogue

__all__ = ["StoicCollector"]


class StoicCollector(Collector):
    """Publishes ``policy``'s metrics at every scrape (register it with a
    ``CollectorRegistry``). Reading them takes the policy's lock for a
    moment; no call waits on a scrape for longer."""

    def __init__(self, policy: Policy) -> None:
        if not isinstance(policy, Policy):
            what = "the class itself" if policy is Policy else type(policy).__name__
            raise TypeError(f"StoicCollector needs a stoic.Policy, not {what}")
        self.policy = policy

    def describe(self) -> Iterator[Metric]:
        """The metric families, empty: what registering checks names with."""
        return families(metric_catalogue())

    def collect(self) -> Iterator[Metric]:
        return families(metric_catalogue(self.policy.metrics()))


def families(catalogue: list[dict[str, Any]]) -> Iterator[Metric]:
    """The engine's metric catalogue, with its points, as prometheus_client
    metric families: a translation, the values and units are the engine's."""
    for metric in catalogue:
        name, help_text, labels = (
            metric["prometheus_name"],
            metric["description"],
            metric["attributes"],
        )
        family: CounterMetricFamily | GaugeMetricFamily | HistogramMetricFamily
        if metric["kind"] == "histogram":
            family = HistogramMetricFamily(name, help_text, labels=labels)
            bounds = [*map(floatToGoString, metric["bounds_seconds"]), "+Inf"]
            for point in metric["points"]:
                family.add_metric(
                    [point["attributes"][label] for label in labels],
                    buckets=list(zip(bounds, point["buckets"], strict=True)),
                    sum_value=point["sum_seconds"],
                )
        else:
            kind = GaugeMetricFamily if metric["kind"] == "gauge" else CounterMetricFamily
            family = kind(name, help_text, labels=labels)
            for point in metric["points"]:
                family.add_metric([point["attributes"][label] for label in labels], point["value"])
        yield family
