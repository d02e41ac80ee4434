"""MCP with stoic on both sides, over the ``mcp`` package's in-process
transport (``mcp.Client(server)``): a low-level ``Server`` whose
``on_call_tool`` is wrapped by ``tool_handler``, an ``MCPServer`` whose tool
functions are wrapped by ``tool``, and ``call_tool`` on the client. Tools
make real requests to ``server.py`` on 127.0.0.1.

Asserted: the ``CallToolResult`` the client (the model's harness) received,
how many times each tool ran, and what the HTTP server counted."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
import mcp_types
import pytest
import uvicorn
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.server import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

import stoic
import stoic.mcp
from stoic.agents import Run, current_key

FAST: dict[str, Any] = {"seed": 1, "backoff": {"strategy": "constant", "base": 0.01, "cap": 0.01}}
KEY = stoic.mcp.META["idempotency_key"]
REASON = stoic.mcp.META["reason"]
RETRYABLE = stoic.mcp.META["retryable"]
REPLAYED = stoic.mcp.META["replayed"]


def text(result: mcp_types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, mcp_types.TextContent)
    return block.text


def go(fn: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(fn)


def low_level(server: Any, ran: list[str], run: Run, **options: Any) -> Server[Any]:
    """A low-level server with one tool, ``post``: it posts to ``server.py``."""

    async def on_call_tool(ctx: Any, params: mcp_types.CallToolRequestParams) -> Any:
        args = params.arguments or {}
        ran.append(current_key() or "")
        if args.get("protocol_error"):
            raise MCPError(mcp_types.INVALID_PARAMS, "quantity must be a number")
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{server.url}/{args['path']}", json=args)
            response.raise_for_status()
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=response.text)],
        )

    async def on_list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        schema = {"type": "object"}
        return mcp_types.ListToolsResult(tools=[mcp_types.Tool(name="post", input_schema=schema)])

    handler = stoic.mcp.tool_handler(on_call_tool, run=run, **options)
    return Server("orders", on_call_tool=handler, on_list_tools=on_list_tools)


def test_server_transient_invisible_deterministic_as_the_observation(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    ran: list[str] = []
    mcp_server = low_level(server, ran, Run("srv-1", **FAST))

    async def main() -> tuple[Any, Any]:
        async with Client(mcp_server) as client:
            ok = await client.call_tool("post", {"path": f"status/{token}?n=2&code=503"})
            bad = await client.call_tool(
                "post", {"path": f"status/{token}x?n=-1&code=422&body=bad+qty"}
            )
            return ok, bad

    ok, bad = go(main)
    assert not ok.is_error
    assert text(ok) == "ok"
    assert len(ran) == 4  # the first call three times (retried inside the server), then one
    assert len(set(ran[:3])) == 1  # one key for the attempts of one call
    assert bad.is_error
    assert text(bad).startswith("HTTP 422 Unprocessable Content")
    assert "«bad qty»" in text(bad)
    assert (bad.meta or {}).items() >= {REASON: "deterministic", RETRYABLE: False}.items()
    assert bad.structured_content is None
    assert len(server.seen[token + "x"]) == 1


def test_server_exhausted_says_it_may_work_later(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    ran: list[str] = []
    mcp_server = low_level(server, ran, Run("srv-2", max_attempts=2, **FAST))

    async def main() -> Any:
        async with Client(mcp_server) as client:
            return await client.call_tool("post", {"path": f"status/{token}?n=-1&code=503"})

    result = go(main)
    assert result.is_error
    assert result.meta[REASON] == "exhausted"
    assert result.meta[RETRYABLE] is True
    assert len(server.seen[token]) == 2


def test_a_key_in_meta_runs_the_tool_once_and_replays(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    ran: list[str] = []
    mcp_server = low_level(server, ran, Run("srv-3", **FAST))
    args = {"path": f"status/{token}?n=0"}

    async def main() -> list[Any]:
        async with Client(mcp_server) as client:
            return [
                await client.call_tool("post", args, meta={KEY: "run-9:call_1:abc"}),
                await client.call_tool("post", args, meta={KEY: "run-9:call_1:abc"}),
                await client.call_tool(
                    "post", {"path": f"status/{token}?n=1"}, meta={KEY: "run-9:call_1:abc"}
                ),
                await client.call_tool("post", args),  # no key: not deduplicated
            ]

    first, repeat, reused, unkeyed = go(main)
    assert text(first) == text(repeat) == "ok"
    assert (repeat.meta or {}).get(REPLAYED) is True
    assert REPLAYED not in (first.meta or {})
    assert reused.is_error
    assert text(reused).startswith("This Idempotency-Key was already used")
    refusal = {stoic.mcp.META["refusal"]: "idempotency_key_reused", RETRYABLE: False}
    assert (reused.meta or {}).items() >= refusal.items()
    assert text(unkeyed) == "ok"
    assert len(server.seen[token]) == 2  # the keyed call once, the unkeyed one
    # The request's key is the tool call's step, so the tool's own key carries it.
    assert ran[0].startswith("srv-3:run-9%3Acall_1%3Aabc:")


def test_a_failure_the_run_would_retry_later_frees_the_key(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    ran: list[str] = []
    mcp_server = low_level(server, ran, Run("srv-4", max_attempts=2, **FAST))
    args = {"path": f"status/{token}?n=2&code=503"}

    async def main() -> list[Any]:
        async with Client(mcp_server) as client:
            return [await client.call_tool("post", args, meta={KEY: "k-1"}) for _ in range(2)]

    exhausted, again = go(main)
    assert exhausted.meta[REASON] == "exhausted"
    assert not again.is_error  # ran again, and the server recovered
    assert len(server.seen[token]) == 3


def test_replays_wait_for_a_call_in_progress(clock: stoic.VirtualClock) -> None:
    ran: list[int] = []
    release = anyio.Event()

    async def slow(ctx: Any, params: mcp_types.CallToolRequestParams) -> Any:
        ran.append(1)
        await release.wait()
        return {"content": [{"type": "text", "text": "done"}]}

    handler = stoic.mcp.tool_handler(slow, run=Run("srv-5"))
    params = mcp_types.CallToolRequestParams(name="slow", arguments={}, _meta={KEY: "k"})

    async def main() -> list[Any]:
        answers: list[Any] = []
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                answers.append(await handler(None, params))  # type: ignore[arg-type]

            tg.start_soon(call)
            tg.start_soon(call)
            await anyio.sleep(0.01)
            release.set()
        return answers

    answers = go(main)
    assert ran == [1]
    assert [text(a) for a in answers] == ["done", "done"]
    assert sorted(bool(a.meta) for a in answers) == [False, True]


def mcp_orders(server: Any, run: Run, ran: list[str]) -> MCPServer:
    app = MCPServer("orders")

    @app.tool()
    @stoic.mcp.tool(run=run)
    async def create_order(path: str, quantity: int) -> str:
        """Creates an order."""
        ran.append(current_key() or "")
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{server.url}/{path}", json={"quantity": quantity})
            response.raise_for_status()
            return response.text

    @app.tool()
    @stoic.mcp.tool(run=lambda ctx: run)
    def whoami(ctx: Context) -> str:
        """A plain tool that takes the context itself."""
        return str(ctx.request_id and "request")

    return app


def test_mcpserver_tools(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    ran: list[str] = []
    app = mcp_orders(server, Run("srv-6", **FAST), ran)

    async def main() -> list[Any]:
        async with Client(app) as client:
            listed = await client.list_tools()
            schema = next(t for t in listed.tools if t.name == "create_order").input_schema
            assert set(schema["properties"]) == {"path", "quantity"}  # no context parameter
            path = f"status/{token}?n=1"
            return [
                await client.call_tool("create_order", {"path": path, "quantity": 1}),
                await client.call_tool(
                    "create_order",
                    {"path": f"status/{token}x?n=-1&code=404&body=gone", "quantity": 1},
                ),
                await client.call_tool(
                    "create_order", {"path": path, "quantity": 2}, meta={KEY: "k-7"}
                ),
                await client.call_tool(
                    "create_order", {"path": path, "quantity": 2}, meta={KEY: "k-7"}
                ),
                await client.call_tool("create_order", {"path": path, "quantity": "x"}),
                await client.call_tool("whoami", {}),
            ]

    ok, gone, keyed, replay, invalid, who = go(main)
    assert text(ok) == "ok"
    assert gone.is_error
    assert text(gone).startswith("HTTP 404 Not Found")
    assert gone.meta[REASON] == "deterministic"
    assert text(keyed) == text(replay) == "ok"
    # Arguments MCPServer refuses never reach the run.
    assert invalid.is_error
    assert REASON not in (invalid.meta or {})
    assert text(who) == "request"
    assert len(server.seen[token]) == 3  # 503 then ok, then the keyed call once
    assert len(server.seen[token + "x"]) == 1


# Client side.


def over_streams(app: MCPServer) -> Client:
    """A client talking JSON-RPC over memory streams (a timeout is the
    client's alone, as over a network), not dispatching in-process."""
    return Client(InMemoryTransport(app))


def flaky_server(runs: list[str], *, read_only: bool = False) -> MCPServer:
    """A stoic server whose tool takes too long the first time."""
    app = MCPServer("flaky")

    annotations = mcp_types.ToolAnnotations(read_only_hint=True) if read_only else None

    @app.tool(annotations=annotations)
    @stoic.mcp.tool(run=Run("flaky-srv"))
    async def charge(amount: int) -> str:
        """Charges."""
        runs.append(current_key() or "")
        if len(runs) == 1:
            await anyio.sleep(0.3)  # past the client's timeout
        return f"charged {amount}"

    return app


def test_client_sends_the_key_and_does_not_repeat_an_unsafe_timeout(
    clock: stoic.VirtualClock,
) -> None:
    runs: list[str] = []
    app = flaky_server(runs)
    run = Run("run-1", **FAST)

    async def main() -> Any:
        async with over_streams(app) as client:
            result = await stoic.mcp.call_tool(
                client, run, "call_1", "charge", {"amount": 5}, read_timeout_seconds=0.1
            )
            await anyio.sleep(0.3)  # let the server finish
            return result

    result = go(main)
    assert not result.ok
    assert result.reason == "ambiguous"
    assert "Check whether it took effect" in (result.observation or "")
    assert len(runs) == 1
    assert runs[0].startswith("flaky-srv:" + result.key.replace(":", "%3A") + ":")


def test_client_repeats_a_timeout_when_the_server_honours_the_key(
    clock: stoic.VirtualClock,
) -> None:
    runs: list[str] = []
    app = flaky_server(runs)
    run = Run("run-2", **FAST)

    async def main() -> Any:
        async with over_streams(app) as client:
            return await stoic.mcp.call_tool(
                client,
                run,
                "call_1",
                "charge",
                {"amount": 5},
                read_timeout_seconds=0.1,
                server_deduplicates=True,
            )

    result = go(main)
    assert result.ok, result
    assert text(result.value) == "charged 5"
    # The first call's answer, replayed (an MCPServer tool that returns its
    # value, not a CallToolResult, is replayed without the replayed mark).
    assert len(runs) == 1  # the tool ran once
    assert result.attempts >= 2


def test_client_repeats_a_timeout_of_a_read_only_tool(clock: stoic.VirtualClock) -> None:
    runs: list[str] = []
    app = flaky_server(runs, read_only=True)

    async def main() -> Any:
        async with over_streams(app) as client:
            return await stoic.mcp.call_tool(
                client, Run("run-3", **FAST), "c", "charge", {"amount": 1}, read_timeout_seconds=0.1
            )

    result = go(main)
    assert result.ok
    assert text(result.value) == "charged 1"


@pytest.mark.parametrize("classified", [False, True])
def test_client_turns_a_protocol_error_into_an_observation(
    server: Any, classified: bool, clock: stoic.VirtualClock
) -> None:
    ran: list[str] = []
    mcp_server = low_level(server, ran, Run("srv-7", **FAST), replays=None)
    options = {"classify": stoic.mcp.classify} if classified else {}
    run = Run("run-4", **FAST, **options)

    async def main() -> Any:
        async with Client(mcp_server) as client:
            return await stoic.mcp.call_tool(
                client, run, "call_1", "post", {"protocol_error": True, "path": "x"}
            )

    result = go(main)
    assert not result.ok
    assert result.reason == "deterministic"
    assert "quantity must be a number" in (result.observation or "")
    assert result.attempts == 1
    assert len(ran) == 1
    if classified:
        assert "did not come from a server" not in (result.observation or "")


def test_the_result_mapping_and_retry_later() -> None:
    failed = stoic.agents.ToolResult(
        ok=False, observation="wait", reason="breaker_open", retry_after=1.5
    )
    result = stoic.mcp.as_call_tool_result(failed)
    assert result.is_error
    assert result.meta == {REASON: "breaker_open", RETRYABLE: True, "io.stoic/retry-after-ms": 1500}
    wire = json.loads(result.model_dump_json(by_alias=True, exclude_none=True))
    assert wire["isError"] is True
    assert wire["_meta"][REASON] == "breaker_open"
    for reason in ("exhausted", "budget", "breaker_open", "deadline", "refused"):
        assert stoic.mcp.retry_later(reason)
    for reason in ("deterministic", "ambiguous", "cancelled", None):
        assert not stoic.mcp.retry_later(reason)


# Streamable HTTP on 127.0.0.1, through a proxy that drops the connection
# carrying the first answer of the tool (the tool ran; its answer is lost).
# mcp 2.3.0's client reports that drop as the request's timeout (it logs the
# transport error and the request waits out ``read_timeout_seconds``): the
# timeout is what call_tool sees and judges.


class DroppingProxy:
    """A TCP proxy to ``port`` that resets the client's connection instead
    of relaying the next bytes of an answer once ``drop`` is set."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.drop = threading.Event()
        self.dropped = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.closed = False
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream))
            self.sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source: Any, sink: Any, answers: bool) -> None:
        try:
            while data := source.recv(65536):
                if answers and self.drop.is_set():
                    self.drop.clear()
                    self.dropped += 1
                    sink.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    sink.close()
                    source.close()
                    return
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.close()

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


@pytest.fixture
def http_orders() -> Any:
    """An MCPServer over Streamable HTTP (uvicorn on 127.0.0.1) whose tool
    drops its first answer's connection; yields (url, runs, proxy)."""
    runs: list[str] = []
    app = MCPServer("orders-http")
    proxy_box: list[DroppingProxy] = []

    @app.tool()
    @stoic.mcp.tool(run=Run("http-srv"))
    async def create_order(ref: str) -> str:
        """Creates an order."""
        runs.append(current_key() or "")
        if len(runs) == 1:
            proxy_box[0].drop.set()  # the tool ran; its answer will be lost
        return f"order {ref} created"

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    config = uvicorn.Config(
        app.streamable_http_app(stateless_http=True, json_response=True),
        host="127.0.0.1",
        port=port,
        log_level="error",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    proxy = DroppingProxy(port)
    proxy_box.append(proxy)
    yield f"http://127.0.0.1:{proxy.port}/mcp", runs, proxy
    proxy.close()
    server.should_exit = True
    thread.join(5)


def test_streamable_http_a_dropped_answer_is_replayed_by_key(
    http_orders: Any, clock: stoic.VirtualClock
) -> None:
    url, runs, proxy = http_orders
    run = Run("run-h1", **FAST)

    async def main() -> Any:
        async with Client(url, read_timeout_seconds=1) as client:
            return await stoic.mcp.call_tool(
                client, run, "call_1", "create_order", {"ref": "a"}, server_deduplicates=True
            )

    result = go(main)
    assert proxy.dropped == 1
    assert result.ok, result
    assert text(result.value) == "order a created"
    assert result.attempts == 2
    assert len(runs) == 1  # the tool ran once; the repeat got its stored answer


def test_streamable_http_a_dropped_unkeyed_answer_is_not_repeated(
    http_orders: Any, clock: stoic.VirtualClock
) -> None:
    url, runs, proxy = http_orders
    run = Run("run-h2", **FAST)

    async def main() -> Any:
        async with Client(url, read_timeout_seconds=1) as client:
            return await stoic.mcp.call_tool(client, run, "call_1", "create_order", {"ref": "b"})

    result = go(main)
    assert proxy.dropped == 1
    assert not result.ok
    assert result.reason == "ambiguous"
    assert result.attempts == 1
    assert len(runs) == 1
