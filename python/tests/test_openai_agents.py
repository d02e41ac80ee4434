"""The OpenAI Agents SDK with stoic: function tools run through the run,
driven by the SDK's own ``agents.testing.ScriptedModel`` (offline), and the
SDK's Chat Completions model over stoic's client, against ``server.py``'s
model API on 127.0.0.1.

Asserted: what the model received for each tool call (the
``function_call_output`` items of its next input) and what the server
counted."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import openai
import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

import stoic
import stoic.openai_agents as so
from server import DROP
from stoic.agents import Run, current_key
from stoic.httpx2 import AsyncRetryTransport

FAST: dict[str, Any] = {"seed": 1, "backoff": {"strategy": "constant", "base": 0.01, "cap": 0.01}}
set_tracing_disabled(True)  # offline: no trace export
SDK_DEFAULT = "An error occurred while running the tool. Please try again."


def script(*calls: tuple[str, dict[str, Any] | str]) -> ScriptedModel:
    steps: list[Any] = [
        [function_call(name, args, call_id=f"call_{i}")] for i, (name, args) in enumerate(calls, 1)
    ]
    return ScriptedModel([*steps, [assistant_message("done")]])


def outputs(model: ScriptedModel) -> dict[str, str]:
    """The tool outputs the model received, by call id (from its last input)."""
    last = model.last_call
    assert last is not None
    found: dict[str, str] = {}
    for item in last.input:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            found[item["call_id"]] = str(item["output"])
    return found


def order_tool(server: Any) -> Any:
    async def create_order(path: str, quantity: int) -> str:
        """Creates an order."""
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{server.url}/{path}", json={"quantity": quantity})
            response.raise_for_status()
            return response.text

    return create_order


def run_agent(model: ScriptedModel, tools: list[Any]) -> Any:
    agent = Agent(name="orders", model=model, tools=tools)
    return asyncio.run(Runner.run(agent, "order"))


def test_transient_invisible_and_deterministic_as_the_observation(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    model = script(
        ("create_order", {"path": f"status/{token}?n=2&code=503", "quantity": 1}),
        ("create_order", {"path": f"status/{token}x?n=-1&code=422&body=bad+qty", "quantity": 0}),
    )
    run = Run("run-1", **FAST)
    result = run_agent(model, so.run_tools([order_tool(server)], run=run))
    assert result.final_output == "done"
    seen = outputs(model)
    assert seen["call_1"] == "ok"
    assert seen["call_2"].startswith("HTTP 422 Unprocessable Content")
    assert "«bad qty»" in seen["call_2"]
    assert SDK_DEFAULT not in seen["call_2"]
    assert len(server.seen[token]) == 3
    assert len(server.seen[token + "x"]) == 1
    assert run.retries_used == 2


def test_the_sdk_default_tells_the_model_to_try_again(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # What the adapter replaces: the SDK's own answer to the same 422.
    model = script(("create_order", {"path": f"status/{token}?n=-1&code=422", "quantity": 0}))
    run_agent(model, [function_tool(order_tool(server))])
    assert outputs(model)["call_1"] == SDK_DEFAULT


def test_bad_arguments_end_the_call_without_running_the_tool(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    model = script(
        ("create_order", '{"path": "x", "quantity": '),
        ("create_order", {"path": "x", "quantity": "many"}),
    )
    run_agent(model, so.run_tools([order_tool(server)], run=Run("run-2", **FAST)))
    seen = outputs(model)
    assert "the tool's arguments are not valid JSON" in seen["call_1"]
    # The SDK's own validation message (it keeps the details out unless told otherwise).
    assert "Invalid JSON input for tool create_order" in seen["call_2"]
    assert "Change the arguments" in seen["call_2"]
    assert SDK_DEFAULT not in seen["call_1"] + seen["call_2"]
    assert server.seen[token] == []


def test_an_unkeyed_write_whose_answer_was_lost_is_sent_once(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    call = ("create_order", {"path": f"reset/{token}?n=1", "quantity": 1})
    model = script(call)
    run_agent(model, so.run_tools([order_tool(server)], run=Run("run-3", **FAST)))
    assert "Check whether it took effect" in outputs(model)["call_1"]
    assert len(server.seen[token]) == 1
    again = script(("create_order", {"path": f"reset/{token}b?n=1", "quantity": 1}))
    tools = so.run_tools(
        [order_tool(server)], run=Run("run-4", **FAST), idempotent={"create_order"}
    )
    run_agent(again, tools)
    assert outputs(again)["call_1"] == "ok"
    assert len(server.seen[token + "b"]) == 2


def test_a_sync_tool_sees_its_key_and_a_run_from_the_context(clock: stoic.VirtualClock) -> None:
    keys: list[str | None] = []

    @function_tool
    def lookup(ref: str) -> str:
        """Looks an order up."""
        keys.append(current_key())
        return f"order {ref}"

    runs: dict[str, Run] = {"r": Run("run-5")}
    model = script(("lookup", {"ref": "a"}))
    tools = so.run_tools([lookup], run=lambda ctx: runs[ctx.context])
    agent = Agent[str](name="orders", model=model, tools=tools)
    asyncio.run(Runner.run(agent, "look", context="r"))
    assert outputs(model)["call_1"] == "order a"
    assert len(keys) == 1
    assert keys[0] is not None
    assert keys[0].startswith("run-5:call_1:")


def test_failure_error_function_alone_speaks_the_engines_words(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    tool = function_tool(order_tool(server), failure_error_function=so.failure_error_function)
    model = script(
        ("create_order", {"path": f"status/{token}?n=-1&code=404&body=no+such", "quantity": 1})
    )
    run_agent(model, [tool])
    seen = outputs(model)["call_1"]
    assert seen.startswith("HTTP 404 Not Found")
    assert "«no such»" in seen
    assert len(server.seen[token]) == 1
    assert so.observation_for(ValueError("bad")).startswith("a local error was raised")


# Model calls: the SDK's Chat Completions model over stoic's client, against
# a model API on 127.0.0.1 that fails first.


def test_model_call_retries_are_stoics_one_key_on_every_attempt(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [(503, {"retry-after-ms": "1"}), (429, {}), (503, {})])
    client = so.openai_client(
        base_url=root + "/v1", api_key="test", transport=AsyncRetryTransport(**FAST)
    )
    model = so.chat_completions_model("gpt-test", client=client)

    async def go() -> Any:
        async with client:
            return await Runner.run(Agent(name="a", model=model), "hi")

    result = asyncio.run(go())
    assert result.final_output == "ok"
    requests = server.seen[token]
    assert len(requests) == 4  # 503, 429, 503, then the answer
    keys = {key for _, key in requests}
    assert len(keys) == 1
    assert None not in keys
    # The SDK's own retries are off: each request is its first attempt.
    assert {h.get("x-stainless-retry-count") for h in server.headers[token]} == {"0"}


def _run_agent_against(root: str) -> None:
    """Runs a one-turn agent whose model calls go to ``root`` through stoic."""
    client = so.openai_client(
        base_url=root + "/v1", api_key="test", transport=AsyncRetryTransport(**FAST)
    )

    async def go() -> Any:
        async with client:
            model = so.chat_completions_model("gpt-test", client=client)
            return await Runner.run(Agent(name="a", model=model), "hi")

    asyncio.run(go())


def test_a_deterministic_model_error_is_sent_once(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    root = server.script(token, [(401, {})])
    with pytest.raises(openai.AuthenticationError):
        _run_agent_against(root)
    assert len(server.seen[token]) == 1


def test_a_model_request_dropped_after_sending_is_not_repeated(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    # The model may be generating: the safe default does not send it again.
    root = server.script(token, [DROP])
    with pytest.raises(openai.APIConnectionError):
        _run_agent_against(root)
    assert len(server.seen[token]) == 1


def test_the_client_refuses_a_second_layer_of_retries() -> None:
    with pytest.raises(TypeError, match="max_retries=0"):
        so.openai_client(max_retries=2)
