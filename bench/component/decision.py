"""One decision's cost in Python: the native extension against the
component in wasmtime (not a test).

Both run the same loop on a policy with the defaults (breaker, ratio
budget, metrics on): a call admitted and succeeding at once ("success"),
and one retry decision (a 503, its retry decision and the second admission:
a call that fails once minus a call that succeeds). CPU time, rounds in
alternating order, medians. Run by scripts/component-bench.sh in the bench
venv (a release wheel of stoic, wasmtime from PyPI); prints JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

import stoic

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "component/tests/python"))
from engine import Engine, record
from wasmtime.component import Variant

Layer = tuple[Callable[[], None], Callable[[], None]]


def native() -> Layer:
    policy = stoic.Policy(seed=1)
    clock = [0.0]

    def success() -> None:
        call = policy.start(clock[0], "get", method="GET")
        policy.before_attempt(clock[0], call)
        policy.on_outcome(clock[0], call)
        clock[0] += 0.001

    def retry_once() -> None:
        call = policy.start(clock[0], "get", method="GET")
        policy.before_attempt(clock[0], call)
        decision = policy.on_outcome(clock[0], call, status=503)
        assert decision["kind"] == "retry", decision
        clock[0] += decision["delay"]
        policy.before_attempt(clock[0], call)
        policy.on_outcome(clock[0], call)
        clock[0] += 0.001

    return success, retry_once


def component() -> Layer:
    engine = Engine()
    store = engine.store
    create, start, before, on_outcome, drop = (
        engine.func("policy", name)
        for name in (
            "[static]policy.create",
            "[method]policy.start",
            "[method]policy.before-attempt",
            "[method]policy.on-outcome",
            "[method]call.finished",
        )
    )
    del drop
    policy = create(store, '{"seed": 1}')
    spec = record(
        operation="get",
        scope="",
        idempotent=None,
        method="GET",
        idempotency_key=None,
        max_attempts=None,
        backoff_json=None,
    )
    ok = record(kind=Variant("success"), headers=[], wall_now_unix_ms=None, detail=None)
    unavailable = record(
        kind=Variant("status", 503), headers=[], wall_now_unix_ms=None, detail=None
    )
    clock = [0]

    def success() -> None:
        call = start(store, policy, clock[0], spec)
        before(store, policy, clock[0], call)
        on_outcome(store, policy, clock[0], call, ok)
        call.drop(store)
        clock[0] += 1

    def retry_once() -> None:
        call = start(store, policy, clock[0], spec)
        before(store, policy, clock[0], call)
        decision = on_outcome(store, policy, clock[0], call, unavailable)
        assert decision.tag == "retry", decision
        clock[0] += getattr(decision.payload, "delay-ms")
        before(store, policy, clock[0], call)
        on_outcome(store, policy, clock[0], call, ok)
        call.drop(store)
        clock[0] += 1

    return success, retry_once


def ns_per_call(body: Callable[[], None], n: int) -> float:
    start = time.process_time_ns()
    for _ in range(n):
        body()
    return (time.process_time_ns() - start) / n


def measure(layer: Layer, rounds: int, n: int) -> dict[str, Any]:
    success, retry_once = layer
    successes, decisions = [], []
    for round_ in range(-2, rounds):
        if round_ % 2 == 0:
            s, r = ns_per_call(success, n), ns_per_call(retry_once, n)
        else:
            r, s = ns_per_call(retry_once, n), ns_per_call(success, n)
        if round_ >= 0:
            successes.append(s)
            decisions.append(r - s)
    return {"success_ns": round(median(successes)), "retry_decision_ns": round(median(decisions))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    result = {
        "native": measure(native(), args.rounds, args.n),
        "wasmtime": measure(component(), args.rounds, args.n),
        "rounds": args.rounds,
        "n": args.n,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
