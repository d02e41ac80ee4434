"""A Python worker of the fleet run (tests/fleet/harness.py).

As a ``caller`` it GETs an always-failing URL through stoic's httpx
transport for a number of seconds; as an ``observer`` it makes one good call
(so its policy knows the scope) and then only watches its breaker, to see the
fleet open it. Either way its policy is attached to Redis when asked; it prints
"ready" and waits for the harness's "go" line before it starts; at the end
it prints a JSON report: its calls, the exceptions its caller saw that were not
stoic's own give-up, the fleet health it went through, when (wall clock, ms)
its breaker first showed open, and every exchange's start and end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

import stoic
from stoic.httpx import RetryTransport
from stoic.redis import FleetSync

#: Seconds between an observer's looks at its breaker.
WATCH = 0.005


def wall_ms() -> float:
    return time.time() * 1000


def timed_exchanges(
    sync: FleetSync, policy: stoic.Policy, scope: str, log: list[list[float]]
) -> None:
    """Records each exchange's wall-clock start and end, whether it worked,
    and whether the breaker showed open once it had: the suite orders the
    processes' exchanges with them. The state is read on the exchange's own
    thread, so a busy machine delaying the watch loop cannot blur which
    exchange opened the breaker."""
    exchange = sync.exchange

    def timed() -> bool:
        start = wall_ms()
        ok = exchange()
        opened = policy.breaker_state(scope) == "open"
        log.append([start, wall_ms(), 1 if ok else 0, 1 if opened else 0])
        return ok

    sync.exchange = timed  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--pause", type=float, required=True)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--role", choices=("caller", "observer"), default="caller")
    parser.add_argument("--share", action="store_true")
    parser.add_argument("--config", required=True)
    args = parser.parse_args()

    policy = stoic.Policy.from_json(Path(args.config).read_text())
    scope = urlsplit(args.url).netloc
    exchanges: list[list[float]] = []
    sync = None
    if args.share:
        # The README's advice: timeouts (0.5 s to connect or answer) and no
        # retries of redis-py's own, so a dead store fails an exchange at once.
        client = redis.Redis.from_url(
            args.redis,
            socket_timeout=0.5,
            socket_connect_timeout=0.5,
            retry=Retry(NoBackoff(), 0),
        )
        sync = FleetSync(policy, client, interval=args.interval)
        timed_exchanges(sync, policy, scope, exchanges)
        sync.start()
    report: dict[str, Any] = {"language": "python", "role": args.role, "calls": 0, "errors": 0}
    health: list[str] = []
    opened_at = None
    with httpx.Client(transport=RetryTransport(policy=policy)) as client_:
        if args.role == "observer":
            ok = str(args.url).rsplit("/", 1)[0] + "/ok"
            client_.get(ok).raise_for_status()
        # Ready: attached to the store, and an observer's scope in use. The
        # harness starts every worker's calls at once, on one "go" line, so
        # a slow start-up (imports on a loaded machine) shifts no worker
        # against the others or against a staged outage.
        print("ready", flush=True)
        sys.stdin.readline()
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            if args.role == "caller":
                try:
                    client_.get(args.url)
                except stoic.RetryError:
                    pass  # the engine's own give-up (circuit_open, budget_exhausted)
                except Exception as error:
                    report["errors"] += 1
                    report.setdefault("error", repr(error))
                report["calls"] += 1
            if opened_at is None and policy.breaker_state(scope) == "open":
                opened_at = wall_ms()
            state = policy.fleet_health(stoic.monotonic())
            if not health or health[-1] != state:
                health.append(state)
            time.sleep(args.pause if args.role == "caller" else WATCH)
    if sync is not None:
        sync.close()
    report |= {
        "exchange_failures": sync.failures if sync else 0,
        "health": health,
        "opened_at_ms": opened_at,
        "exchanges": exchanges,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
