"""The retry step: what every Python loop does once an attempt has ended.

The decorator, ``retrying()`` and the httpx transports, sync and async, all
report an attempt through these functions and act on the answer: a delay
(sleep, then ask for the next attempt) or the end of the call (return, or
raise what the caller gets). Only the executors in ``_executors.py`` and
``retrying()``'s iterators differ, in how they call, await and sleep; so a
rule about failures lives here once, not six times.
"""

from __future__ import annotations

from typing import Any

from . import _records
from ._classify import Outcome, classify_exception, classify_result, exception_detail
from ._clock import Clock
from ._errors import RetryError
from ._records import deliver
from ._runtime import Settings, failure, report, tell
from ._stoic import Call

__all__ = ["failed", "rejected", "validated"]


def failed(call: Call, clock: Clock, s: Settings, exc: Exception) -> float | None:
    """An attempt raised ``exc``: the delay before the next attempt. When
    the engine gives up, raises the ``RetryError`` the caller gets, or
    returns None: re-raise ``exc`` itself (never retryable, or
    ``reraise=True``), with the engine's observation as a note."""
    outcome = classify_exception(exc, s.on, s.classify)
    delay = report(call, clock, outcome, exception_detail(exc, outcome))
    if delay is not None:
        return delay
    if s.records is not None or _records.listening:
        deliver(s.policy, s.records)
    tell("on_give_up", s.on_give_up, call, exc, None)
    error = failure(call, s, exc)
    if error is None:
        return None
    raise error from exc


def rejected(call: Call, clock: Clock, s: Settings, verdict: Outcome, result: Any) -> float:
    """A result was rejected (by ``validate=`` or ``attempt.reject()``): the
    delay before the next attempt, or raises ``RetryError`` when the engine
    gives up."""
    delay = report(call, clock, verdict, verdict[2])
    if delay is None:
        if s.records is not None or _records.listening:
            deliver(s.policy, s.records)
        tell("on_give_up", s.on_give_up, call, None, result)
        raise RetryError(call.decision, last_result=result)
    return delay


def validated(call: Call, clock: Clock, s: Settings, result: Any) -> float | None:
    """The judge of a function's result when ``validate=`` is set: None when
    it is accepted (the success is reported), else as ``rejected``. A
    validator's own exception propagates: the executor ends the call."""
    verdict = classify_result(s.validate(result), result) if s.validate is not None else None
    if verdict is None:
        call.on_success(clock.monotonic())
        return None
    return rejected(call, clock, s, verdict, result)
