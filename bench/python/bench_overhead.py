"""Overhead of a retry decorator around a no-op, stoic against tenacity,
stamina and backoff, measured side by side in one process.

Two paths, sync and asyncio:

- success: the decorated function succeeds first time;
- one retry: it fails once (ConnectionError) and then succeeds, with
  sleeping stubbed out; "retry decision" = this minus the success path.

Each round times every library once, in a shuffled order (paired,
alternating rounds); the figures are medians over rounds, minus the cost
of calling the bare function, and ratios are peer / stoic. Run with
``scripts/py-bench.sh`` (a release build in a scratch venv).
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
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


def time_sync(f: Callable[[], Any], n: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(n):
        f()
    return (time.perf_counter_ns() - start) / n


def time_async(f: Callable[[], Any], n: int) -> float:
    async def loop() -> float:
        start = time.perf_counter_ns()
        for _ in range(n):
            await f()
        return (time.perf_counter_ns() - start) / n

    return asyncio.run(loop())


def measure(is_async: bool, fail_first: bool, n: int, rounds: int) -> dict[str, float]:
    """Median ns per call over ``rounds`` for each library and the bare
    function (key ``none``)."""
    names = ("none", *LIBS)
    make_fn = flaky_async if is_async else flaky_sync
    timer = time_async if is_async else time_sync
    funcs = {name: make(name, make_fn(fail_first), is_async=is_async) for name in LIBS}
    funcs["none"] = make_fn(False)  # the bare call that succeeds
    samples: dict[str, list[float]] = {name: [] for name in names}
    original_sleep = time.sleep
    for _ in range(rounds):
        order = list(names)
        random.shuffle(order)
        for name in order:
            # backoff sleeps with time.sleep and takes no sleep function.
            time.sleep = _no_sleep if (name == "backoff" and fail_first) else original_sleep
            if name == "backoff" and fail_first and is_async:
                asyncio.sleep = _no_async_sleep  # type: ignore[assignment]
            try:
                samples[name].append(timer(funcs[name], n))
            finally:
                time.sleep = original_sleep
                asyncio.sleep = _ORIGINAL_ASYNC_SLEEP
    return {name: statistics.median(values) for name, values in samples.items()}


_ORIGINAL_ASYNC_SLEEP = asyncio.sleep


def raw_engine(n: int, rounds: int) -> dict[str, float]:
    """The binding alone: begin + on_success, and one retry decision
    (on_network_error + admit)."""
    policy = stoic.Policy(breaker=None, budget={"ratio": None})
    mono = time.monotonic

    def success() -> None:
        call = policy.begin(mono(), "op")
        call.on_success(mono())

    def retry_once() -> None:
        call = policy.begin(mono(), "op")
        call.on_network_error(mono(), "connect_refused")
        call.admit(mono())
        call.on_success(mono())

    s = statistics.median(time_sync(success, n) for _ in range(rounds))
    r = statistics.median(time_sync(retry_once, n) for _ in range(rounds))
    return {"success": s, "retry_decision": r - s}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--n", type=int, default=20_000)
    args = parser.parse_args()
    stamina.set_testing(True, attempts=5)  # stamina's own switch: no waiting
    # stamina logs every retry by default (to stderr when logging is not
    # configured); stoic's records are off by default: compare like with like.
    stamina.instrumentation.set_on_retry_hooks([])
    n_retry = max(1, args.n // 4)
    print(f"# Python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"# {args.rounds} rounds, medians; ns per call, minus the bare call")
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in LIBS)
    print(f"# {versions}")
    raw = raw_engine(args.n, args.rounds)
    print(
        f"engine alone: begin+on_success {raw['success']:.0f} ns; "
        f"one retry decision (report + admit) {raw['retry_decision']:.0f} ns"
    )
    header = (
        "| path | " + " | ".join(LIBS) + " | " + " | ".join(f"{p}/stoic" for p in LIBS[1:]) + " |"
    )
    print(header)
    print("|" + "---|" * (1 + 2 * len(LIBS) - 1))
    for is_async in (False, True):
        success = measure(is_async, False, args.n, args.rounds)
        retried = measure(is_async, True, n_retry, args.rounds)
        kind = "asyncio" if is_async else "sync"
        over = {lib: success[lib] - success["none"] for lib in LIBS}
        # A retried call is two attempts; the retry decision is the extra
        # cost over a first-time success (and over the bare second call).
        decision = {lib: retried[lib] - retried["none"] - over[lib] for lib in LIBS}
        for label, row in (
            (f"{kind} success", over),
            (f"{kind} one retry decision", decision),
        ):
            cells = " | ".join(f"{row[lib] / 1000:.2f} us" for lib in LIBS)
            ratios = " | ".join(f"{row[lib] / row['stoic']:.1f}x" for lib in LIBS[1:])
            print(f"| {label} | {cells} | {ratios} |")


if __name__ == "__main__":
    main()
