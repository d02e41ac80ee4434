"""Two Python and two Node processes against an always-503 server on
127.0.0.1, each retrying through its own policy, in real time
(tests/fleet/harness.py runs them): with the budget shared through a real
redis-server the fleet spends one retry floor, without it four; one probe
per cooldown reaches the server; a trip opens every breaker by the next
exchange; a store killed mid-run and restarted empty costs no caller an
exception."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Store, propagation, redis_store, run

CONFIG = json.loads((Path(__file__).parent / "config.json").read_text())
RATIO = CONFIG["budget"]["ratio"]
# The floor's retries per window: min_retries_per_sec x window (the runs
# are shorter than one window, so all of it is there from the start).
FLOOR = RATIO["min_retries_per_sec"] * RATIO["window_ms"] / 1000
SECONDS = 6.0


@pytest.fixture(scope="module")
def store() -> Iterator[Store]:
    with redis_store() as store:
        yield store


def retries(result: dict[str, object]) -> int:
    requests, calls = result["requests"], result["calls"]
    assert isinstance(requests, int)
    assert isinstance(calls, int)
    return requests - calls


def test_a_shared_budget_spends_one_floor_for_four_processes(store: Store) -> None:
    alone = run(SECONDS, share=False, store=store)
    shared = run(SECONDS, share=True, store=store)
    for result in (alone, shared):
        assert all(w["exchange_failures"] == 0 for w in result["workers"]), result
        assert all(w["errors"] == 0 for w in result["workers"]), result
    calls_alone, calls_shared = int(alone["calls"]), int(shared["calls"])
    # Alone, each process's ratio plus its own floor: four floors.
    assert retries(alone) >= RATIO["ratio"] * calls_alone + 3 * FLOOR, alone
    # Shared, the fleet's ratio plus one floor, and what the exchange's lag
    # (200 ms here) lets through.
    assert retries(shared) <= RATIO["ratio"] * calls_shared + FLOOR + 12, shared
    assert shared["amplification"] < alone["amplification"], (alone, shared)


def test_a_shared_breaker_lets_one_probe_through_per_cooldown(store: Store) -> None:
    alone = run(SECONDS, share=False, store=store, config="breaker.json")
    shared = run(SECONDS, share=True, store=store, config="breaker.json")
    # The cooldown is 1 s: requests per second once open are probes per cooldown.
    assert shared["late_requests_per_second"] <= 1.5, shared
    assert alone["late_requests_per_second"] >= shared["late_requests_per_second"] + 1, (
        alone,
        shared,
    )


def test_a_trip_opens_every_breaker_by_the_next_exchange(store: Store) -> None:
    spread = propagation(store, interval=0.2)
    assert all(w["errors"] == 0 for w in spread["workers"]), spread
    # Each watcher's breaker opened (the fleet's doing: it made no failing
    # call) by its first exchange to begin after the trip reached the store.
    assert all(delay is not None for delay in spread["delays_ms"]), spread
    assert all(spread["in_one_exchange"]), spread


def test_a_store_lost_mid_run_costs_no_caller_an_exception(store: Store) -> None:
    if store.server is None:
        pytest.skip("REDIS_URL is set: the suite cannot kill that store")
    # Down 1.5 s in, back (empty) at 8 s: longer than the 5 s a view stays
    # fresh, so every process goes stale and then live again.
    result = run(10.5, share=True, store=store, outage=(1.5, 8.0))
    for worker in result["workers"]:
        assert worker["errors"] == 0, worker
        assert worker["exchange_failures"] > 0, worker
        # Live, stale while the store is gone, live again once it is back.
        assert worker["health"][-3:] == ["live", "stale", "live"], worker
    # Calls went on through the outage, deciding locally.
    assert result["outage_requests"] > 0, result
