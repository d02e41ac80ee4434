"""Two Python and two Node processes against an always-503 server on
127.0.0.1, each retrying through its own policy, in real time: with the
budget shared through a real redis-server the fleet spends one retry floor,
without it four (tests/fleet/harness.py runs them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import redis_url, run

CONFIG = json.loads((Path(__file__).parent / "config.json").read_text())
RATIO = CONFIG["budget"]["ratio"]
# The floor's retries per window: min_retries_per_sec x window (the runs
# are shorter than one window, so all of it is there from the start).
FLOOR = RATIO["min_retries_per_sec"] * RATIO["window_ms"] / 1000
SECONDS = 6.0


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with redis_url() as url:
        yield url


def retries(result: dict[str, object]) -> int:
    requests, calls = result["requests"], result["calls"]
    assert isinstance(requests, int)
    assert isinstance(calls, int)
    return requests - calls


def test_a_shared_budget_spends_one_floor_for_four_processes(url: str) -> None:
    alone = run(SECONDS, share=False, url_of_redis=url)
    shared = run(SECONDS, share=True, url_of_redis=url)
    for result in (alone, shared):
        assert all(w["exchange_failures"] == 0 for w in result["workers"]), result
    calls_alone, calls_shared = int(alone["calls"]), int(shared["calls"])
    # Alone, each process's ratio plus its own floor: four floors.
    assert retries(alone) >= RATIO["ratio"] * calls_alone + 3 * FLOOR, alone
    # Shared, the fleet's ratio plus one floor, and what the exchange's lag
    # (200 ms here) lets through.
    assert retries(shared) <= RATIO["ratio"] * calls_shared + FLOOR + 12, shared
    assert shared["amplification"] < alone["amplification"], (alone, shared)


def test_a_shared_breaker_lets_one_probe_through_per_cooldown(url: str) -> None:
    alone = run(SECONDS, share=False, url_of_redis=url, config="breaker.json")
    shared = run(SECONDS, share=True, url_of_redis=url, config="breaker.json")
    # The cooldown is 1 s: requests per second once open are probes per cooldown.
    assert shared["late_requests_per_second"] <= 1.5, shared
    assert alone["late_requests_per_second"] >= shared["late_requests_per_second"] + 1, (
        alone,
        shared,
    )
