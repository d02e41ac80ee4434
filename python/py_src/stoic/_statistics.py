"""What a decorated function remembers of its last call: how many attempts,
how long, and the engine's last decision (tenacity's ``.statistics``).

Kept per thread and per asyncio task (a context variable), so concurrent
callers each see their own last call; read by ``fn.statistics()``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ._stoic import Call

__all__ = ["CallStatistics", "LastCall"]


@dataclass(frozen=True)
class CallStatistics:
    """The last call of a decorated function, in this thread or task."""

    #: Attempts made so far.
    attempts: int
    #: Retries scheduled so far.
    retries: int
    #: Whether the call is over (succeeded, or the engine stopped it).
    finished: bool
    #: Whether it succeeded.
    succeeded: bool
    #: Seconds from its start to its end (delays included); None while it runs.
    total: float | None
    #: The engine's final decision (``done`` or ``give_up`` with its reason
    #: and observation); None while it runs.
    decision: dict[str, Any] | None


class LastCall:
    """The last call started in the current context, of one function."""

    __slots__ = ("_var", "started")

    def __init__(self, name: str) -> None:
        self._var: ContextVar[Call | None] = ContextVar(f"stoic last call of {name}", default=None)
        #: Records a call as it starts: the variable's own ``set`` (a C
        #: method: no Python frame on the decorator's success path).
        self.started: Callable[[Call], object] = self._var.set

    def statistics(self) -> CallStatistics | None:
        """None before the first call in this context."""
        call = self._var.get()
        if call is None:
            return None
        decision = call.decision if call.finished else None
        return CallStatistics(
            attempts=call.attempts,
            retries=call.retries,
            finished=call.finished,
            succeeded=call.succeeded,
            total=None if decision is None else float(decision["total"]),
            decision=decision,
        )
