"""The retry loop, once: ``sync_loop`` and ``async_loop`` build it.

Each returns the function that runs one call: it starts the engine call,
runs the attempts (``fn(*args, **kwargs)``), reports how each ended
through ``_steps``, sleeps the engine's delay and asks for the next
attempt, until the call is over. The decorator's wrapper *is* this
function (no frame in between: the success path is measured in
nanoseconds); the httpx transports call it per request. What differs
between them is data:

- ``start(clock, *args)`` starts and admits the call (the transports plan
  it from the request); without it, the call is begun from the
  ``operation``, ``settings.scope`` and ``settings.key`` (values, or
  functions of the call's arguments);
- ``settings.judge(call, clock, settings, result)`` reports a returned
  value and gives the delay before the next attempt, or None when the call
  is over (return the value); no judge means every value is a success;
- ``settings.limit(call, args)`` applies the attempt's limits before it
  runs (the transports set httpx's timeouts); ``settings.preempt`` bounds
  an ``async`` attempt by the engine's per-attempt timeout instead;
- ``settings.discard`` / ``adiscard`` release a retried value (close a
  response);
- ``settings.resume`` continues, asynchronously, a call whose sync-looking
  function returned a coroutine (a lambda around a coroutine function): the
  caller awaits what the function gave, and the attempts go on there. Only
  a coroutine: a future or a task a function returns is a value it made
  on purpose (started in the background), returned as it is.

A ``BaseException`` that is not an ``Exception`` (cancellation, an
interrupt) and an exception of ``validate=`` or ``classify=`` end the call
(``cancel``: its breaker permit goes back) and propagate as themselves; the
hooks (``on_retry=``, ``on_give_up=``, records) never do (``_hooks.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import CoroutineType
from typing import Any

from . import _records
from ._deadline import bounded
from ._records import deliver
from ._runtime import Settings, stopped, tell
from ._steps import failed
from ._stoic import Call
from .testing import runtime

__all__ = ["async_loop", "sync_loop"]


#: Starts and admits a call for the given arguments (the transports' plan).
Start = Callable[..., Call]


def sync_loop(
    s: Settings, fn: Callable[..., Any], operation: str, start: Start | None = None
) -> Callable[..., Any]:
    """The function that runs ``fn``'s attempts as one call."""
    policy, begin, records, fixed_clock = s.policy, s.policy.begin, s.records, s.clock
    on_retry, started, resume = s.on_retry, s.started, s.resume
    idempotent, overrides, judge, discard, limit = (
        s.idempotent,
        s.overrides,
        s.judge,
        s.discard,
        s.limit,
    )
    # Values, or functions of the call's arguments.
    scope: Any = s.scope
    key: Any = s.key
    scope_of = scope if callable(scope) else None
    key_of = key if callable(key) else None

    def loop(*args: Any, **kwargs: Any) -> Any:
        if not runtime.active:  # set_active(False): one attempt, no engine
            return fn(*args, **kwargs)
        clock = fixed_clock or runtime.clock
        if start is not None:
            call = start(clock, *args)
        else:
            call_key = key if key_of is None else key_of(*args, **kwargs)
            call_scope = scope if scope_of is None else scope_of(*args, **kwargs)
            call_overrides = overrides if runtime.attempts is None else s.call_overrides()
            call = begin(
                clock.monotonic(), operation, call_scope, idempotent, call_key, call_overrides
            )
        if started is not None:
            started(call)
        last_exception: BaseException | None = None
        last_result: Any = None
        try:
            while call.admitted:
                try:
                    if limit is not None:
                        limit(call, args)
                    result = fn(*args, **kwargs)
                except Exception as exc:
                    delay = failed(call, clock, s, exc)
                    if delay is None:
                        raise
                    last_exception, last_result = exc, None
                else:
                    if resume is not None and type(result) is CoroutineType:
                        # The attempt is under way in what it returned: the
                        # call goes on where the caller awaits it.
                        return resume(call, result, args, kwargs)
                    if judge is None:
                        call.on_success(clock.monotonic())
                        return result
                    delay = judge(call, clock, s, result)
                    if delay is None:
                        return result
                    last_exception, last_result = None, result
                # The hook first, while a retried response is still open.
                tell("on_retry", on_retry, call, last_exception, last_result)
                if discard is not None and last_result is not None:
                    discard(last_result)
                if records is not None or _records.listening:
                    deliver(policy, records)
                clock.sleep(delay)
                call.admit(clock.monotonic())
            raise stopped(call, s, last_exception, last_result)
        except BaseException:
            if not call.finished:
                call.cancel(clock.monotonic())
            raise
        finally:
            if records is not None or _records.listening:
                deliver(policy, records)

    return loop


def async_loop(
    s: Settings, fn: Callable[..., Awaitable[Any]], operation: str, start: Start | None = None
) -> Callable[..., Awaitable[Any]]:
    """The coroutine function that awaits ``fn``'s attempts as one call."""
    policy, begin, records, fixed_clock = s.policy, s.policy.begin, s.records, s.clock
    on_retry, started = s.on_retry, s.started
    idempotent, overrides, judge, adiscard, limit, preempt = (
        s.idempotent,
        s.overrides,
        s.judge,
        s.adiscard,
        s.limit,
        s.preempt,
    )
    # Values, or functions of the call's arguments.
    scope: Any = s.scope
    key: Any = s.key
    scope_of = scope if callable(scope) else None
    key_of = key if callable(key) else None

    async def loop(*args: Any, **kwargs: Any) -> Any:
        if not runtime.active:  # set_active(False): one attempt, no engine
            return await fn(*args, **kwargs)
        clock = fixed_clock or runtime.clock
        if start is not None:
            call = start(clock, *args)
        else:
            call_key = key if key_of is None else key_of(*args, **kwargs)
            call_scope = scope if scope_of is None else scope_of(*args, **kwargs)
            call_overrides = overrides if runtime.attempts is None else s.call_overrides()
            call = begin(
                clock.monotonic(), operation, call_scope, idempotent, call_key, call_overrides
            )
        if started is not None:
            started(call)
        last_exception: BaseException | None = None
        last_result: Any = None
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
                    delay = failed(call, clock, s, exc)
                    if delay is None:
                        raise
                    last_exception, last_result = exc, None
                else:
                    if judge is None:
                        call.on_success(clock.monotonic())
                        return result
                    delay = judge(call, clock, s, result)
                    if delay is None:
                        return result
                    last_exception, last_result = None, result
                # The hook first, while a retried response is still open.
                tell("on_retry", on_retry, call, last_exception, last_result)
                if adiscard is not None and last_result is not None:
                    await adiscard(last_result)
                if records is not None or _records.listening:
                    deliver(policy, records)
                await clock.asleep(delay)
                call.admit(clock.monotonic())
            raise stopped(call, s, last_exception, last_result)
        except BaseException:
            if not call.finished:
                call.cancel(clock.monotonic())
            raise
        finally:
            if records is not None or _records.listening:
                deliver(policy, records)

    return loop
