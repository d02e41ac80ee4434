"""The fleet exchange against a real redis-server on 127.0.0.1 (started here
on a free port; `scripts/redis-tools.sh` installs it): policies share one
retry floor, a store outage never reaches a call, and a restarted store
resyncs without counting twice."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.retry import Retry

import stoic
from stoic.redis import AsyncFleetSync, FleetSync

# Skipped where redis-server is missing, except in CI and as root, where
# `scripts/redis-tools.sh` installs it: a missing install step fails there.
MUST_RUN = os.environ.get("CI") == "true" or (hasattr(os, "getuid") and os.getuid() == 0)
pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None and not MUST_RUN,
    reason="redis-server is not installed (scripts/redis-tools.sh)",
)

# No breaker: every call reaches the service. The ratio budget's only
# allowance is its floor, one retry per second over a 10 s window: 10
# retries per window, per process alone or for the fleet when shared.
CONFIG = {
    "seed": 1,
    "max_attempts": 3,
    "breaker": None,
    "backoff": {"strategy": "constant", "base": 0.01, "cap": 0.01},
    "budget": {
        "ratio": {
            "ratio": 0.0,
            "min_retries_per_sec": 1.0,
            "min_concurrent_retries": 0,
            "window": 10,
            "buckets": 10,
        }
    },
}


class RedisServer:
    def __init__(self, folder: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            cwd=self.folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = self.client()
        for _ in range(200):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def client(self) -> redis.Redis:
        # The README's client: timeouts, and no retries of redis-py's own.
        return redis.Redis(
            host="127.0.0.1",
            port=self.port,
            socket_timeout=1,
            socket_connect_timeout=1,
            retry=Retry(NoBackoff(), 0),
        )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Clock:
    """A virtual monotonic clock, shared by a policy and its exchange."""

    def __init__(self) -> None:
        self.t = 1_000.0

    def __call__(self) -> float:
        return self.t


def failing_call(policy: stoic.Policy, now: float) -> int:
    """One call whose every attempt gets a 503: the attempts it made."""
    call = policy.begin(now, "get", "api", True)
    if not call.admitted:
        return 0
    attempts, t = 1, now
    while True:
        delay = call.on_status(t + 0.001, 503)
        if delay is None:
            return attempts
        t += 0.001 + delay
        if not call.admit(t):
            return attempts
        attempts += 1


def run(server: RedisServer, shared: bool) -> int:
    """Four processes, 50 calls each in one window: the retries made."""
    clocks = [Clock() for _ in range(4)]
    policies = [stoic.Policy(**CONFIG) for _ in range(4)]
    syncs = [
        FleetSync(p, server.client(), now=c, prefix=f"t{shared}:")
        for p, c in zip(policies, clocks, strict=True)
    ]
    if shared:
        for sync in syncs:
            assert sync.exchange()
    attempts = 0
    for _ in range(50):
        for policy, clock, sync in zip(policies, clocks, syncs, strict=True):
            clock.t += 0.1
            attempts += failing_call(policy, clock.t)
            if shared:
                assert sync.exchange()
    return attempts - 4 * 50


def test_four_processes_share_one_retry_floor(server: RedisServer) -> None:
    assert run(server, shared=False) == 40
    shared = run(server, shared=True)
    # One floor for the fleet, plus what the view's lag lets through (each
    # process sees the others' calls as of its own last exchange).
    assert 10 <= shared <= 16, shared


def test_a_store_outage_never_reaches_a_call_and_a_restart_resyncs(server: RedisServer) -> None:
    clock = Clock()
    errors: list[BaseException] = []
    policy = stoic.Policy(**CONFIG)
    sync = FleetSync(policy, server.client(), now=clock, on_error=errors.append)
    other = FleetSync(stoic.Policy(**CONFIG), server.client(), now=clock)
    assert sync.exchange()
    assert other.exchange()
    assert policy.fleet_health(clock()) == "live"

    server.stop()
    clock.t += 1
    assert failing_call(policy, clock()) == 3  # decisions go on, locally
    assert not sync.exchange()
    assert isinstance(errors[-1], redis.ConnectionError)
    clock.t += 6
    assert not sync.exchange()
    assert policy.fleet_health(clock()) == "stale"
    changes = [(e["from"], e["to"]) for e in policy.events() if e["kind"] == "fleet_health"]
    assert changes == [("detached", "live"), ("live", "stale")]
    assert failing_call(policy, clock()) == 3

    server.start()
    assert sync.exchange()  # resends the delta the outage held back
    assert sync.exchange()  # and what was counted since
    assert policy.fleet_health(clock()) == "live"
    client = server.client()
    stored = {
        key: client.hgetall(key) for key in client.scan_iter(match=f"{sync.prefix}{{api}}:b:*")
    }
    requests = sum(int(v.get(b"r", 0)) for v in stored.values())
    retries = sum(int(v.get(b"t", 0)) for v in stored.values())
    # The restarted store holds this process's two calls once each.
    assert (requests, retries) == (2, 4)
    # Another process sees them beside its own call.
    failing_call(other.policy, clock())
    assert other.exchange()
    assert other.policy.budget_status(clock(), "api")["ratio"]["requests"] == 3


def test_the_thread_exchanges_in_the_background(server: RedisServer) -> None:
    policy = stoic.Policy(**CONFIG)
    with FleetSync(policy, server.client(), interval=0.02) as sync:
        failing_call(policy, stoic._clock.monotonic())
        deadline = time.monotonic() + 5
        while sync.exchanges < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert sync.exchanges >= 3
    assert sync.failures == 0
    assert policy.fleet_health(stoic._clock.monotonic()) == "live"


def test_asyncio_clients_run_it_as_a_task(server: RedisServer) -> None:
    async def main() -> int:
        policy = stoic.Policy(**CONFIG)
        client = redis.asyncio.Redis(host="127.0.0.1", port=server.port)
        async with AsyncFleetSync(policy, client, interval=0.02) as sync:
            failing_call(policy, stoic._clock.monotonic())
            for _ in range(250):
                if sync.exchanges >= 3:
                    break
                await asyncio.sleep(0.01)
        await client.aclose()
        assert sync.failures == 0
        return sync.exchanges

    assert asyncio.run(main()) >= 3


def test_an_interval_must_be_positive(server: RedisServer) -> None:
    with pytest.raises(ValueError, match="interval"):
        FleetSync(stoic.Policy(), server.client(), interval=0)


BREAKER = {
    "seed": 1,
    "max_attempts": 1,
    "budget": {"ratio": None},
    "breaker": {
        "trip": {"kind": "consecutive_failures", "threshold": 2},
        "cooldown": 1.0,
        "half_open": {"max_probes": 1, "success_threshold": 1},
    },
}


def trip(policy: stoic.Policy) -> None:
    """Two calls answered 503: the BREAKER configs' threshold, so the
    scope's breaker opens."""
    clock = stoic._clock.monotonic
    for _ in range(2):
        policy.begin(clock(), "get", "api", True).on_status(clock(), 503)


def test_the_breaker_opens_everywhere_and_one_process_probes(server: RedisServer) -> None:
    # Real time: the store's clock and the processes' advance together, as
    # in a deployment (the shared open period is kept in the store's time).
    clock = stoic._clock.monotonic
    a, b = stoic.Policy(**BREAKER), stoic.Policy(**BREAKER)
    sync_a = FleetSync(a, server.client(), now=clock)
    sync_b = FleetSync(b, server.client(), now=clock)
    # B has called the scope before (a healthy call), so it shares it.
    assert b.begin(clock(), "get", "api", True).on_success(clock())
    assert sync_a.exchange()
    assert sync_b.exchange()

    trip(a)
    assert a.breaker_state("api") == "open"
    assert b.breaker_state("api") == "closed"
    assert sync_a.exchange()
    assert sync_b.exchange()
    assert b.breaker_state("api") == "open", "B opened within one exchange of A's trip"
    assert not b.begin(clock(), "get", "api", True).admitted

    time.sleep(1.1)  # the cooldown elapses in both
    assert sync_a.exchange()
    assert sync_b.exchange()
    # No process asked for the probe lease: neither had a call to make.
    assert not a.begin(clock(), "get", "api", True).admitted, "A's call asks for the lease"
    assert sync_a.exchange()  # A asks first and gets the lease
    assert sync_b.exchange()
    probes = 0
    b_call = b.begin(clock(), "get", "api", True)
    assert not b_call.admitted, "B waits for the fleet's probe"
    a_call = a.begin(clock(), "get", "api", True)
    assert a_call.admitted
    probes += 1
    assert a_call.on_success(clock() + 0.01)
    assert a.breaker_state("api") == "closed"
    assert sync_a.exchange()
    assert sync_b.exchange()
    assert b.breaker_state("api") == "closed", "A's verdict closed B"
    assert probes == 1
    assert b.begin(clock(), "get", "api", True).admitted


def test_a_trip_is_sent_at_once_not_at_the_next_interval(server: RedisServer) -> None:
    clock = stoic._clock.monotonic
    a, b = stoic.Policy(**BREAKER), stoic.Policy(**BREAKER)
    assert b.begin(clock(), "get", "api", True).on_success(clock())
    sync_b = FleetSync(b, server.client(), now=clock)
    assert sync_b.exchange()
    with FleetSync(a, server.client(), interval=60) as sync_a:
        assert sync_a.exchanges == 1  # the attaching one
        trip(a)
        deadline = time.monotonic() + 5
        while sync_a.exchanges < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sync_a.exchanges == 2, "the trip went out within moments, not in 60 s"
        assert sync_b.exchange()
        assert b.breaker_state("api") == "open"


def test_a_restarted_store_does_not_close_an_open_breaker(server: RedisServer) -> None:
    clock = stoic._clock.monotonic
    slow = {**BREAKER, "breaker": {**BREAKER["breaker"], "cooldown": 60.0}}
    a, b = stoic.Policy(**slow), stoic.Policy(**slow)
    assert b.begin(clock(), "get", "api", True).on_success(clock())
    sync_a = FleetSync(a, server.client(), now=clock)
    sync_b = FleetSync(b, server.client(), now=clock)
    assert sync_a.exchange()
    assert sync_b.exchange()
    trip(a)
    assert sync_a.exchange()
    assert sync_b.exchange()
    assert b.breaker_state("api") == "open"
    server.stop()
    server.start()  # no persistence: the store lost the open period
    for sync in (sync_b, sync_a, sync_b):
        for _ in range(50):  # the clients reconnect
            if sync.exchange():
                break
            time.sleep(0.02)
    assert a.breaker_state("api") == "open"
    assert b.breaker_state("api") == "open", "B kept the breaker open and told the store again"
    fresh = stoic.Policy(**slow)
    assert fresh.begin(clock(), "get", "api", True).on_success(clock())
    assert FleetSync(fresh, server.client(), now=clock).exchange()
    assert fresh.breaker_state("api") == "open", "a process joining after the restart learns of it"


def test_an_idle_process_hears_of_the_fleet_without_a_call(server: RedisServer) -> None:
    clock = stoic._clock.monotonic
    heard: list[dict[str, object]] = []
    a, b = stoic.Policy(**BREAKER), stoic.Policy(records=heard.append, **BREAKER)
    assert b.begin(clock(), "get", "api", True).on_success(clock())
    sync_a = FleetSync(a, server.client(), now=clock)
    sync_b = FleetSync(b, server.client(), now=clock)
    assert sync_a.exchange()
    assert sync_b.exchange()
    trip(a)
    assert sync_a.exchange()
    assert sync_b.exchange()
    # B made no call since: the exchange itself handed its events to records=
    # (with the log record of B's one call, which records= turns on).
    fleet = [(e["kind"], e["to"], e.get("reason")) for e in heard if e["kind"] != "log"]
    assert fleet == [
        ("fleet_health", "live", None),
        ("breaker_transition", "open", "fleet_opened"),
        # "Implementing Smart Retry Logic for Transient Errors": a breaker
        # open is critical.
        ("alert_changed", "critical", None),
    ]
    assert sync_b.health() == "live"


def test_a_failing_store_is_not_asked_again_at_once(server: RedisServer) -> None:
    clock = stoic._clock.monotonic
    a = stoic.Policy(**BREAKER)
    assert a.begin(clock(), "get", "api", True).on_success(clock())
    client = server.client()
    server.stop()
    with FleetSync(a, client, interval=60, now=clock) as sync:
        assert sync.failures == 1  # the attaching exchange
        # A trip is news, sent at once when the store answers; while it
        # fails, news waits for the interval instead of asking every 50 ms.
        trip(a)
        assert a.breaker_state("api") == "open"
        time.sleep(0.5)
        assert sync.failures == 1
    assert sync.failures == 2  # the last exchange, on leaving
