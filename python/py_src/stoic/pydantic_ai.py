"""pydantic-ai tools whose retries stoic owns.

::

    from pydantic_ai import Agent
    from pydantic_ai.toolsets import FunctionToolset
    from stoic.agents import Run
    from stoic.pydantic_ai import StoicToolset

    run = Run("run-7")
    agent = Agent(model, toolsets=[StoicToolset(FunctionToolset([create_order]), run=run)])

Each tool call of the wrapped toolset runs through ``run.acall`` (the step
is the model's tool-call id): transient failures are retried inside it and
the model never hears of them; a failure stoic will not retry reaches the
model as pydantic-ai's **failed tool return** (``ToolFailed``: a
``ToolReturnPart`` with ``outcome="failed"``) carrying the run's
observation. It is not a ``ModelRetry``, so it does not spend the tool's
retry budget (``retries=``) on a failure that asking again cannot fix.

Arguments the model got wrong stay pydantic-ai's own: they fail its schema
validation before the tool is called and come back as its retry prompt.
What the tool raises to talk to the framework (``ModelRetry``,
``ToolFailed``, ``CallDeferred``, ``ApprovalRequired``) passes through as
raised.

``run=`` is a ``Run`` or a function of the ``RunContext`` that returns one
(``lambda ctx: ctx.deps.run``), for an agent shared by many runs.
``idempotent=`` names the tools that are safe to repeat (a read, or a write
that sets a value); ``server_deduplicates=`` overrides the run's setting.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

try:
    from pydantic_ai import RunContext
    from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry, ToolFailed
    from pydantic_ai.toolsets import ToolsetTool, WrapperToolset
    from pydantic_core import to_jsonable_python
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "stoic.pydantic_ai needs pydantic-ai: pip install 'stoic[pydantic-ai]'"
    ) from exc

from .agents import Run, ToolResult

__all__ = ["StoicToolset"]

#: What a tool raises to talk to pydantic-ai, not a failure to judge.
_FRAMEWORK_SIGNALS = (ModelRetry, ToolFailed, CallDeferred, ApprovalRequired)

RunSource = Run | Callable[[RunContext[Any]], Run]


@dataclass(frozen=True)
class _Signal:
    """A framework signal the tool raised, carried out of the run as a
    value (the run must not judge it) and raised again outside."""

    error: BaseException


@dataclass
class StoicToolset(WrapperToolset[Any]):
    """A toolset whose tool calls run through a stoic ``Run``."""

    run: RunSource = field(kw_only=True)
    idempotent: Collection[str] = field(default=(), kw_only=True)
    server_deduplicates: bool | None = field(default=None, kw_only=True)

    def _run_for(self, ctx: RunContext[Any]) -> Run:
        found = self.run if isinstance(self.run, Run) else self.run(ctx)
        if not isinstance(found, Run):
            raise TypeError(f"run= gave {found!r}, not a stoic.agents.Run")
        return found

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        wrapped = self.wrapped

        async def attempt(**_args: Any) -> Any:
            try:
                return await wrapped.call_tool(name, tool_args, ctx, tool)
            except _FRAMEWORK_SIGNALS as signal:
                return _Signal(signal)

        step = ctx.tool_call_id or f"{name}@{ctx.run_step}"
        result = await self._run_for(ctx).acall(
            step,
            attempt,
            # The key hashes the validated arguments as JSON; the tool gets them as they are.
            args=to_jsonable_python(tool_args),
            idempotent=name in self.idempotent,
            server_deduplicates=self.server_deduplicates,
            tool=name,
        )
        return answer(result)


def answer(result: ToolResult) -> Any:
    """The tool's value, or pydantic-ai's failed tool return carrying the
    observation (``ToolFailed``)."""
    if result.ok:
        if isinstance(result.value, _Signal):
            raise result.value.error
        return result.value
    raise ToolFailed(result.observation or "")
