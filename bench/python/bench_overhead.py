"""Overhead of a retry decorator around a no-op, stoic against tenacity,
stamina and backoff, measured side by side in one process.

Two paths, sync and asyncio:

- success: the decorated function succeeds first time;
- one retry: it fails once (ConnectionError) and then succeeds, with
  sleeping stubbed out; "retry decision" = this minus the success path.

Paired rounds: each round times every library and the bare function on
both paths, in an order that rotates and reverses from round to round
(one round first, unrecorded, as a warm-up). Times are the process's CPU
time (``--clock wall`` for wall time), so that other processes' load on a
shared machine does not count against whichever library was running.
Per round, a library's figure is its time minus the bare call's, and the
ratio is peer / stoic; we report medians over rounds of both. Run with
``scripts/py-bench.sh`` (a release build in a scratch venv); ``--json FILE``
also writes the results for ``make bench`` (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

import backoff
import stamina
import tenacity

import stoic

LIBS = ("stoic", "tenacity", "stamina", "backoff")


class NoSleepClock(stoic.SystemClock):
    """The real monotonic clock, with sleeping stubbed out."""

    @staticmethod
    def sleep(seconds: float) -> None:
        return None

    async def asleep(self, seconds: float) -> None:
        return None


def _no_sleep(_seconds: float) -> None:
    return None


async def _no_async_sleep(_seconds: float) -> None:
    return None


def make(lib: str, fn: Callable[..., Any], *, is_async: bool) -> Callable[..., Any]:
    """``fn`` decorated the library's idiomatic way (5 attempts, jittered
    exponential backoff, retry on ConnectionError)."""
    if lib == "none":
        return fn
    if lib == "stoic":
        # The default policy, except the retry budget: the peers have none,
        # and a budget (rightly) refuses a retry on every call after a while.
        return stoic.retry(clock=NoSleepClock(), budget={"ratio": None})(fn)
    if lib == "tenacity":
        return tenacity.retry(
            stop=tenacity.stop_after_attempt(5),
            wait=tenacity.wait_random_exponential(multiplier=1, max=30),
            retry=tenacity.retry_if_exception_type(ConnectionError),
            sleep=_no_async_sleep if is_async else _no_sleep,
            reraise=True,
        )(fn)
    if lib == "stamina":
        return stamina.retry(on=ConnectionError, attempts=5)(fn)
    if lib == "backoff":
        return backoff.on_exception(backoff.expo, ConnectionError, max_tries=5)(fn)
    raise ValueError(lib)


def flaky_sync(fail_first: bool) -> Callable[[], int]:
    state = [0]

    def fn() -> int:
        if fail_first:
            state[0] += 1
            if state[0] % 2 == 1:
                raise ConnectionError("flaky")
        return 1

    return fn


def flaky_async(fail_first: bool) -> Callable[[], Any]:
    state = [0]

    async def fn() -> int:
        if fail_first:
            state[0] += 1
            if state[0] % 2 == 1:
                raise ConnectionError("flaky")
        return 1

    return fn


# CPU time of this process by default: on a shared machine, time spent
# preempted by other processes does not count against whichever library
# happened to be running. ``--clock wall`` measures wall time instead.
_clock = time.process_time_ns


def time_sync(f: Callable[[], Any], n: int) -> float:
    start = _clock()
    for _ in range(n):
        f()
    return (_clock() - start) / n


def time_async(f: Callable[[], Any], n: int) -> float:
    async def loop() -> float:
        start = _clock()
        for _ in range(n):
            await f()
        return (_clock() - start) / n

    return asyncio.run(loop())


def measure(is_async: bool, n: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    """Per-round ns per call of every library and of the bare function
    (key ``none``), for a call that succeeds first time (``success``) and a
    call that fails once and then succeeds (``retried``, ``n // 4`` calls).

    Paired rounds: every round times every candidate, in an order that
    rotates and reverses from round to round, so drift hits all alike."""
    names = ("none", *LIBS)
    make_fn = flaky_async if is_async else flaky_sync
    timer = time_async if is_async else time_sync
    ok = {name: make(name, make_fn(False), is_async=is_async) for name in LIBS}
    once = {name: make(name, make_fn(True), is_async=is_async) for name in LIBS}
    ok["none"] = make_fn(False)  # the bare call that succeeds
    once["none"] = make_fn(False)
    n_retry = max(1, n // 4)
    samples: dict[str, dict[str, list[float]]] = {
        "success": {name: [] for name in names},
        "retried": {name: [] for name in names},
    }
    original_sleep = time.sleep
    warm_up = 1  # rounds run first and not recorded
    for round_ in range(-warm_up, rounds):
        order = [names[(i + round_) % len(names)] for i in range(len(names))]
        if round_ % 2:
            order.reverse()
        # One pass per path, so a block follows another library's block of
        # the same path.
        for name in order:
            ok_ns = timer(ok[name], n)
            if round_ >= 0:
                samples["success"][name].append(ok_ns)
        for name in order:
            # backoff sleeps with time.sleep / asyncio.sleep and takes no sleep function.
            if name == "backoff":
                time.sleep = _no_sleep  # type: ignore[assignment]
                asyncio.sleep = _no_async_sleep  # type: ignore[assignment]
            try:
                once_ns = timer(once[name], n_retry)
            finally:
                time.sleep = original_sleep
                asyncio.sleep = _ORIGINAL_ASYNC_SLEEP
            if round_ >= 0:
                samples["retried"][name].append(once_ns)
    return samples


def summarise(per_round: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Medians over rounds of each library's figure, of the per-round ratios
    peer / stoic, and the ratio of the medians."""
    medians = {lib: statistics.median(per_round[lib]) for lib in LIBS}
    ratios = {
        peer: statistics.median(
            p / s for p, s in zip(per_round[peer], per_round["stoic"], strict=True)
        )
        for peer in LIBS[1:]
    }
    of_medians = {peer: medians[peer] / medians["stoic"] for peer in LIBS[1:]}
    return {"median_ns": medians, "ratio_median": ratios, "ratio_of_medians": of_medians}


_ORIGINAL_ASYNC_SLEEP = asyncio.sleep


def engine_calls(policy: stoic.Policy) -> tuple[Callable[[], None], Callable[[], None]]:
    """The binding's calls alone on ``policy``: begin + on_success, and a
    call with one retry decision (on_network_error + admit) on top."""
    mono = time.monotonic

    def success() -> None:
        call = policy.begin(mono(), "op")
        call.on_success(mono())

    def retry_once() -> None:
        call = policy.begin(mono(), "op")
        call.on_network_error(mono(), "connect_refused")
        call.admit(mono())
        call.on_success(mono())

    return success, retry_once


def raw_engine(n: int, rounds: int) -> dict[str, float]:
    """The binding alone: begin + on_success, and one retry decision
    (on_network_error + admit)."""
    success, retry_once = engine_calls(stoic.Policy(breaker=None, budget={"ratio": None}))
    s = statistics.median(time_sync(success, n) for _ in range(rounds))
    r = statistics.median(time_sync(retry_once, n) for _ in range(rounds))
    return {"success": s, "retry_decision": r - s}


def fleet_attached(n: int, rounds: int) -> dict[str, dict[str, float]]:
    """The engine's hot path with the documented defaults (breaker, ratio
    budget, metrics), on a policy attached to a fleet (one export, no store:
    what a call pays for the counting) and on one that is not, in alternating
    rounds, since this machine's speed drifts between runs."""
    attached = stoic.Policy()
    attached.fleet_export(time.monotonic(), 0)
    layers = {"plain": engine_calls(stoic.Policy()), "fleet": engine_calls(attached)}
    samples: dict[str, dict[str, list[float]]] = {
        name: {"success": [], "retry": []} for name in layers
    }
    for round_ in range(rounds):
        for name in sorted(layers, reverse=round_ % 2 == 1):
            success, retry_once = layers[name]
            samples[name]["success"].append(time_sync(success, n))
            samples[name]["retry"].append(time_sync(retry_once, n))
    out = {}
    for name, times in samples.items():
        s, r = statistics.median(times["success"]), statistics.median(times["retry"])
        out[name] = {"success": s, "retry_decision": r - s}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--json", help="also write the results to this file, as JSON")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args()
    global _clock
    _clock = time.process_time_ns if args.clock == "cpu" else time.perf_counter_ns
    stamina.set_testing(True, attempts=5)  # stamina's own switch: no waiting
    # stamina logs every retry by default (to stderr when logging is not
    # configured); stoic's records are off by default: compare like with like.
    stamina.instrumentation.set_on_retry_hooks([])
    versions = {name: metadata.version(name) for name in LIBS}
    versions["python"] = platform.python_version()
    print(f"# Python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"# {args.rounds} paired rounds, {args.clock} time; medians of ns per call minus")
    print("# the bare call's,", end=" ")
    print("and medians of the per-round ratios peer / stoic")
    print("# " + ", ".join(f"{name} {versions[name]}" for name in LIBS))
    raw = raw_engine(args.n, args.rounds)
    print(
        f"engine alone: begin+on_success {raw['success']:.0f} ns; "
        f"one retry decision (report + admit) {raw['retry_decision']:.0f} ns"
    )
    fleet = fleet_attached(args.n, args.rounds)
    plain_ns, fleet_ns = fleet["plain"]["success"], fleet["fleet"]["success"]
    print(
        f"engine alone, defaults: begin+on_success {plain_ns:.0f} ns,"
        f" with a fleet attached {fleet_ns:.0f} ns"
    )
    header = (
        "| path | " + " | ".join(LIBS) + " | " + " | ".join(f"{p}/stoic" for p in LIBS[1:]) + " |"
    )
    print(header)
    print("|" + "---|" * (1 + 2 * len(LIBS) - 1))
    cases: dict[str, dict[str, dict[str, float]]] = {}
    for is_async in (False, True):
        samples = measure(is_async, args.n, args.rounds)
        success, retried = samples["success"], samples["retried"]
        rounds = range(args.rounds)
        over = {lib: [success[lib][r] - success["none"][r] for r in rounds] for lib in LIBS}
        # A retried call is two attempts; the retry decision is the extra
        # cost over a first-time success (and over the bare second call),
        # within the same round.
        once = {lib: [retried[lib][r] - retried["none"][r] for r in rounds] for lib in LIBS}
        decision = {lib: [once[lib][r] - over[lib][r] for r in rounds] for lib in LIBS}
        kind = "asyncio" if is_async else "sync"
        for label, per_round in (
            (f"{kind} success", over),
            (f"{kind} fails once, then succeeds", once),
            (f"{kind} one retry decision", decision),
        ):
            summary = summarise(per_round)
            cases[label] = summary
            row = summary["median_ns"]
            cells = " | ".join(f"{row[lib] / 1000:.2f} us" for lib in LIBS)
            ratios = " | ".join(f"{summary['ratio_median'][lib]:.1f}x" for lib in LIBS[1:])
            print(f"| {label} | {cells} | {ratios} |")
    if args.json:
        result = {
            "clock": args.clock,
            "rounds": args.rounds,
            "n_success": args.n,
            "n_retry": max(1, args.n // 4),
            "versions": versions,
            "engine_alone_ns": raw,
            "fleet_attached_ns": fleet,
            "cases": cases,
        }
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)
            out.write("\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
