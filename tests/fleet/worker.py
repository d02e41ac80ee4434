"""A Python worker of the fleet run (tests/fleet/harness.py): GETs an
always-failing URL through stoic's httpx transport for a number of seconds,
its policy's budget shared through Redis when asked; prints its calls as
JSON."""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path

import httpx
import redis

import stoic
from stoic.httpx import RetryTransport
from stoic.redis import FleetSync


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--pause", type=float, required=True)
    parser.add_argument("--share", action="store_true")
    parser.add_argument("--config", required=True)
    args = parser.parse_args()

    config = Path(args.config).read_text()
    policy = stoic.Policy.from_json(config)
    sync = FleetSync(policy, redis.Redis.from_url(args.redis), interval=0.2) if args.share else None
    if sync is not None:
        sync.start()
    calls = 0
    with httpx.Client(transport=RetryTransport(policy=policy)) as client:
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            # The service always fails; only the count matters.
            with contextlib.suppress(Exception):
                client.get(args.url)
            calls += 1
            time.sleep(args.pause)
    if sync is not None:
        sync.close()
    print(
        json.dumps(
            {
                "language": "python",
                "calls": calls,
                "exchange_failures": sync.failures if sync else 0,
            }
        )
    )


if __name__ == "__main__":
    main()
