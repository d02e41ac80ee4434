"""The exceptions stoic raises.

The native module raises ``ConfigError`` and ``InputError`` from here, so
they can have two bases and carry attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["ConfigError", "ConfigProblem", "InputError", "RetryError", "StoicError"]


class StoicError(Exception):
    """Base class of every error stoic raises."""


class ConfigProblem(NamedTuple):
    """One problem of a config: its stable code, the field, why."""

    code: str
    field: str
    message: str


class ConfigError(StoicError, ValueError):
    """A config was rejected (the same class and codes as in JavaScript).

    ``code`` is a stable snake_case code (``out_of_range``, ``unknown_field``,
    ``wrong_type``, ...) and ``field`` the dotted path of the offending key in
    the Python spelling (``backoff.base``, in seconds), both of the first
    problem; ``problems`` lists every problem of the config, and the message
    says them all.
    """

    def __init__(
        self,
        message: str,
        code: str,
        field: str,
        problems: tuple[ConfigProblem, ...] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field
        self.problems: tuple[ConfigProblem, ...] = (
            problems if problems is not None else (ConfigProblem(code, field, message),)
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.code, self.field, self.problems))


class InputError(StoicError, ValueError):
    """A pure helper (canonical JSON, idempotency keys) rejected its input.

    ``code``: ``invalid_json``, ``duplicate_key``, ``number_out_of_range``,
    ``lone_surrogate`` (text whose identity matters holds an unpaired
    surrogate), ``too_deep``, ``misuse``, ...
    """

    def __init__(self, message: str, code: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.code, self.field))


class RetryError(StoicError):
    """The engine stopped retrying a call that did not succeed.

    Carries the final decision as the core made it: ``reason`` (a stable
    code such as ``attempts_exhausted``, ``deadline_exceeded``,
    ``circuit_open``; also ``code``, as on every stoic error and on
    JavaScript's ``RetryError``), ``attempts``, ``observation`` (text a caller can
    reason about), ``last_outcome`` (the rule the last failure matched:
    ``status_503``, ``network_read_timeout``, ``rejected_transient``) and
    ``retry_at`` (monotonic seconds when trying again could make sense).
    The last exception is ``__cause__`` (also ``last_exception``); a result
    rejected by a validator is ``last_result``, and so is a response whose
    status and headers arrived before its body was cut (``last_outcome``
    ``network_body_cut``: by the connection, or by the deadline).
    """

    def __init__(
        self,
        decision: Mapping[str, Any] | None,
        *,
        last_exception: BaseException | None = None,
        last_result: Any = None,
    ) -> None:
        decision = decision or {}
        self.decision: dict[str, Any] = dict(decision)
        self.reason: str = str(decision.get("reason", ""))
        self.code: str = self.reason
        self.attempts: int = int(decision.get("attempts", 0))
        self.observation: str = str(decision.get("observation", ""))
        self.last_outcome: str | None = decision.get("matched")
        retry_at = decision.get("retry_at")
        self.retry_at: float | None = None if retry_at is None else float(retry_at)
        self.last_exception = last_exception
        self.last_result = last_result
        super().__init__(f"{self.reason}: {self.observation}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_retry_error, (self.decision, self.last_exception, self.last_result))


def _rebuild_retry_error(
    decision: Mapping[str, Any], last_exception: BaseException | None, last_result: Any
) -> RetryError:
    return RetryError(decision, last_exception=last_exception, last_result=last_result)
