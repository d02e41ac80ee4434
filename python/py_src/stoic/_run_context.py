"""The tool call in progress, for the layers under it.

``stoic.agents.Run.call`` sets it for the duration of one tool call; the
HTTP integrations read it, so a tool written against plain HTTP sends the
run's idempotency key and spends the run's retries without being told. A
context variable, so concurrent tool calls (threads, asyncio tasks) each see
their own.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from ._stoic import RunQuota

__all__ = ["ToolCallContext", "current"]


@dataclass(frozen=True)
class ToolCallContext:
    """What the layers under a tool call need from it."""

    #: The call's idempotency key, ``{run_id}:{step}:{hash}``.
    key: str
    #: Whether the caller declared that the servers honour the key: only
    #: then does sending it make a write safe to repeat.
    server_deduplicates: bool
    #: The run's retry quota, which every stoic call inside joins.
    quota: RunQuota
    #: Whether the caller declared the tool call safe to repeat: the writes
    #: it makes are then safe to repeat too.
    idempotent: bool = False
    #: The writes made so far in the current attempt (one slot, reset by
    #: each attempt), so the n-th write of an attempt gets the n-th key.
    writes: list[int] = field(default_factory=lambda: [0])

    def next_write_key(self) -> str:
        """The key of the next write of this attempt: the call's key for
        the first, then ``{key}:2``, ``{key}:3``: two writes of one tool
        call are two operations, and a server that honours keys must not
        take the second for a repeat of the first."""
        self.writes[0] += 1
        n = self.writes[0]
        return self.key if n == 1 else f"{self.key}:{n}"


#: The tool call in progress in this context, if any.
current: ContextVar[ToolCallContext | None] = ContextVar("stoic_tool_call", default=None)
