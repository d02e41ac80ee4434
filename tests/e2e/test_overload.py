"""A server that fails everything: the retry budget prevents a retry storm,
and the circuit breaker opens, rejects without sending, half-opens after
its cooldown and closes after its successes."""

from __future__ import annotations

from collections.abc import Callable

from batch import ORDERS, refs
from orders.faults import FaultPlan
from orders.server import OrdersServer

from conftest import RunClient

RATIO = 0.1


def test_the_budget_holds_retries_to_its_share(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient
) -> None:
    server = start_server(FaultPlan(always="unavailable"))
    # The concurrency floor (3 outstanding retries) is off: this measures the
    # ratio's share; core/tests/budget_defaults.rs and the vectors cover the
    # floor, and the storm bound of the defaults.
    budget = {
        "ratio": {
            "ratio": RATIO,
            "min_retries_per_sec": 0.1,
            "window_ms": 10_000,
            "min_concurrent_retries": 0,
        }
    }
    summary = run_client(server.url, "--passes", "1", config={"breaker": None, "budget": budget})
    posts = [r for r in server.store.requests() if r.method == "POST"]
    first = len(ORDERS)
    retries = len(posts) - first
    # Without a budget: first * 5 retries. With it: the ratio's share, plus
    # the floor's 0.1/s over the run (and one for the bucket it starts in).
    assert 0 < retries <= RATIO * first + 0.1 * summary["elapsed"] + 2, retries
    assert summary["budget_refusals"] > 0
    assert server.summary()["count"] == 0


def test_the_breaker_opens_rejects_half_opens_and_closes(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient
) -> None:
    server = start_server(FaultPlan(outage_requests=6))
    cooldown = 1.0
    breaker = {
        "trip": {"kind": "consecutive_failures", "threshold": 5},
        "cooldown_ms": int(cooldown * 1000),
        "half_open": {"max_probes": 1, "success_threshold": 2},
    }
    sent = refs(valid=True)[:10]
    summary = run_client(
        server.url,
        "--concurrency",
        "1",
        "--only",
        ",".join(sent),
        config={"breaker": breaker, "budget": {"ratio": {"ratio": 1.0}}},
    )
    posts = [r for r in server.store.requests() if r.method == "POST"]
    statuses = [r.status for r in posts]
    assert statuses[:6] == [503] * 6
    assert set(statuses[6:]) == {201}
    # Opened after the 5th failure: nothing was sent during the cooldown;
    # the 6th request is the half-open probe, which failed and reopened it.
    assert posts[5].at - posts[4].at >= cooldown * 0.95
    assert posts[6].at - posts[5].at >= cooldown * 0.95
    assert summary["breaker_transitions"] == [
        "closed->open",
        "open->half_open",
        "half_open->open",
        "open->half_open",
        "half_open->closed",
    ]
    rejected = [c for c in summary["calls"] if c["reason"] == "circuit_open"]
    assert rejected, "calls made while open were rejected without being sent"
    assert len(posts) == 6 + len(sent)
    assert server.summary()["count"] == len(sent)
