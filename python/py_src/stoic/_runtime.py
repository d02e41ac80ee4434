"""What the decorator, the retry loop and the transports share: building
the policy, reporting outcomes, and turning a give-up into an exception.

The runtime only sleeps, calls and translates; every decision (class,
delay, key, deadline, breaker, budget) is the engine's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._classify import Classifier, Outcome, normalize_on
from ._clock import Clock
from ._errors import RetryError
from ._stoic import Call, Policy

__all__ = ["Settings", "failure", "note", "report", "stopped"]

# Give-ups where the engine never treated the failure as retryable: the
# original exception propagates (with the observation as a note).
_NOT_RETRIED = frozenset({"not_retryable", "not_idempotent"})


class Settings:
    """One runtime's configuration, fixed when it is built."""

    __slots__ = (
        "classify",
        "clock",
        "idempotent",
        "key",
        "on",
        "operation",
        "policy",
        "records",
        "reraise",
        "scope",
        "validate",
    )

    def __init__(
        self,
        *,
        policy: Policy | None,
        config: dict[str, Any],
        records: Any,
        operation: str,
        scope: str,
        idempotent: bool | None,
        key: str | Callable[..., str] | None,
        on: Any,
        classify: Classifier | None,
        validate: Callable[[Any], object] | None,
        reraise: bool,
        clock: Clock | None,
    ) -> None:
        if policy is None:
            policy = Policy(records=records, **config)
        elif config or records is not None:
            raise TypeError("give either policy= or config keywords (and records=), not both")
        self.policy = policy
        self.records = policy.records
        self.operation = operation
        self.scope = scope
        self.idempotent = idempotent
        self.key = key
        self.on = normalize_on(on)
        self.classify = classify
        self.validate = validate
        self.reraise = reraise
        self.clock = clock


def report(call: Call, clock: Clock, outcome: Outcome, detail: str | None) -> float | None:
    """Tells the engine how the attempt ended: the delay before the next
    attempt, or None when the call is over."""
    kind, value, extra = outcome
    now = clock.monotonic()
    if kind == "status":
        return call.on_status(now, value, extra, detail=detail, wall_now=clock.wall())
    if kind == "network":
        return call.on_network_error(now, value, detail)
    return call.on_rejected(now, value, extra if isinstance(extra, str) else detail)


def note(exc: BaseException, observation: str | None) -> None:
    """Adds the engine's observation to an exception that propagates."""
    add_note = getattr(exc, "add_note", None)
    if observation and add_note is not None:
        add_note(f"stoic: {observation}")


def failure(call: Call, settings: Settings, exc: BaseException) -> RetryError | None:
    """What to raise after the engine gave up on ``exc``: a ``RetryError``,
    or None to re-raise ``exc`` itself (not retryable, or ``reraise=True``)."""
    if settings.reraise or call.reason in _NOT_RETRIED:
        note(exc, call.observation)
        return None
    return RetryError(call.decision, last_exception=exc)


def stopped(
    call: Call, settings: Settings, last_exception: BaseException | None, last_result: Any
) -> BaseException:
    """The exception for a call whose next attempt was refused (deadline,
    open breaker, draining)."""
    if settings.reraise and last_exception is not None:
        note(last_exception, call.observation)
        return last_exception
    return RetryError(call.decision, last_exception=last_exception, last_result=last_result)
