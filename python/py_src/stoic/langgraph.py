"""LangGraph nodes and tools whose retries stoic decides.

::

    from langgraph.prebuilt import ToolNode
    import stoic.langgraph
    from stoic.agents import Run

    run = Run("run-7")
    tools = stoic.langgraph.tool_node([create_order, get_order], run=run,
                                     idempotent={"get_order"})
    graph.add_node("tools", tools)
    graph.add_node("model", call_model, retry_policy=stoic.langgraph.retry_policy())

**Nodes.** ``retry_policy()`` is a LangGraph ``RetryPolicy`` whose
``retry_on`` is stoic's classifier (``retry_on``): a node is run again after
a transient failure (a connection refused, a 429 or a 503, read from the
exceptions of requests, httpx, httpx2, aiohttp and the model SDKs), never
after a deterministic one (the OpenAI client's 400 or 401, a bug), and
after an ambiguous one (a connection dropped after a POST went out, a 500)
only when the node is declared ``idempotent=True`` (a model call usually
is). A failure a stoic layer inside the node already
retried (a ``RetryError``, a response stoic's transport gave up on) is not
retried again: exactly one layer retries. The intervals and attempts are
the policy's (``base``, ``multiplier``, ``cap``, ``max_attempts``); LangGraph
does the sleeping, with its own jitter.

**Tools.** ``wrap_tool_call`` / ``awrap_tool_call`` (what ``tool_node``
passes to ``ToolNode``) run each tool call through the run (``run.call``,
its step the tool-call id): transient failures are retried inside it, and a
failure stoic will not retry becomes ``ToolMessage(status="error",
content=observation)``, with ``artifact={"reason": ..., "key": ...,
"attempts": ...}`` for the application (not sent to the model). Arguments
that fail the tool's schema stay ``ToolNode``'s own error message, and an
``interrupt()`` inside a tool passes through. Keep ``ToolNode``'s default
``handle_tool_errors``: a handler that turns every exception into a message
answers before stoic sees the failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

try:
    from langchain_core.messages import ToolMessage
    from langgraph.errors import GraphBubbleUp
    from langgraph.prebuilt import ToolNode
    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.types import Command, RetryPolicy
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("stoic.langgraph needs langgraph: pip install 'stoic[langgraph]'") from exc

from ._classify import Classifier, classify_exception
from ._clock import VirtualClock
from ._runtime import report
from ._stoic import Policy
from .agents import Run, ToolResult, _inner_decision

__all__ = ["awrap_tool_call", "retry_on", "retry_policy", "tool_node", "wrap_tool_call"]

RunSource = Run | Callable[[ToolCallRequest], Run]
Answer = ToolMessage | Command[Any]
Execute = Callable[[ToolCallRequest], Answer]
AsyncExecute = Callable[[ToolCallRequest], Awaitable[Answer]]


def retry_on(
    exc: BaseException,
    *,
    idempotent: bool = False,
    classify: Classifier | None = None,
    policy: Policy | None = None,
) -> bool:
    """Whether the engine would try again after ``exc`` (a first failure,
    nothing else counted against it): transient yes, deterministic no,
    ambiguous only when ``idempotent``. ``policy=``'s classification rules
    count (``classify={"status": ...}``); ``classify=`` is a classifier of
    your own, asked first, as in ``@stoic.retry``."""
    if _inner_decision(exc) is not None:
        return False  # a stoic layer inside already retried it
    outcome = classify_exception(exc, (), classify)
    # A fresh policy and call per question: no breaker, budget or quota of
    # anyone's is touched, and the answer is the classification alone.
    probe = Policy(**{**(policy.config if policy is not None else {}), "max_attempts": 2})
    clock = VirtualClock()
    call = probe.start(clock.monotonic(), "langgraph_node", idempotent=idempotent)
    probe.before_attempt(clock.monotonic(), call)
    return report(call, clock, outcome, None) is not None


def retry_policy(
    *,
    idempotent: bool = False,
    classify: Classifier | None = None,
    jitter: bool = True,
    policy: Policy | None = None,
    **config: Any,
) -> RetryPolicy:
    """A LangGraph ``RetryPolicy`` whose ``retry_on`` is ``retry_on``, its
    attempts and intervals the policy's: ``policy=``'s config, with the
    config keywords (``max_attempts=``, ``backoff=``, ...) over it."""
    merged = Policy(**{**(policy.config if policy is not None else {}), **config})
    settings = merged.config
    backoff = settings["backoff"]

    def should_retry(exc: Exception) -> bool:
        return retry_on(exc, idempotent=idempotent, classify=classify, policy=merged)

    return RetryPolicy(
        initial_interval=float(backoff["base"]),
        backoff_factor=float(backoff.get("multiplier") or 2.0),
        max_interval=float(backoff["cap"]),
        max_attempts=int(settings["max_attempts"]),
        jitter=jitter,
        retry_on=should_retry,
    )


@dataclass(frozen=True)
class _Signal:
    """An interrupt (or another of LangGraph's bubbling signals) raised in
    the tool: carried out of the run as a value, raised again outside."""

    error: GraphBubbleUp


def _run_for(run: RunSource, request: ToolCallRequest) -> Run:
    found = run if isinstance(run, Run) else run(request)
    if not isinstance(found, Run):
        raise TypeError(f"run= gave {found!r}, not a stoic.agents.Run")
    return found


def _step(request: ToolCallRequest) -> str:
    call = request.tool_call
    return call.get("id") or call["name"]


def _answer(request: ToolCallRequest, result: ToolResult) -> Answer:
    """The tool's own answer, or the observation as an error ``ToolMessage``."""
    if result.ok:
        if isinstance(result.value, _Signal):
            raise result.value.error
        value: Answer = result.value
        return value
    call = request.tool_call
    return ToolMessage(
        content=result.observation or "",
        name=call["name"],
        tool_call_id=call.get("id") or "",
        status="error",
        artifact={"reason": result.reason, "key": result.key, "attempts": result.attempts},
    )


def wrap_tool_call(
    run: RunSource,
    *,
    idempotent: Collection[str] = (),
    server_deduplicates: bool | None = None,
) -> Callable[[ToolCallRequest, Execute], Answer]:
    """A ``ToolNode(wrap_tool_call=...)`` that runs each tool call through
    ``run`` (a ``Run``, or a function of the ``ToolCallRequest`` returning
    one). ``idempotent=`` names the tools safe to repeat."""

    def wrap(request: ToolCallRequest, execute: Execute) -> Answer:
        def attempt(**_args: Any) -> Any:
            try:
                return execute(request)
            except GraphBubbleUp as signal:
                return _Signal(signal)

        options = _call_options(request, idempotent, server_deduplicates)
        result = _run_for(run, request).call(_step(request), attempt, **options)
        return _answer(request, result)

    return wrap


def _call_options(
    request: ToolCallRequest, idempotent: Collection[str], server_deduplicates: bool | None
) -> dict[str, Any]:
    """The run call's options for a tool call: its arguments, its tool's name and safety."""
    name = request.tool_call["name"]
    return {
        "args": request.tool_call.get("args") or {},
        "idempotent": name in idempotent,
        "server_deduplicates": server_deduplicates,
        "tool": name,
    }


def awrap_tool_call(
    run: RunSource,
    *,
    idempotent: Collection[str] = (),
    server_deduplicates: bool | None = None,
) -> Callable[[ToolCallRequest, AsyncExecute], Awaitable[Answer]]:
    """``wrap_tool_call`` for a graph run with ``ainvoke``/``astream``."""

    async def wrap(request: ToolCallRequest, execute: AsyncExecute) -> Answer:
        async def attempt(**_args: Any) -> Any:
            try:
                return await execute(request)
            except GraphBubbleUp as signal:
                return _Signal(signal)

        options = _call_options(request, idempotent, server_deduplicates)
        result = await _run_for(run, request).acall(_step(request), attempt, **options)
        return _answer(request, result)

    return wrap


def tool_node(
    tools: Sequence[Any],
    *,
    run: RunSource,
    idempotent: Collection[str] = (),
    server_deduplicates: bool | None = None,
    **options: Any,
) -> ToolNode:
    """A ``ToolNode`` over ``tools`` whose calls run through ``run``, sync
    and async (``options`` go to ``ToolNode``)."""
    return ToolNode(
        tools,
        wrap_tool_call=wrap_tool_call(
            run, idempotent=idempotent, server_deduplicates=server_deduplicates
        ),
        awrap_tool_call=awrap_tool_call(
            run, idempotent=idempotent, server_deduplicates=server_deduplicates
        ),
        **options,
    )
