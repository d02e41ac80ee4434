"""The pumps of the retry step machine (``_steps.py``) for callables:
``sync_loop`` and ``async_loop``.

Each returns the function that runs one call: it begins the call, runs the
attempts (``fn(*args, **kwargs)``), reports how each ended to the steps,
sleeps the delay they answer and asks for the next attempt, until the call
is over. The decorator's wrapper *is* this function (no frame in between:
the success path is measured in nanoseconds), so a call whose scope and key
are fixed begins without a step of its own (``Steps.begin_now``); the
httpx transports, the requests adapter, the aiohttp middleware and agent
runs call it per request. What differs between them is data, the
``Settings``:

- ``start(clock, *args)`` starts and admits the call (the transports plan
  it from the request);
- ``judge`` reports a returned value (no judge: every value is a success);
- ``limit(call, args)`` applies the attempt's limits before it runs (the
  transports set the client's timeouts); ``preempt`` bounds an ``async``
  attempt by the engine's per-attempt timeout instead;
- ``discard`` / ``adiscard`` release a retried value (close a response);
- ``resume`` continues, asynchronously, a call whose sync-looking function
  returned a coroutine (a lambda around a coroutine function): the caller
  awaits what the function gave, and the attempts go on there. Only a
  coroutine: a future or a task a function returns is a value it made on
  purpose (started in the background), returned as it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import CoroutineType
from typing import Any

from . import _stoic
from ._clock import SystemClock
from ._deadline import bounded
from ._records import deliver
from ._runtime import Settings
from ._steps import Start, Steps
from ._stoic import Pending
from .testing import runtime

__all__ = ["async_loop", "sync_loop"]


def sync_loop(
    s: Settings, fn: Callable[..., Any], operation: str, start: Start | None = None
) -> Callable[..., Any]:
    """The function that runs ``fn``'s attempts as one call."""
    steps = Steps(s, operation, start)
    begin, raised, retrying, stopped = steps.begin, steps.raised, steps.retrying, steps.stopped
    policy, records, fixed_clock, started = s.policy, s.records, s.clock, s.started
    judge, discard, limit, resume = s.judge, s.discard, s.limit, s.resume
    begin_now = steps.begin_now
    coroutine = CoroutineType
    # A call that begins alike each time and takes its result as it is
    # makes its first attempt in one native crossing (begin, ``started``,
    # the attempt, its success); anything else it leaves to the loop below
    # as a ``Pending`` (the attempt's exception, a coroutine, a refusal).
    first = None
    if steps.call_start is not None and judge is None and limit is None:
        awaited = coroutine if resume is not None else None
        first = steps.call_start.first(fn, started, SystemClock, awaited).run

    def loop(*args: Any, **kwargs: Any) -> Any:
        pending: Pending | None = None
        if first is not None and runtime.plain:
            clock = fixed_clock or runtime.clock
            done = first(clock, args, kwargs)
            if type(done) is not Pending:
                if records is not None or _stoic.listening:
                    deliver(policy, records)
                return done
            pending, call = done, done.call
        elif begin_now is not None and runtime.plain:
            clock = fixed_clock or runtime.clock
            call = begin_now(clock.monotonic())
            if started is not None:
                started(call)
        elif not runtime.active:  # set_active(False): one attempt, no engine
            return fn(*args, **kwargs)
        else:
            clock = fixed_clock or runtime.clock
            call = begin(clock, args, kwargs)
        exception: BaseException | None = None
        result: Any = None
        try:
            if pending is not None and pending.failed:
                pending.take()  # raises what ended the call after its success
            while call.admitted:
                try:
                    if pending is not None:
                        # The first attempt, made: raises its exception, or
                        # gives the coroutine it returned.
                        made, pending = pending, None
                        result = made.take()
                    else:
                        if limit is not None:
                            limit(call, args)
                        result = fn(*args, **kwargs)
                except Exception as exc:
                    delay = raised(call, clock, exc)
                    if delay is None:
                        raise
                    exception, result = exc, None
                else:
                    if resume is not None and type(result) is coroutine:
                        # The attempt is under way in what it returned: the
                        # call goes on where the caller awaits it.
                        return resume(call, result, args, kwargs)
                    if judge is None:
                        call.on_success(clock.monotonic())
                        return result
                    delay = judge(call, clock, s, result)
                    if delay is None:
                        return result
                    exception = None
                retrying(call, exception, result)
                if discard is not None and result is not None:
                    discard(result)
                clock.sleep(delay)
                call.admit(clock.monotonic())
            raise stopped(call, exception, result)
        except BaseException:
            if not call.finished:
                call.cancel(clock.monotonic())
            raise
        finally:
            if records is not None or _stoic.listening:
                deliver(policy, records)

    return loop


def async_loop(
    s: Settings, fn: Callable[..., Awaitable[Any]], operation: str, start: Start | None = None
) -> Callable[..., Awaitable[Any]]:
    """The coroutine function that awaits ``fn``'s attempts as one call."""
    steps = Steps(s, operation, start)
    begin, raised, retrying, stopped = steps.begin, steps.raised, steps.retrying, steps.stopped
    policy, records, fixed_clock, started = s.policy, s.records, s.clock, s.started
    judge, adiscard, limit, preempt = s.judge, s.adiscard, s.limit, s.preempt
    begin_now = steps.begin_now

    async def loop(*args: Any, **kwargs: Any) -> Any:
        if begin_now is not None and runtime.plain:
            clock = fixed_clock or runtime.clock
            call = begin_now(clock.monotonic())
            if started is not None:
                started(call)
        elif not runtime.active:  # set_active(False): one attempt, no engine
            return await fn(*args, **kwargs)
        else:
            clock = fixed_clock or runtime.clock
            call = begin(clock, args, kwargs)
        exception: BaseException | None = None
        result: Any = None
        try:
            while call.admitted:
                try:
                    if limit is not None:
                        limit(call, args)
                    if preempt:
                        result = await bounded(fn(*args, **kwargs), call.timeout)
                    else:
                        result = await fn(*args, **kwargs)
                except Exception as exc:
                    delay = raised(call, clock, exc)
                    if delay is None:
                        raise
                    exception, result = exc, None
                else:
                    if judge is None:
                        call.on_success(clock.monotonic())
                        return result
                    delay = judge(call, clock, s, result)
                    if delay is None:
                        return result
                    exception = None
                retrying(call, exception, result)
                if adiscard is not None and result is not None:
                    await adiscard(result)
                await clock.asleep(delay)
                call.admit(clock.monotonic())
            raise stopped(call, exception, result)
        except BaseException:
            if not call.finished:
                call.cancel(clock.monotonic())
            raise
        finally:
            if records is not None or _stoic.listening:
                deliver(policy, records)

    return loop
