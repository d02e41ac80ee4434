"""pydantic-ai agents whose tools run through ``stoic.pydantic_ai.StoicToolset``,
driven by pydantic-ai's own scripted ``FunctionModel`` (no model API), with
tools that make real HTTP requests to ``server.py`` on 127.0.0.1.

Asserted: what the model received back for each tool call (the parts of the
request that followed it) and what the server counted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

import stoic
from stoic.agents import Run, current_key
from stoic.pydantic_ai import StoicToolset

FAST: dict[str, Any] = {"seed": 1, "backoff": {"strategy": "constant", "base": 0.01, "cap": 0.01}}


class Script:
    """A ``FunctionModel`` function: the tool calls to make, one per model
    request, then a final text; it keeps every request it received."""

    def __init__(self, *calls: tuple[str, dict[str, Any] | str]) -> None:
        self.calls = list(calls)
        self.received: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(list(messages))
        if self.calls:
            name, args = self.calls.pop(0)
            n = len(self.received)
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"call_{n}")])
        return ModelResponse(parts=[TextPart("done")])

    def answers(self) -> list[Any]:
        """The parts answering tool calls, in the order the model saw them."""
        found: list[Any] = []
        for message in self.received[-1]:
            if isinstance(message, ModelRequest):
                found.extend(
                    p for p in message.parts if isinstance(p, (ToolReturnPart, RetryPromptPart))
                )
        return found


def agent_for(
    script: Script, run: Run, tools: list[Callable[..., Any]], **options: Any
) -> Agent[None, str]:
    toolset = StoicToolset(FunctionToolset(tools), run=run, **options)
    return Agent(FunctionModel(script), toolsets=[toolset])


@pytest.fixture
def orders(server: Any, token: str) -> Callable[..., Any]:
    def create_order(path: str, quantity: int) -> str:
        """Creates an order."""
        response = httpx.post(f"{server.url}/{path}", json={"quantity": quantity}, timeout=2.0)
        response.raise_for_status()
        return response.text

    return create_order


def test_transient_failures_never_reach_the_model(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    script = Script(("create_order", {"path": f"status/{token}?n=2&code=503", "quantity": 1}))
    run = Run("run-1", **FAST)
    result = agent_for(script, run, [orders]).run_sync("order one")
    assert result.output == "done"
    [answer] = script.answers()
    assert isinstance(answer, ToolReturnPart)
    assert answer.outcome == "success"
    assert answer.content == "ok"
    assert len(server.seen[token]) == 3  # two 503s, retried here
    assert run.retries_used == 2


def test_a_deterministic_failure_is_a_failed_return_with_the_observation(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    path = f"status/{token}?n=-1&code=422&body=quantity+must+be+positive"
    script = Script(("create_order", {"path": path, "quantity": -1}))
    run = Run("run-2", **FAST)
    agent_for(script, run, [orders]).run_sync("order minus one")
    [answer] = script.answers()
    # pydantic-ai's failed tool return, not a retry prompt: no retry budget spent.
    assert isinstance(answer, ToolReturnPart)
    assert answer.outcome == "failed"
    assert answer.retry is None
    assert answer.tool_call_id == "call_1"
    assert answer.content.startswith("HTTP 422 Unprocessable Content")
    assert "«quantity must be positive»" in answer.content
    assert "Please try again" not in answer.content
    assert len(server.seen[token]) == 1  # sent once
    # The same failure as the run alone decides it, word for word.
    direct = Run("run-2", **FAST).call("call_1", orders, args={"path": path, "quantity": -1})
    assert answer.content == direct.observation


def test_a_failure_does_not_burn_the_tools_retry_budget(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    # retries=0: one ModelRetry would end the run with UnexpectedModelBehavior.
    path = f"status/{token}?n=-1&code=404&body=no+such+order"
    script = Script(*[("create_order", {"path": path, "quantity": 1})] * 3)
    run = Run("run-3", **FAST)
    toolset = StoicToolset(FunctionToolset([orders], max_retries=0), run=run)
    result = Agent(FunctionModel(script), toolsets=[toolset]).run_sync("go")
    assert result.output == "done"
    assert [a.outcome for a in script.answers()] == ["failed"] * 3
    assert len(server.seen[token]) == 3  # one request per tool call


def test_bad_arguments_stay_the_frameworks_retry_prompt(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    script = Script(
        ("create_order", {"path": f"status/{token}?n=0", "quantity": "many"}),
        ("create_order", {"path": f"status/{token}?n=0", "quantity": 2}),
    )
    run = Run("run-4", **FAST)
    agent_for(script, run, [orders]).run_sync("order")
    first, second = script.answers()
    # pydantic-ai's validation feedback, which spends the tool's retry budget.
    assert first.outcome == "retried"
    assert first.retry.cause == "validation_error"
    assert first.tool_call_id == "call_1"
    assert isinstance(second, ToolReturnPart)
    assert second.outcome == "success"
    assert len(server.seen[token]) == 1  # the tool ran only with valid arguments


def test_malformed_json_arguments_stay_the_frameworks_retry_prompt(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    script = Script(("create_order", '{"path": "x", "quantity": '))
    agent_for(script, Run("run-5", **FAST), [orders]).run_sync("order")
    [answer] = script.answers()
    assert answer.outcome == "retried"
    assert answer.retry.cause == "validation_error"
    assert server.seen[token] == []


def test_an_unkeyed_write_whose_answer_was_lost_is_sent_once(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    script = Script(("create_order", {"path": f"reset/{token}?n=1", "quantity": 1}))
    run = Run("run-6", **FAST)
    agent_for(script, run, [orders]).run_sync("order")
    [answer] = script.answers()
    assert answer.outcome == "failed"
    assert "Check whether it took effect" in answer.content
    assert len(server.seen[token]) == 1


def test_an_idempotent_tool_is_repeated_after_a_lost_answer(
    server: Any, token: str, orders: Callable[..., Any], clock: stoic.VirtualClock
) -> None:
    script = Script(("create_order", {"path": f"reset/{token}?n=1", "quantity": 1}))
    run = Run("run-7", **FAST)
    agent_for(script, run, [orders], idempotent={"create_order"}).run_sync("order")
    [answer] = script.answers()
    assert answer.outcome == "success"
    assert len(server.seen[token]) == 2


def test_the_run_key_reaches_the_tool_and_the_framework_signals_pass(
    clock: stoic.VirtualClock,
) -> None:
    from pydantic_ai import ModelRetry

    keys: list[str | None] = []

    def lookup(ref: str) -> str:
        """Looks an order up."""
        keys.append(current_key())
        if ref == "old":
            raise ModelRetry("use the new reference")
        return f"order {ref}"

    script = Script(("lookup", {"ref": "old"}), ("lookup", {"ref": "new"}))
    agent_for(script, Run("run-8", **FAST), [lookup]).run_sync("look")
    first, second = script.answers()
    assert first.outcome == "retried"
    assert first.retry.cause == "model_retry"
    assert first.content == "use the new reference"
    assert second.content == "order new"
    # A sync tool runs in a worker thread and still sees its tool call's key.
    assert keys[0] is not None
    assert keys[0].startswith("run-8:call_1:")
    assert keys[1] is not None
    assert keys[1].startswith("run-8:call_2:")


def test_a_run_per_agent_run_from_the_deps(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    import stoic.httpx

    def create_order(quantity: int) -> str:
        """Creates an order (through stoic's transport: it sends the run's key)."""
        with httpx.Client(transport=stoic.httpx.RetryTransport(**FAST)) as client:
            response = client.post(f"{server.url}/status/{token}?n=1", json={"q": quantity})
            response.raise_for_status()
            return response.text

    runs = {"a": Run("run-a", **FAST), "b": Run("run-b", **FAST)}
    toolset = StoicToolset(FunctionToolset([create_order]), run=lambda ctx: runs[ctx.deps])
    for name in ("a", "b"):
        script = Script(("create_order", {"quantity": 1}))
        agent = Agent(FunctionModel(script), toolsets=[toolset], deps_type=str)
        agent.run_sync("go", deps=name)
        assert script.answers()[0].content == "ok"
    # The first call's 503 was retried by the transport inside, on the run's quota.
    assert runs["a"].retries_used == 1
    assert runs["b"].retries_used == 0
    keys = [key or "" for _, key in server.seen[token]]
    assert len(keys) == 3
    assert keys[0] == keys[1]
    assert keys[0].startswith("run-a:call_1:")
    assert keys[2].startswith("run-b:call_1:")


def test_an_async_tool_and_concurrent_calls(clock: stoic.VirtualClock) -> None:
    seen: list[str | None] = []

    async def fetch(ref: str) -> str:
        """Fetches."""
        await asyncio.sleep(0)
        seen.append(current_key())
        return json.dumps({"ref": ref})

    def two_calls(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart("fetch", {"ref": "a"}, tool_call_id="c1"),
                    ToolCallPart("fetch", {"ref": "b"}, tool_call_id="c2"),
                ]
            )
        return ModelResponse(parts=[TextPart("done")])

    toolset = StoicToolset(FunctionToolset([fetch]), run=Run("run-9"))
    asyncio.run(Agent(FunctionModel(two_calls), toolsets=[toolset]).run("go"))
    assert sorted(k.split(":")[1] for k in seen if k is not None) == ["c1", "c2"]
