"""The OpenAI Agents SDK (``openai-agents``, module ``agents``) with stoic
owning the retries.

::

    from agents import Agent, Runner, function_tool
    import stoic.openai_agents as so
    from stoic.agents import Run

    run = Run("run-7")
    agent = Agent(
        name="orders",
        model=so.chat_completions_model("gpt-5", client=so.openai_client()),
        tools=so.run_tools([create_order, get_order], run=run, idempotent={"get_order"}),
    )
    result = await Runner.run(agent, "order two mugs")

**Tools.** ``run_tools`` (or ``run_tool``) runs each function tool's calls
through the run (``run.acall``, the step being the SDK's ``tool_call_id``):
transient failures are retried inside and the model never hears of them; a
failure stoic will not retry reaches the model as the run's observation
through the SDK's own failure path (``failure_error_function``), not as
"An error occurred while running the tool. Please try again.".
Arguments the model got wrong (not JSON, or not the tool's schema) end the
call at once with the observation that says so, the tool not run. The
function tools may be built with ``function_tool`` or given as plain
functions.

``failure_error_function`` alone, for tools that do not run through a run
(``function_tool(fn, failure_error_function=so.failure_error_function)``),
answers with the observation the engine writes for the exception, without
retrying it.

**Model calls.** ``openai_client()`` is an ``AsyncOpenAI`` with its own
retries off (``max_retries=0``) over stoic's ``httpx2`` transport, so one
model call is one stoic call (one key, stoic's backoff, ``retry-after-ms``
and ``Retry-After`` honoured, its breaker and budget); give it to
``chat_completions_model`` / ``responses_model`` or to
``agents.set_default_openai_client``. Leave ``ModelSettings(retry=...)``
(the runner's opt-in retries) unset: exactly one layer retries.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Collection, Iterable
from typing import Any

try:
    import httpx2
    from agents import (
        FunctionTool,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        RunContextWrapper,
        function_tool,
    )
    from agents.tool import (
        set_function_tool_failure_error_function,
        with_function_tool_failure_error_handler,
    )
    from agents.tool_context import ToolContext
    from openai import AsyncOpenAI
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "stoic.openai_agents needs openai-agents and httpx2: pip install 'stoic[openai-agents]'"
    ) from exc

from ._classify import classify_exception, exception_detail
from ._clock import VirtualClock
from ._runtime import report
from ._stoic import Policy
from .agents import Run, ToolResult
from .httpx2 import AsyncRetryTransport

__all__ = [
    "ToolCallFailed",
    "chat_completions_model",
    "failure_error_function",
    "observation_for",
    "openai_client",
    "responses_model",
    "run_tool",
    "run_tools",
]

RunSource = Run | Callable[[ToolContext[Any]], Run]


class ToolCallFailed(Exception):
    """A tool call the run ended without a value; its message is the
    observation, ``result`` the whole ``ToolResult``."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.observation or "")
        self.result = result


def observation_for(error: BaseException) -> str:
    """The engine's observation for ``error`` as the end of a one-attempt
    call (what it is, whether waiting could help, what to do next)."""
    if isinstance(error, ToolCallFailed):
        return error.result.observation or ""
    outcome = classify_exception(error, (), None)
    probe = Policy(max_attempts=1)
    clock = VirtualClock()
    call = probe.start(clock.monotonic(), "tool")
    probe.before_attempt(clock.monotonic(), call)
    report(call, clock, outcome, exception_detail(error, outcome))
    return call.observation or ""


def failure_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """A ``failure_error_function`` that answers with stoic's observation."""
    return observation_for(error)


def _ignore_handled(_tool: FunctionTool, _error: Exception, _input: str) -> None:
    """The failure was answered (the observation): nothing more to report."""


def run_tool(
    tool: FunctionTool | Callable[..., Any],
    *,
    run: RunSource,
    idempotent: bool = False,
    server_deduplicates: bool | None = None,
) -> FunctionTool:
    """A copy of ``tool`` (a ``FunctionTool``, or a function made one with
    ``function_tool``) whose calls run through ``run`` (a ``Run``, or a
    function of the ``ToolContext`` returning one)."""
    base = tool if isinstance(tool, FunctionTool) else function_tool(tool)
    # The tool as it was, raising instead of answering its failures: the
    # run judges them.
    raising = copy.copy(base)
    set_function_tool_failure_error_function(raising, None)

    async def invoke(ctx: ToolContext[Any], input_json: str) -> Any:
        async def attempt(**_args: Any) -> Any:
            return await raising.on_invoke_tool(ctx, input_json)

        found = run if isinstance(run, Run) else run(ctx)
        if not isinstance(found, Run):
            raise TypeError(f"run= gave {found!r}, not a stoic.agents.Run")
        result = await found.acall(
            ctx.tool_call_id,
            attempt,
            args=input_json or None,
            idempotent=idempotent,
            server_deduplicates=server_deduplicates,
            tool=base.name,
        )
        if result.ok:
            return result.value
        raise ToolCallFailed(result)

    wrapped = dataclasses.replace(
        base, on_invoke_tool=with_function_tool_failure_error_handler(invoke, _ignore_handled)
    )
    return set_function_tool_failure_error_function(wrapped, failure_error_function)


def run_tools(
    tools: Iterable[FunctionTool | Callable[..., Any]],
    *,
    run: RunSource,
    idempotent: Collection[str] = (),
    server_deduplicates: bool | None = None,
) -> list[FunctionTool]:
    """``run_tool`` for each tool; ``idempotent=`` names the tools safe to
    repeat (a read, or a write that sets a value)."""
    made: list[FunctionTool] = []
    for tool in tools:
        base = tool if isinstance(tool, FunctionTool) else function_tool(tool)
        made.append(
            run_tool(
                base,
                run=run,
                idempotent=base.name in idempotent,
                server_deduplicates=server_deduplicates,
            )
        )
    return made


def openai_client(
    *, transport: AsyncRetryTransport | None = None, **client_options: Any
) -> AsyncOpenAI:
    """An ``AsyncOpenAI`` whose retries are stoic's: ``max_retries=0`` over
    ``transport`` (default: a new ``stoic.httpx2.AsyncRetryTransport()``).
    ``client_options`` go to ``AsyncOpenAI`` (``base_url``, ``api_key``, ...)."""
    if "max_retries" in client_options or "http_client" in client_options:
        raise TypeError(
            "openai_client() sets max_retries=0 and the http_client itself; "
            "pass transport= for stoic's options"
        )
    http_client = httpx2.AsyncClient(
        transport=transport if transport is not None else AsyncRetryTransport()
    )
    return AsyncOpenAI(max_retries=0, http_client=http_client, **client_options)


def chat_completions_model(
    model: str, *, client: AsyncOpenAI | None = None
) -> OpenAIChatCompletionsModel:
    """The SDK's Chat Completions model over ``client`` (default:
    ``openai_client()``)."""
    return OpenAIChatCompletionsModel(
        model=model, openai_client=client if client is not None else openai_client()
    )


def responses_model(model: str, *, client: AsyncOpenAI | None = None) -> OpenAIResponsesModel:
    """The SDK's Responses model over ``client`` (default: ``openai_client()``)."""
    return OpenAIResponsesModel(
        model=model, openai_client=client if client is not None else openai_client()
    )
