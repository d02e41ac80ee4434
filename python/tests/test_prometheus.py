"""stoic.prometheus against the real prometheus_client: a scrape's
exposition text, parsed back by prometheus_client's own parser, holds every
metric of the engine's catalogue for every scope, with the policy's values."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import stoic
from stoic.parts import metric_catalogue
from stoic.prometheus import StoicCollector


def scrape(registry: CollectorRegistry) -> dict[str, Any]:
    """The exposition text, parsed: family name -> family."""
    text = generate_latest(registry).decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def traffic(policy: stoic.Policy) -> None:
    """`payments`: a call that succeeds after two retries and one that
    gives up on a 404; `search`: one that succeeds at once."""
    failures = iter([ConnectionRefusedError(), ConnectionResetError()])

    @stoic.retry(policy=policy, scope="payments")
    def pay() -> str:
        error = next(failures, None)
        if error is not None:
            raise error
        return "paid"

    @stoic.retry(policy=policy, scope="search")
    def search() -> str:
        return "found"

    assert pay() == "paid"
    assert search() == "found"
    call = policy.begin(stoic.monotonic(), "lookup", scope="payments")
    call.on_status(stoic.monotonic(), 404)


@pytest.fixture
def registry(clock: stoic.VirtualClock) -> tuple[CollectorRegistry, stoic.Policy]:
    policy = stoic.Policy(seed=7)
    registry = CollectorRegistry()
    registry.register(StoicCollector(policy))
    traffic(policy)
    return registry, policy


def test_every_catalogued_metric_is_published_per_scope(
    registry: tuple[CollectorRegistry, stoic.Policy],
) -> None:
    families = scrape(registry[0])
    for metric in metric_catalogue():
        # prometheus_client's parser names a counter family without `_total`.
        name = metric["prometheus_name"].removesuffix("_total")
        family = families[name]
        assert family.type == metric["kind"], name
        assert family.documentation == metric["description"], name
        scopes = {s.labels["scope"] for s in family.samples}
        assert scopes == {"payments", "search"}, name


def test_values_are_the_policys(registry: tuple[CollectorRegistry, stoic.Policy]) -> None:
    reg, policy = registry
    families = scrape(reg)
    snapshots = policy.metrics()

    def sample(family: str, scope: str, suffix: str = "", **labels: str) -> float:
        for s in families[family].samples:
            if s.name == family + suffix and s.labels == {"scope": scope, **labels}:
                return float(s.value)
        raise AssertionError(f"no {family}{suffix} for {scope} {labels}")

    pay = snapshots["payments"]
    assert sample("stoic_retry", "payments", "_total") == pay["retry_total"] == 2
    assert sample("stoic_calls", "payments", "_total") == pay["calls_total"] == 2
    assert sample("stoic_gave_up", "payments", "_total") == pay["gave_up_total"] == 1
    assert sample("stoic_retry_success", "payments", "_total") == 1
    assert sample("stoic_circuit_breaker_state", "payments") == 0
    # The histogram: one call retried, its duration in seconds, cumulative.
    assert sample("stoic_retry_duration_seconds", "payments", "_count") == 1
    assert sample("stoic_retry_duration_seconds", "payments", "_sum") == pytest.approx(
        pay["retry_duration"]["sum"]
    )
    assert sample("stoic_retry_duration_seconds", "payments", "_bucket", le="+Inf") == 1
    assert sample("stoic_retry_duration_seconds", "search", "_bucket", le="+Inf") == 0
    buckets = [
        s.value
        for s in families["stoic_retry_duration_seconds"].samples
        if s.name.endswith("_bucket") and s.labels["scope"] == "payments"
    ]
    assert buckets == sorted(buckets)
    assert len(buckets) == len(metric_catalogue()[7]["bounds_seconds"]) + 1


def test_an_open_breaker_shows_in_the_gauge(clock: stoic.VirtualClock) -> None:
    trip = {"kind": "consecutive_failures", "threshold": 1}
    policy = stoic.Policy(seed=1, breaker={"trip": trip})
    registry = CollectorRegistry()
    registry.register(StoicCollector(policy))
    call = policy.begin(stoic.monotonic(), "op", scope="api")
    call.on_status(stoic.monotonic(), 503)
    text = generate_latest(registry).decode()
    assert 'stoic_circuit_breaker_state{scope="api"} 2.0' in text


def test_a_policy_with_no_calls_publishes_empty_families(clock: stoic.VirtualClock) -> None:
    registry = CollectorRegistry()
    registry.register(StoicCollector(stoic.Policy(seed=1)))
    families = scrape(registry)
    assert "stoic_retry_duration_seconds" in families
    assert all(not f.samples for f in families.values() if f.name.startswith("stoic_"))


def test_registering_twice_is_refused_by_the_registry(clock: stoic.VirtualClock) -> None:
    registry = CollectorRegistry()
    registry.register(StoicCollector(stoic.Policy(seed=1)))
    with pytest.raises(ValueError, match="Duplicated timeseries"):
        registry.register(StoicCollector(stoic.Policy(seed=2)))


def test_anything_but_a_policy_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"stoic\.Policy, not object"):
        StoicCollector(object())  # type: ignore[arg-type]
    # The class, not a policy: refused now, not at the first scrape.
    with pytest.raises(TypeError, match=r"not the class itself"):
        StoicCollector(stoic.Policy)  # type: ignore[arg-type]
