"""The retry step machine: every decision a Python retry loop acts on, once.

A call is a machine of a few steps, and every runtime (the decorator, the
HTTP integrations and ``retrying()``, sync and async) drives the same one
through a thin pump that only calls, awaits and sleeps:

1. ``begin``: start and admit the engine call (the call's scope, key and
   overrides from its arguments; its statistics told);
2. run the attempt (the pump), then report how it ended: ``raised`` for an
   exception; a returned value is ``Settings.judge``'s (none: a success,
   ``call.on_success``; ``validated`` for ``validate=``; the HTTP
   integrations' status), and ``rejected`` a value refused by
   ``attempt.reject()``; each answers the delay before the next attempt,
   or ends the call (None: the value is the result, or the exception goes
   on as itself; or it raises the ``RetryError``);
3. ``retrying``: the ``on_retry=`` hook and the records, before the pump
   discards a retried response and sleeps the delay, then ``call.admit``;
4. ``stopped``: what to raise when the next attempt is refused;
5. ``end``: whatever way the call ended, a call still running is cancelled
   (its breaker permit goes back) and the records are delivered.

A ``BaseException`` that is not an ``Exception`` (cancellation, an
interrupt) and an exception of ``validate=`` or ``classify=`` end the call
and propagate as themselves; the hooks (``on_retry=``, ``on_give_up=``,
records) never do (``_hooks.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _stoic
from ._classify import ClassOutcome, classify_exception, classify_result, exception_detail
from ._clock import Clock
from ._errors import RetryError
from ._records import deliver
from ._runtime import Settings, failure, report, stopped, tell
from ._stoic import Call, CallStart

__all__ = ["Start", "Steps", "delivering", "rejected", "validated"]

#: Starts and admits a call for the given arguments (the transports' plan).
Start = Callable[..., Call]


class Steps:
    """One runtime's steps (see the module): its options, read once."""

    __slots__ = ("begin_now", "call_start", "operation", "records", "settings", "start")

    def __init__(self, settings: Settings, operation: str, start: Start | None = None) -> None:
        self.settings = settings
        self.operation = operation
        self.start = start
        self.records = settings.records
        #: Begins a call at ``now`` when every call begins alike (no
        #: ``start``, a fixed scope and key): ``policy.begin``'s other
        #: arguments checked once (``Policy.call_start``), so the pumps'
        #: fast path begins the call without a step of its own. None
        #: otherwise, and when they fail their checks (a scope with a lone
        #: surrogate): the call's ``begin`` then raises, at the call.
        self.begin_now: Callable[[float], Call] | None = None
        #: The checked arguments behind ``begin_now`` (``CallStart.first``
        #: makes the sync pump's first attempt in one crossing).
        self.call_start: CallStart | None = None
        if start is None and not callable(settings.scope) and not callable(settings.key):
            try:
                prepared = settings.policy.call_start(
                    operation,
                    settings.scope,
                    settings.idempotent,
                    settings.key,
                    settings.overrides,
                )
            except Exception:  # each call's begin raises it again
                pass
            else:
                self.begin_now = prepared.begin
                self.call_start = prepared

    def begin(self, clock: Clock, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Call:
        """Starts and admits the call of these arguments (check
        ``call.admitted``)."""
        s = self.settings
        if self.start is not None:
            call = self.start(clock, *args)
        else:
            scope, key = s.scope, s.key
            call = s.policy.begin(
                clock.monotonic(),
                self.operation,
                scope(*args, **kwargs) if callable(scope) else scope,
                s.idempotent,
                key(*args, **kwargs) if callable(key) else key,
                s.call_overrides(),
            )
        if s.started is not None:
            s.started(call)
        return call

    def raised(self, call: Call, clock: Clock, exc: Exception) -> float | None:
        """The attempt raised ``exc``: the delay before the next attempt.
        When the engine gives up, raises the ``RetryError`` the caller gets,
        or returns None: re-raise ``exc`` itself (never retryable, or
        ``reraise=True``), with the engine's observation as a note."""
        s = self.settings
        outcome = classify_exception(exc, s.on, s.classify)
        delay = report(call, clock, outcome, exception_detail(exc, outcome))
        if delay is not None:
            return delay
        self.deliver()
        tell("on_give_up", s.on_give_up, call, exc, None)
        error = failure(call, s, exc)
        if error is None:
            return None
        raise error from exc

    def rejected(self, call: Call, clock: Clock, verdict: ClassOutcome, result: Any) -> float:
        """A result was rejected (``attempt.reject()``): as ``rejected``."""
        return rejected(call, clock, self.settings, verdict, result)

    def retrying(self, call: Call, exception: BaseException | None, result: Any) -> None:
        """Before the wait: the ``on_retry=`` hook (while a retried response
        is still open: the pump discards it next) and the records."""
        tell("on_retry", self.settings.on_retry, call, exception, result)
        self.deliver()

    def stopped(self, call: Call, exception: BaseException | None, result: Any) -> BaseException:
        """The exception for a call whose next attempt was refused."""
        return stopped(call, self.settings, exception, result)

    def end(self, call: Call, clock: Clock) -> None:
        """The call is over, whichever way: one still running (cancelled,
        a judge's own exception) is cancelled; the records delivered."""
        if not call.finished:
            call.cancel(clock.monotonic())
        self.deliver()

    def deliver(self) -> None:
        """The records, if anyone takes them (``delivering``)."""
        if self.records is not None or _stoic.listening:
            deliver(self.settings.policy, self.records)


def delivering(s: Settings) -> None:
    """Hands the engine's queued events to the records sink and the
    listeners, if there are any (``stoic._stoic.listening``: some policy
    ever had a listener)."""
    if s.records is not None or _stoic.listening:
        deliver(s.policy, s.records)


def rejected(call: Call, clock: Clock, s: Settings, verdict: ClassOutcome, result: Any) -> float:
    """A result was rejected (by ``validate=`` or ``attempt.reject()``): the
    delay before the next attempt, or raises ``RetryError`` when the engine
    gives up."""
    delay = report(call, clock, verdict, verdict[2])
    if delay is None:
        delivering(s)
        tell("on_give_up", s.on_give_up, call, None, result)
        raise RetryError(call.decision, last_result=result)
    return delay


def validated(call: Call, clock: Clock, s: Settings, result: Any) -> float | None:
    """The judge of a function's result when ``validate=`` is set: None when
    it is accepted (the success is reported), else as ``rejected``. A
    validator's own exception propagates: the pump ends the call."""
    verdict = classify_result(s.validate(result), result) if s.validate is not None else None
    if verdict is None:
        call.on_success(clock.monotonic())
        return None
    return rejected(call, clock, s, verdict, result)
