"""LangGraph with stoic: ``retry_policy`` on real exceptions and real graph
nodes, and ``tool_node`` answering hand-built tool calls (no model), with
tools and nodes that make real requests to ``server.py`` on 127.0.0.1.

Asserted: what each tool call's answer says (what the model would receive)
and what the server counted."""

from __future__ import annotations

import asyncio
import socket
from typing import Any, TypedDict

import httpx
import httpx2
import openai
import pytest
import requests
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import RetryPolicy, interrupt

import stoic
import stoic.langgraph
from stoic.agents import Run, current_key

FAST: dict[str, Any] = {"seed": 1, "backoff": {"strategy": "constant", "base": 0.01, "cap": 0.01}}
#: LangGraph sleeps for real between node attempts: a millisecond.
NODE_FAST: dict[str, Any] = {"backoff": {"strategy": "exponential", "base": 0.001, "cap": 0.001}}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raised(fn: Any) -> Exception:
    try:
        fn()
    except Exception as exc:
        return exc
    raise AssertionError("did not raise")


def default_retry_on(exc: Exception) -> bool:
    return bool(RetryPolicy().retry_on(exc))  # type: ignore[call-arg,operator]


def test_retry_on_reads_real_failures_as_the_engine_does(server: Any, token: str) -> None:
    with openai.OpenAI(
        base_url=server.script(token, [(400, {}), (401, {})]) + "/v1",
        api_key="test",
        max_retries=0,
    ) as gpt:

        def ask() -> Any:
            return gpt.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )

        bad_request, unauthorized = raised(ask), raised(ask)
    assert isinstance(bad_request, openai.BadRequestError)
    assert isinstance(unauthorized, openai.AuthenticationError)
    url = f"http://127.0.0.1:{closed_port()}/"
    refused = raised(lambda: requests.get(url, timeout=2))
    refused_httpx = raised(lambda: httpx.get(url))
    with requests.Session() as session:
        unavailable = raised(
            lambda: session.get(f"{server.url}/status/{token}x?n=1").raise_for_status()
        )

    assert stoic.langgraph.retry_on(bad_request) is False
    assert stoic.langgraph.retry_on(unauthorized) is False
    assert stoic.langgraph.retry_on(refused) is True
    assert stoic.langgraph.retry_on(refused_httpx) is True
    assert stoic.langgraph.retry_on(unavailable) is True
    assert stoic.langgraph.retry_on(ValueError("a bug")) is False
    # LangGraph's default reads the first two the other way round.
    assert default_retry_on(bad_request) is True
    assert default_retry_on(refused) is False


def test_an_ambiguous_failure_is_retried_only_for_an_idempotent_node(server: Any) -> None:
    reset = raised(lambda: httpx2.post(f"{server.url}/reset/amb?n=-1", json={}))
    assert stoic.langgraph.retry_on(reset) is False
    assert stoic.langgraph.retry_on(reset, idempotent=True) is True
    assert stoic.langgraph.retry_policy(idempotent=True).retry_on(reset)  # type: ignore[call-arg,operator]


def test_a_failure_a_stoic_layer_already_retried_is_not_retried_again(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    import stoic.httpx2

    with openai.OpenAI(
        base_url=server.script(token, [(503, {})] * 10) + "/v1",
        api_key="test",
        max_retries=0,
        http_client=httpx2.Client(transport=stoic.httpx2.RetryTransport(max_attempts=2)),
    ) as gpt:
        exc = raised(
            lambda: gpt.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
        )
    assert isinstance(exc, openai.InternalServerError)
    assert stoic.langgraph.retry_on(exc) is False
    assert len(server.seen[token]) == 2


def test_the_policy_takes_the_engines_attempts_and_intervals() -> None:
    policy = stoic.langgraph.retry_policy(
        max_attempts=4, backoff={"strategy": "exponential", "base": 0.5, "cap": 8.0}
    )
    assert policy.max_attempts == 4
    assert policy.initial_interval == 0.5
    assert policy.max_interval == 8.0
    assert policy.backoff_factor == 2.0
    shared = stoic.Policy(max_attempts=3, classify={"status": {"418": "transient"}})
    from_shared = stoic.langgraph.retry_policy(policy=shared)
    assert from_shared.max_attempts == 3
    teapot = requests.HTTPError(response=requests.Response())
    teapot.response.status_code = 418
    assert from_shared.retry_on(teapot)  # type: ignore[call-arg,operator]
    assert not stoic.langgraph.retry_policy().retry_on(teapot)  # type: ignore[call-arg,operator]


class Counter(TypedDict):
    n: int


def node_graph(url: str, **policy: Any) -> Any:
    def fetch(state: Counter) -> Counter:
        with requests.Session() as session:
            session.post(url, json={}, timeout=2).raise_for_status()
        return {"n": state["n"] + 1}

    graph = StateGraph(Counter)
    graph.add_node(
        "fetch", fetch, retry_policy=stoic.langgraph.retry_policy(jitter=False, **policy)
    )
    graph.add_edge(START, "fetch")
    graph.add_edge("fetch", END)
    return graph.compile()


def test_a_node_is_rerun_after_transient_failures(server: Any, token: str) -> None:
    graph = node_graph(f"{server.url}/status/{token}?n=2&code=503", **NODE_FAST)
    assert graph.invoke({"n": 0}) == {"n": 1}
    assert len(server.seen[token]) == 3


def test_a_node_is_not_rerun_after_a_deterministic_failure(server: Any, token: str) -> None:
    graph = node_graph(f"{server.url}/status/{token}?n=-1&code=401", **NODE_FAST)
    with pytest.raises(requests.HTTPError):
        graph.invoke({"n": 0})
    assert len(server.seen[token]) == 1


def test_a_node_write_whose_answer_was_lost_is_not_rerun(server: Any, token: str) -> None:
    graph = node_graph(f"{server.url}/reset/{token}?n=-1", **NODE_FAST)
    with pytest.raises(requests.ConnectionError):
        graph.invoke({"n": 0})
    assert len(server.seen[token]) == 1
    again = node_graph(f"{server.url}/reset/{token}b?n=1", idempotent=True, **NODE_FAST)
    assert again.invoke({"n": 0}) == {"n": 1}
    assert len(server.seen[token + "b"]) == 2


# Tools: hand-built tool calls, the way a model's AIMessage carries them.


def tools_for(server: Any, token: str) -> list[Any]:
    @tool
    def create_order(path: str, quantity: int) -> str:
        """Creates an order."""
        response = httpx.post(f"{server.url}/{path}", json={"quantity": quantity}, timeout=2)
        response.raise_for_status()
        return response.text

    @tool
    def approve(order: str) -> str:
        """Asks a human."""
        return str(interrupt({"approve": order}))

    return [create_order, approve]


def ask(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    tool_calls = [
        {"name": name, "args": args, "id": f"call_{i}", "type": "tool_call"}
        for i, (name, args) in enumerate(calls, 1)
    ]
    return {"messages": [AIMessage(content="", tool_calls=tool_calls)]}


def answers(output: dict[str, Any]) -> list[ToolMessage]:
    """The messages answering the tool calls (what the model reads next)."""
    return [m for m in output["messages"] if isinstance(m, ToolMessage)]


def graph_of(node: Any, checkpointer: Any = None) -> Any:
    """A graph whose one node is ``node`` (a ``ToolNode`` runs inside a graph)."""
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    return graph.compile(checkpointer=checkpointer)


def test_tool_calls_transient_invisible_deterministic_as_the_observation(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    run = Run("run-1", **FAST)
    node = graph_of(stoic.langgraph.tool_node(tools_for(server, token), run=run))
    out = node.invoke(
        ask(
            ("create_order", {"path": f"status/{token}?n=2&code=503", "quantity": 1}),
            (
                "create_order",
                {"path": f"status/{token}x?n=-1&code=422&body=bad+qty", "quantity": 0},
            ),
        )
    )
    ok, failed = answers(out)
    assert (ok.status, ok.content, ok.tool_call_id) == ("success", "ok", "call_1")
    assert failed.status == "error"
    assert failed.tool_call_id == "call_2"
    assert isinstance(failed.content, str)
    assert failed.content.startswith("HTTP 422 Unprocessable Content")
    assert "«bad qty»" in failed.content
    assert failed.artifact["reason"] == "deterministic"
    assert failed.artifact["key"].startswith("run-1:call_2:")
    assert len(server.seen[token]) == 3
    assert len(server.seen[token + "x"]) == 1


def test_bad_arguments_stay_the_tool_nodes_own_message(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    node = graph_of(stoic.langgraph.tool_node(tools_for(server, token), run=Run("run-2", **FAST)))
    [answer] = answers(node.invoke(ask(("create_order", {"path": "x", "quantity": "lots"}))))
    assert answer.status == "error"
    assert "Error invoking tool 'create_order'" in str(answer.content)
    assert "artifact" not in answer.model_fields_set or answer.artifact is None
    assert server.seen[token] == []


def test_an_unkeyed_write_whose_answer_was_lost_is_sent_once(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    tools = tools_for(server, token)
    call = ("create_order", {"path": f"reset/{token}?n=1", "quantity": 1})
    node = graph_of(stoic.langgraph.tool_node(tools, run=Run("r3", **FAST)))
    [answer] = answers(node.invoke(ask(call)))
    assert answer.status == "error"
    assert answer.artifact["reason"] == "ambiguous"
    assert "Check whether it took effect" in str(answer.content)
    assert len(server.seen[token]) == 1
    node = graph_of(
        stoic.langgraph.tool_node(tools, run=Run("r4", **FAST), idempotent={"create_order"})
    )
    call = ("create_order", {"path": f"reset/{token}b?n=1", "quantity": 1})
    [again] = answers(node.invoke(ask(call)))
    assert again.status == "success"
    assert len(server.seen[token + "b"]) == 2  # reset once, then ok


def test_async_tool_calls_run_through_the_run(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    keys: list[str | None] = []

    @tool
    async def lookup(ref: str) -> str:
        """Looks an order up."""
        keys.append(current_key())
        async with httpx.AsyncClient() as client:
            response = await client.get(f"{server.url}/status/{token}?n=1&code=503")
            response.raise_for_status()
            return f"{ref}: {response.text}"

    run = Run("run-5", **FAST)
    node = graph_of(stoic.langgraph.tool_node([lookup], run=run))
    [answer] = answers(asyncio.run(node.ainvoke(ask(("lookup", {"ref": "a"})))))
    assert (answer.status, answer.content) == ("success", "a: ok")
    assert len(keys) == 2
    assert keys[0] == keys[1]
    assert keys[0] is not None
    assert keys[0].startswith("run-5:call_1:")
    assert run.retries_used == 1


def test_an_interrupt_in_a_tool_passes_through(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    from langgraph.types import Command

    run = Run("run-6", **FAST)
    node = stoic.langgraph.tool_node(tools_for(server, token), run=run)
    app = graph_of(node, checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1"}}
    first = app.invoke(ask(("approve", {"order": "o-1"})), config)
    assert first["__interrupt__"][0].value == {"approve": "o-1"}
    done = app.invoke(Command(resume="approved"), config)
    answer = done["messages"][-1]
    assert isinstance(answer, ToolMessage)
    assert (answer.status, answer.content) == ("success", "approved")
