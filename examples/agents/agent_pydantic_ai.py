"""The agent in Python: pydantic-ai, its scripted ``FunctionModel``, two tools
against the orders server, run two ways.

- ``stoic``: the tools run through ``stoic.pydantic_ai.StoicToolset`` (one
  ``stoic.agents.Run``), and make their requests through stoic's httpx
  transport, which sends the tool call's key as ``Idempotency-Key``;
  ``list_orders`` is declared idempotent. The tools raise on an error status.
- ``defaults``: the tools as they are usually written: plain httpx, a fresh
  ``uuid4()`` as ``Idempotency-Key`` on each request, and an error raised as
  pydantic-ai's ``ModelRetry`` (a tool that lets an exception out ends the
  run: pydantic-ai hands only ``ModelRetry``/``ToolFailed`` to the model).
  Everything else is pydantic-ai's default (a tool's retries: 1).

The model is ``scripted.Clerk`` behind a ``FunctionModel``: each turn it reads
the last tool answer from the messages pydantic-ai hands it. What it was
handed is the transcript. Run alone, from the repository:
``.venv/bin/python examples/agents/agent_pydantic_ai.py URL --variant stoic``
against ``python -m orders.server --scenario healthy`` (the demo's faults
come from ``demo.py``'s server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from scripted import SCRIPT, Answer, Clerk

import stoic.httpx
from stoic.agents import Run
from stoic.pydantic_ai import StoicToolset

VARIANTS = ("stoic", "defaults")
FRAMEWORK = f"pydantic-ai {version('pydantic-ai-slim')}"


class ScriptedModel:
    """The ``FunctionModel`` function: the clerk's next call, from the last
    tool answer in the messages it is handed; it keeps every list it got."""

    def __init__(self) -> None:
        self.clerk = Clerk()
        self.received: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(list(messages))
        call = self.clerk.next_call(_last_answer(messages))
        if call is None:
            return ModelResponse(parts=[TextPart(self.clerk.final_text())])
        name, args = call
        call_id = f"call_{len(self.received)}"
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=call_id)])


def _text(part: ToolReturnPart) -> str:
    """A tool return's content as the model reads it (the text in the tool
    message, without the ``{"error": ...}`` wrapper some providers add)."""
    return part.model_response_str(wrap_if_error=False)


def _last_answer(messages: list[ModelMessage]) -> Answer | None:
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return None
    answers = [p for p in last.parts if isinstance(p, ToolReturnPart)]
    if not answers:
        return None
    part = answers[-1]
    return Answer(part.tool_name, part.outcome == "success", _text(part))


def transcript(messages: list[ModelMessage], output: str) -> list[dict[str, Any]]:
    """The conversation as the model was handed it on its last turn, then
    its final words."""
    lines: list[dict[str, Any]] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                lines.append({"who": "user", "text": str(part.content)})
            elif isinstance(part, ToolCallPart):
                lines.append({"who": "model", "call": part.tool_name, "args": part.args_as_dict()})
            elif isinstance(part, ToolReturnPart):
                outcome = part.outcome
                ok = outcome == "success"
                lines.append({"who": "tool", "tool": part.tool_name, "ok": ok, "outcome": outcome})
                lines[-1]["text"] = _text(part)
            elif isinstance(part, TextPart):
                lines.append({"who": "model", "text": part.content})
    lines.append({"who": "model", "text": output})
    return lines


def tools_for(http: httpx.AsyncClient, client: str, variant: str) -> list[Callable[..., Any]]:
    """``create_order`` and ``list_orders`` over ``http``, written the
    variant's way."""
    fresh_key = variant == "defaults"

    async def create_order(order_ref: str, sku: str, quantity: int) -> Any:
        """Creates an order; answers with the order as the shop stored it."""
        order = {"order_ref": order_ref, "client": client, "sku": sku, "quantity": quantity}
        # With stoic, the transport sends the tool call's key.
        headers = {"Idempotency-Key": str(uuid.uuid4())} if fresh_key else {}
        try:
            response = await http.post("/orders", json=order, headers=headers)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            if fresh_key:
                raise ModelRetry(str(exc)) from exc
            raise
        return response.json()

    async def list_orders() -> list[dict[str, Any]]:
        """Lists the orders the shop holds for us."""
        try:
            response = await http.get("/orders", params={"client": client})
            response.raise_for_status()
        except httpx.HTTPError as exc:
            if fresh_key:
                raise ModelRetry(str(exc)) from exc
            raise
        fields = ("order_ref", "sku", "quantity")
        return [{name: o[name] for name in fields} for o in response.json()["orders"]]

    return [create_order, list_orders]


async def run_agent(url: str, variant: str) -> dict[str, Any]:
    """One agent run against the orders server at ``url``: the transcript,
    the model's turns and the retries made inside tool calls."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    model = ScriptedModel()
    client = f"py-{variant}"
    run = Run(f"agent-demo-{client}") if variant == "stoic" else None
    if run is not None:
        transport: httpx.AsyncBaseTransport = stoic.httpx.AsyncRetryTransport()
    else:
        transport = httpx.AsyncHTTPTransport()
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=5.0) as http:
        tools = tools_for(http, client, variant)
        if run is not None:
            toolset = StoicToolset(FunctionToolset(tools), run=run, idempotent={"list_orders"})
            agent: Agent[None, str] = Agent(FunctionModel(model), toolsets=[toolset])
        else:
            agent = Agent(FunctionModel(model), tools=tools)
        result = await agent.run(SCRIPT["prompt"])
    return {
        "framework": FRAMEWORK,
        "variant": variant,
        "turns": len(model.received),
        "transcript": transcript(model.received[-1], result.output),
        "retries_inside": run.retries_used if run is not None else 0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the orders server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--variant", choices=VARIANTS, default="stoic")
    parser.add_argument("--json", type=Path, help="write the run as JSON here")
    args = parser.parse_args(argv)
    done = asyncio.run(run_agent(args.url, args.variant))
    text = json.dumps(done, indent=1)
    if args.json is not None:
        args.json.write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
