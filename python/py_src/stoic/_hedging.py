"""Hedged calls on asyncio: copies of a slow call, the first answer winning.

The engine decides everything (``stoic._stoic.HedgedCall``): when a copy
goes out, which answer wins, which copies to cancel, and when the call
gives up. This pump only runs what it is told:

- ``send``: start copy ``n`` as an asyncio task (its own per-attempt
  timeout from the step), then ask again;
- ``wait``: wait for the first copy to end, or for ``until`` (the next
  hedge's time), whichever comes first, then report or ask again;
- ``done``: cancel the losers, return the winner's value;
- ``give_up``: cancel what is left, raise (or, for a transport, return the
  last response, as its plain loop does).

Losers are cancelled as tasks and awaited before the call returns, so their
connections are closed by the time the caller has its answer; a copy that
finished but was never reported (it lost a race) has its value discarded.
The engine counts a cancelled copy neither as a failure nor as a success.
Whatever way the call ends (the caller's own cancellation included), no
copy is left running and a call not yet over is cancelled in the engine.

Hedging needs a call that is safe to repeat; the engine refuses any other
(``ConfigError`` ``not_idempotent``). Sync code is not hedged: a thread
cannot be cancelled, so a losing copy would run on (``refuse_sync``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ._classify import classify_exception, classify_result, exception_detail
from ._clock import Clock
from ._deadline import bounded
from ._errors import ConfigError, RetryError
from ._runtime import Settings, failure, stopped, tell
from ._steps import delivering
from ._stoic import HedgedCall, HedgingConfig
from .testing import runtime

__all__ = ["Judge", "hedged_function", "hedging_config", "refuse_sync", "run_hedged"]

#: Reports copy ``copy``'s returned value: the engine's next step.
Judge = Callable[[HedgedCall, Clock, int, Any], dict[str, Any]]
#: Runs one copy, given its ``send`` step (``copy``, ``timeout``, ...).
Send = Callable[[dict[str, Any]], Awaitable[Any]]


def hedging_config(value: object) -> HedgingConfig | None:
    """``hedging=`` as the engine's settings: None (no hedging), a dict in
    the Python spelling (checked now: a wrong one is a ``ConfigError``
    naming the field), or a ``HedgingConfig``."""
    if value is None or isinstance(value, HedgingConfig):
        return value
    if isinstance(value, Mapping):
        return HedgingConfig.from_option(value)
    raise ConfigError(
        f"wrong_type: hedging: must be a dict of hedging settings or a HedgingConfig, "
        f"not {type(value).__name__}",
        "wrong_type",
        "hedging",
    )


def refuse_sync(caller: str) -> ConfigError:
    """The error for ``hedging=`` on sync code."""
    message = (
        f"inconsistent: hedging: {caller} hedges only async code: a losing copy must be "
        "cancelled, and a thread cannot be; use an async function (or AsyncRetryTransport)"
    )
    return ConfigError(message, "inconsistent", "hedging")


def _report_raised(
    call: HedgedCall, clock: Clock, s: Settings, copy: int, exc: BaseException
) -> dict[str, Any]:
    """Copy ``copy`` raised ``exc``: classified as the retry loop does."""
    outcome = classify_exception(exc, s.on, s.classify)
    detail = exception_detail(exc, outcome)
    now = clock.monotonic()
    if outcome[0] == "status":
        return call.on_status(
            now, copy, outcome[1], outcome[2], detail=detail, wall_now=clock.wall()
        )
    if outcome[0] == "network":
        return call.on_network_error(now, copy, outcome[1], detail)
    text = outcome[2] if isinstance(outcome[2], str) else detail
    if outcome[0] == "raised":
        return call.on_raised(now, copy, outcome[1], text)
    return call.on_rejected(now, copy, outcome[1], text)


async def _discard(value: Any, adiscard: Callable[[Any], Awaitable[object]] | None) -> None:
    """Releases a value no one will get (a losing copy's response)."""
    if adiscard is not None and value is not None:
        with contextlib.suppress(Exception):
            await adiscard(value)


async def run_hedged(
    call: HedgedCall,
    clock: Clock,
    s: Settings,
    send: Send,
    judge: Judge,
    *,
    returns_last: bool = False,
) -> Any:
    """Drives ``call`` to its end (see the module). ``judge`` reports a
    copy's returned value; an exception is classified as the retry loop
    classifies it. ``returns_last``: a give-up after a returned value
    returns that value (a transport's last response) instead of raising."""
    tasks: dict[asyncio.Future[Any], int] = {}
    # What the last reported copy ended with, for the give-up.
    last_exception: BaseException | None = None
    last_result: Any = None
    try:
        step = call.poll(clock.monotonic())
        while True:
            kind = step["kind"]
            if kind == "send":
                tasks[asyncio.ensure_future(send(step))] = step["copy"]
                step = call.poll(clock.monotonic())
            elif kind == "wait":
                step, reported = await _wait(call, clock, s, tasks, step["until"], judge)
                if reported is not None:
                    last_exception, last_result = reported
                    if step["kind"] == "wait" or step["kind"] == "send":
                        # The failed copy's value is not the answer: release it.
                        await _discard(last_result, s.adiscard)
            elif kind == "done":
                # The copy just reported won: its value is the answer.
                return last_result
            else:  # give_up
                delivering(s)
                if last_exception is not None:
                    tell("on_give_up", s.on_give_up, call, last_exception, None)  # type: ignore[arg-type]
                    error = failure(call, s, last_exception)  # type: ignore[arg-type]
                    if error is None:
                        raise last_exception
                    raise error from last_exception
                if last_result is not None:
                    if returns_last:
                        return last_result
                    tell("on_give_up", s.on_give_up, call, None, last_result)  # type: ignore[arg-type]
                    raise RetryError(call.decision, last_result=last_result)
                raise stopped(call, s, None, None)  # type: ignore[arg-type]
    finally:
        # No copy outlives the call: cancel the rest and wait for them, so
        # their connections are closed before the caller goes on.
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
            for task in tasks:
                # A copy that answered before it was cancelled: release it.
                if not task.cancelled() and task.exception() is None:
                    await _discard(task.result(), s.adiscard)
        if not call.finished:
            call.cancel(clock.monotonic())
        delivering(s)


async def _wait(
    call: HedgedCall,
    clock: Clock,
    s: Settings,
    tasks: dict[asyncio.Future[Any], int],
    until: float | None,
    judge: Judge,
) -> tuple[dict[str, Any], tuple[BaseException | None, Any] | None]:
    """Waits for the first copy to end or for ``until``; the next step,
    and, when a copy ended (it is reported, and its task leaves
    ``tasks``), what it ended with: (its exception, its value)."""
    timer: asyncio.Future[Any] | None = None
    waiting: set[asyncio.Future[Any]] = set(tasks)
    if until is not None:
        timer = asyncio.ensure_future(clock.asleep(max(0.0, until - clock.monotonic())))
        waiting.add(timer)
    if not waiting:
        # The engine never waits on nothing; asking again is always safe.
        return call.poll(clock.monotonic()), None
    try:
        ended, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if timer is not None and not timer.done():
            timer.cancel()
    copies = sorted((tasks[t], t) for t in ended if t in tasks)
    if not copies:
        return call.poll(clock.monotonic()), None
    # One copy at a time, lowest first: any other that ended is still done
    # at the next wait, and is reported then (unless the call is over).
    copy, task = copies[0]
    del tasks[task]
    exception = task.exception()
    if exception is not None:
        if not isinstance(exception, Exception):
            raise exception  # an interrupt inside a copy ends the call
        return _report_raised(call, clock, s, copy, exception), (exception, None)
    value = task.result()
    return judge(call, clock, copy, value), (None, value)


def hedged_function(
    s: Settings, fn: Callable[..., Awaitable[Any]], operation: str, hedging: HedgingConfig
) -> Callable[..., Awaitable[Any]]:
    """The decorator's coroutine function for ``hedging=``: each call is a
    hedged call, each copy one ``fn(*args, **kwargs)`` under the copy's
    timeout."""

    def judge(call: HedgedCall, clock: Clock, copy: int, value: Any) -> dict[str, Any]:
        validate = s.validate
        verdict = classify_result(validate(value), value) if validate is not None else None
        if verdict is None:
            return call.on_success(clock.monotonic(), copy)
        return call.on_rejected(clock.monotonic(), copy, verdict[1], verdict[2])

    async def loop(*args: Any, **kwargs: Any) -> Any:
        if not runtime.active:  # set_active(False): one attempt, no engine
            return await fn(*args, **kwargs)
        clock = s.clock or runtime.clock
        scope, key = s.scope, s.key
        call = s.policy.start_hedged(
            clock.monotonic(),
            operation,
            scope=scope(*args, **kwargs) if callable(scope) else scope,
            idempotent=s.idempotent,
            key=key(*args, **kwargs) if callable(key) else key,
            hedging=hedging,
        )
        if s.started is not None:
            s.started(call)  # type: ignore[arg-type]

        async def send(step: dict[str, Any]) -> Any:
            attempt = fn(*args, **kwargs)
            return await bounded(attempt, step["timeout"]) if s.preempt else await attempt

        return await run_hedged(call, clock, s, send, judge)

    return loop
