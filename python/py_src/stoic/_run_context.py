"""The tool call in progress, for the layers under it.

``stoic.agents.Run.call`` sets it for the duration of one tool call; the
HTTP integrations read it, so a tool written against plain HTTP sends the
run's idempotency key and spends the run's retries without being told. A
context variable, so concurrent tool calls (threads, asyncio tasks) each see
their own.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

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


#: The tool call in progress in this context, if any.
current: ContextVar[ToolCallContext | None] = ContextVar("stoic_tool_call", default=None)
