"""Model Context Protocol tools through an agent run, on both sides of the
protocol (the ``mcp`` package, 2.x): the Python twin of ``stoic/mcp``.

**Server side.** ``tool_handler(handler, run=...)`` wraps a low-level
server's ``on_call_tool`` handler, and ``tool(run=...)`` an ``MCPServer``
tool function (put it under ``@server.tool()``). Each call runs through the
run (``run.acall``): a transient failure inside the tool is retried there;
a failure stoic will not retry answers ``isError: true`` with the run's
observation as its text and ``_meta`` saying why (``io.stoic/reason``,
``io.stoic/retryable``, ``io.stoic/retry-after-ms`` when known). Those go
in ``_meta``, not ``structuredContent``: the specification ties
``structuredContent`` to the tool's ``outputSchema``, and clients validate
it against that schema. A request whose ``_meta`` carries
``io.stoic/idempotency-key`` is answered once per key (``ToolReplays``, on
the core's ``stoic.parts.ServerIdempotency``): a repeat replays the stored
result and the tool runs once, a repeat that arrives while the first is
running waits for it, and a key reused with other arguments is refused with
the core's words.

**Client side.** ``await call_tool(client, run, step, name, arguments)``
(``client``: an ``mcp.Client`` or a ``ClientSession``) makes the call as
``run.acall(step, ...)``, sends the call's key in ``_meta``, and returns the
run's ``ToolResult`` (its ``value`` the ``CallToolResult``, ``isError`` ones
included: those are the tool's answer). A request timeout or a transport
failure is retried only where repeating is safe: the tool declares
``readOnlyHint`` or ``idempotentHint`` in ``tools/list``, or the caller
says the server honours the key (``server_deduplicates=True``, a stoic
server). Protocol errors end the call with an observation instead of
raising (build the run with ``classify=stoic.mcp.classify`` for the words
the JavaScript client uses: a protocol error is the server's answer).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import time
import typing
import uuid
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

try:
    import anyio
    import mcp_types
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import Context
    from mcp.shared.exceptions import MCPError
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("stoic.mcp needs mcp: pip install 'stoic[mcp]'") from exc

from . import _stoic
from ._classify import Outcome
from .agents import Run, ToolResult
from .parts import ServerIdempotency, request_fingerprint

__all__ = [
    "META",
    "ToolReplays",
    "as_call_tool_result",
    "call_tool",
    "classify",
    "retry_later",
    "tool",
    "tool_handler",
]

#: The ``_meta`` keys stoic reads and writes (reverse-DNS prefixed, as the
#: specification asks of vendors; the same as the JavaScript package's).
META = {
    #: In a request: the tool call's idempotency key.
    "idempotency_key": "io.stoic/idempotency-key",
    #: In a result: why the tool call failed (the core's tool reason code).
    "reason": "io.stoic/reason",
    #: In a result: whether the same call may succeed if made again later.
    "retryable": "io.stoic/retryable",
    #: In a result: milliseconds until trying again may make sense, when known.
    "retry_after_ms": "io.stoic/retry-after-ms",
    #: In a result: the stored result of an earlier call with the same key.
    "replayed": "io.stoic/replayed",
    #: In a result: why a request's key was refused (``idempotency_key_reused``, ...).
    "refusal": "io.stoic/refusal",
}

RunSource = Run | Callable[..., Run]
Fate = Literal["keep", "release", "hold"]
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def retry_later(reason: str | None) -> bool:
    """Whether a tool call that ended for ``reason`` may be made again
    later (the core's ``retry_later``)."""
    return reason is not None and bool(_stoic.tool_retry_later(reason))


def as_call_tool_result(result: ToolResult) -> mcp_types.CallToolResult:
    """A run's ``ToolResult`` as MCP answers a tool call: the tool's own
    result, or ``isError: true`` with the observation as its text and the
    reason in ``_meta``."""
    if result.ok:
        return _result_of(result.value)
    meta: dict[str, Any] = {
        META["reason"]: result.reason,
        META["retryable"]: retry_later(result.reason),
    }
    if result.retry_after is not None:
        meta[META["retry_after_ms"]] = round(result.retry_after * 1000)
    return _error(result.observation or "", meta)


def _error(text: str, meta: Mapping[str, Any]) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult.model_validate(
        {"content": [{"type": "text", "text": text}], "isError": True, "_meta": dict(meta)}
    )


def _result_of(value: Any) -> mcp_types.CallToolResult:
    """A low-level handler's answer as a ``CallToolResult``."""
    if isinstance(value, mcp_types.CallToolResult):
        return value
    if isinstance(value, Mapping):
        return mcp_types.CallToolResult.model_validate(value)
    return mcp_types.CallToolResult(content=[])


def _fate(result: ToolResult) -> Fate:
    """What the store keeps of an answer: ``keep`` (replay it), ``release``
    (a failure the run would retry later: a repeat runs again) or ``hold``
    (cancelled: neither, until the key's in-flight time passes)."""
    if result.ok or not retry_later(result.reason):
        return "hold" if result.reason == "cancelled" else "keep"
    return "release"


@dataclasses.dataclass
class _Slot:
    entry: dict[str, Any]
    #: What the first call answered, once it completed with one to replay.
    answer: Any = None
    done: bool = False
    #: Set when the call in progress here ends.
    finished: anyio.Event = dataclasses.field(default_factory=anyio.Event)
    running: bool = True


class ToolReplays:
    """The answers of a server's tool calls by idempotency key, in this
    process's memory: the core's ``ServerIdempotency`` decides whether a
    request runs, replays the stored answer, or is refused. A repeat that
    arrives while the first is still running waits for it and replays its
    answer. Kept: successes, and failures the same request would meet again
    (``deterministic``) or that may have been applied (``ambiguous``: the
    replay tells the caller to check first). A failure the run would itself
    have retried later (``exhausted``, ``breaker_open``, ...) frees the key.
    ``ttl`` and ``in_flight_timeout`` (seconds) are the core's settings;
    ``now`` is the Unix-time clock."""

    def __init__(self, *, now: Callable[[], float] = time.time, **config: Any) -> None:
        self._core = ServerIdempotency(**{**config, "require_key": True})
        self._now = now
        self._entries: dict[str, _Slot] = {}

    def __len__(self) -> int:
        return len(self._entries)

    async def answer(
        self,
        key: str,
        fingerprint: str,
        execute: Callable[[], Awaitable[tuple[Any, Fate]]],
        replayed: Callable[[Any], Any],
        refused: Callable[[Mapping[str, Any]], Any],
    ) -> Any:
        """Runs ``execute`` once per key and payload; a repeat gets
        ``replayed(answer)``, a refusal ``refused(decision)``."""
        while True:
            slot = self._entries.get(key)
            stored = slot.entry if slot is not None else None
            decision = self._core.decide(self._now(), key, fingerprint, stored)
            kind = decision["kind"]
            if kind == "replay" and slot is not None and slot.done:
                return replayed(slot.answer)
            if kind == "refuse":
                in_use = decision["refusal"] == "idempotency_key_in_use"
                if in_use and slot is not None and slot.running:
                    await slot.finished.wait()  # the first call runs here
                    continue
                return refused(decision)
            record = decision.get("record")
            if kind != "proceed" or record is None:
                answer, _ = await execute()
                return answer
            return await self._run(key, fingerprint, record, execute)

    async def _run(
        self,
        key: str,
        fingerprint: str,
        record: dict[str, Any],
        execute: Callable[[], Awaitable[tuple[Any, Fate]]],
    ) -> Any:
        slot = _Slot(entry=record)
        self._entries[key] = slot
        self._sweep()
        fate: Fate = "hold"
        try:
            answer, fate = await execute()
        finally:
            slot.running = False
            slot.finished.set()
            if self._entries.get(key) is slot:
                if fate == "keep":
                    slot.entry = ServerIdempotency.completed(slot.entry, self._now(), 200)
                    slot.answer, slot.done = answer, True
                elif fate == "release":
                    del self._entries[key]
        return answer

    def _sweep(self) -> None:
        """Drops the entries the core no longer holds to (past their time)."""
        if len(self._entries) % 1024:
            return
        now = self._now()
        for key, slot in list(self._entries.items()):
            if slot.running:
                continue
            decision = self._core.decide(now, key, slot.entry["fingerprint"], slot.entry)
            if decision["kind"] == "proceed":
                del self._entries[key]


def _fingerprint(name: str, arguments: Any) -> str:
    return request_fingerprint(json.dumps({"tool": name, "arguments": arguments or {}}))


def _refused_result(decision: Mapping[str, Any]) -> mcp_types.CallToolResult:
    retry_after = decision.get("retry_after_s")
    meta: dict[str, Any] = {
        META["refusal"]: decision.get("refusal"),
        META["retryable"]: retry_after is not None,
    }
    if retry_after is not None:
        meta[META["retry_after_ms"]] = round(float(retry_after) * 1000)
    return _error(str(decision.get("detail") or ""), meta)


def _replayed_result(answer: Any) -> Any:
    """A stored answer, marked as replayed when it is a ``CallToolResult``."""
    if isinstance(answer, mcp_types.CallToolResult):
        meta = {**(answer.meta or {}), META["replayed"]: True}
        return answer.model_copy(update={"meta": meta})
    return answer


def _sent_key(meta: Mapping[str, Any] | None) -> str | None:
    """The key a request's ``_meta`` carries; text that is not a key is the
    core's to refuse (as an invalid key)."""
    if not meta or META["idempotency_key"] not in meta:
        return None
    sent = meta[META["idempotency_key"]]
    return sent if isinstance(sent, str) else ""


async def _answer(
    run: Run,
    name: str,
    arguments: Any,
    key: str | None,
    replays: ToolReplays | None,
    attempt: Callable[..., Awaitable[Any]],
    *,
    idempotent: bool,
    server_deduplicates: bool | None,
    convert: Callable[[ToolResult], Any],
) -> Any:
    """One tool call through the run, answered once per key."""

    async def signalled(**args: Any) -> Any:
        try:
            return await attempt(**args)
        except MCPError as error:  # the tool's own protocol answer: not judged
            return _Signal(error)

    async def execute(step: str) -> tuple[Any, Fate]:
        result = await run.acall(
            step,
            signalled,
            args=arguments or {},
            idempotent=idempotent,
            server_deduplicates=server_deduplicates,
            tool=name,
        )
        if result.ok and isinstance(result.value, _Signal):
            raise result.value.error
        return convert(result), _fate(result)

    if key is None or replays is None:
        answer, _ = await execute(f"mcp-{uuid.uuid4()}")
        return answer

    async def keyed() -> tuple[Any, Fate]:
        # The request's key is the step: the tool's own keyed writes are the
        # same on the caller's repeats of this call. A keyed call runs to its
        # end even when its request is cancelled (a client's timeout): the
        # caller will repeat it, and the repeat replays this answer.
        with anyio.CancelScope(shield=True):
            done = await execute(key or "invalid")
        return done

    return await replays.answer(
        key, _fingerprint(name, arguments), keyed, _replayed_result, _refused_result
    )


@dataclasses.dataclass(frozen=True)
class _Signal:
    """An ``MCPError`` the tool raised (its protocol-level answer), carried
    out of the run as a value and raised again outside."""

    error: MCPError


def _run_of(run: RunSource, *context: Any) -> Run:
    found = run if isinstance(run, Run) else run(*context)
    if not isinstance(found, Run):
        raise TypeError(f"run= gave {found!r}, not a stoic.agents.Run")
    return found


LowLevelHandler = Callable[
    [ServerRequestContext[Any, Any], mcp_types.CallToolRequestParams], Awaitable[Any]
]


def tool_handler(
    handler: LowLevelHandler,
    *,
    run: RunSource,
    idempotent: bool = False,
    server_deduplicates: bool | None = None,
    replays: ToolReplays | Literal["default"] | None = "default",
) -> LowLevelHandler:
    """A low-level ``Server(on_call_tool=...)`` handler run through ``run``
    (a ``Run``, or a function of ``(ctx, params)`` returning one, for a run
    per request); ``replays=None`` does not honour keys."""
    store = ToolReplays() if replays == "default" else replays
    if store is not None and not isinstance(store, ToolReplays):
        raise TypeError(f"replays= must be a ToolReplays or None, not {store!r}")

    @functools.wraps(handler)
    async def call_tool_handler(
        ctx: ServerRequestContext[Any, Any], params: mcp_types.CallToolRequestParams
    ) -> Any:
        async def attempt(**_args: Any) -> Any:
            return await handler(ctx, params)

        meta = params.meta if params.meta is not None else ctx.meta
        return await _answer(
            _run_of(run, ctx, params),
            params.name,
            params.arguments,
            _sent_key(meta),
            store,
            attempt,
            idempotent=idempotent,
            server_deduplicates=server_deduplicates,
            convert=as_call_tool_result,
        )

    return call_tool_handler


def _tool_answer(result: ToolResult) -> Any:
    """An ``MCPServer`` tool's answer: its own value (``MCPServer`` converts
    it), or the observation as an error result."""
    return result.value if result.ok else as_call_tool_result(result)


def tool(
    *,
    run: RunSource,
    idempotent: bool = False,
    server_deduplicates: bool | None = None,
    replays: ToolReplays | Literal["default"] | None = "default",
) -> Callable[[F], F]:
    """A decorator for an ``MCPServer`` tool function (``async def`` or
    plain), under ``@server.tool()``: its calls run through ``run`` (a
    ``Run``, or a function of the tool's ``Context`` returning one). The
    function keeps its parameters; a ``Context`` parameter is added (and
    not passed on) when it has none, to read the request's ``_meta``. A
    replayed answer carries ``io.stoic/replayed`` when the function returns
    a ``CallToolResult`` (a plain value is converted by ``MCPServer``, which
    stoic does not redo)."""
    store = ToolReplays() if replays == "default" else replays
    if store is not None and not isinstance(store, ToolReplays):
        raise TypeError(f"replays= must be a ToolReplays or None, not {store!r}")

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        own = next((p.name for p in signature.parameters.values() if _is_context(p)), None)
        context_name = own or "stoic_mcp_context"

        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> Any:
            context: Context[Any] = kwargs[context_name] if own else kwargs.pop(context_name)
            bound = signature.bind_partial(*args, **kwargs)
            arguments = {k: v for k, v in bound.arguments.items() if k != own}

            async def attempt(**_args: Any) -> Any:
                if inspect.iscoroutinefunction(fn):
                    return await fn(*args, **kwargs)
                # A plain function runs in a worker thread, as MCPServer runs one
                # (anyio carries the tool call's context there).
                return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

            name = context.request_context.params or {}
            return await _answer(
                _run_of(run, context),
                str(name.get("name") or fn.__name__),
                _jsonable(arguments),
                _sent_key(_request_meta(context.request_context)),
                store,
                attempt,
                idempotent=idempotent,
                server_deduplicates=server_deduplicates,
                convert=_tool_answer,
            )

        if own is None:
            extra = inspect.Parameter(
                context_name, inspect.Parameter.KEYWORD_ONLY, annotation=Context
            )
            params = list(signature.parameters.values())
            at = next(
                (i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD),
                len(params),
            )
            call.__signature__ = signature.replace(  # type: ignore[attr-defined]
                parameters=[*params[:at], extra, *params[at:]]
            )
            call.__annotations__ = {**getattr(fn, "__annotations__", {}), context_name: Context}
        return call  # type: ignore[return-value]

    return decorate


def _request_meta(request: ServerRequestContext[Any, Any]) -> Mapping[str, Any] | None:
    """A request's ``_meta``: parsed, or as the params carried it."""
    if request.meta is not None:
        return request.meta
    raw = (request.params or {}).get("_meta")
    return raw if isinstance(raw, Mapping) else None


def _is_context(parameter: inspect.Parameter) -> bool:
    """Whether ``parameter`` takes the tool's ``Context`` (``Context``,
    ``Context[...]``)."""
    hint = typing.get_origin(parameter.annotation) or parameter.annotation
    return isinstance(hint, type) and issubclass(hint, Context)


def _jsonable(value: Any) -> Any:
    """Arguments as the key and the fingerprint hash them (JSON values)."""
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)


# ------------------------------------------------------------------ client


def classify(exc: BaseException) -> Outcome | None:
    """A run's classifier (``Run(..., classify=stoic.mcp.classify)``) for an
    MCP client's errors: a request timeout is a read timeout (sent, not
    answered), a connection closed with the request outstanding an unknown
    network failure (it may have been received), and any other ``MCPError``
    the server's protocol error: its answer, which the same request meets
    again (rejected, deterministic)."""
    error = exc.__cause__ if isinstance(exc, _McpFailure) else exc
    if not isinstance(error, MCPError):
        return None
    code, message = error.error.code, error.error.message
    if code == mcp_types.REQUEST_TIMEOUT:
        return ("network", "read_timeout", None)
    if code == mcp_types.CONNECTION_CLOSED:
        return ("network", "unknown", None)
    return ("rejected", "deterministic", message)


class _McpFailure(Exception):
    """An ``MCPError`` that is not the server's answer, raised again as the
    network failure it stands for (so a run without ``classify`` still
    reads it right)."""


class _RequestTimedOut(_McpFailure, TimeoutError):
    pass


class _ConnectionClosed(_McpFailure, ConnectionError):
    pass


#: The tools each client's server lists, by the client's id (with a weak
#: reference, so a new client at a dead one's address is not taken for it).
_declared: dict[int, tuple[weakref.ref[Any], dict[str, mcp_types.ToolAnnotations | None]]] = {}


async def _declared_safe(client: Any, name: str) -> bool:
    """Whether the server declares ``name`` safe to repeat (read once per
    client, again for a tool it did not list)."""
    found = _declared.get(id(client))
    tools = found[1] if found is not None and found[0]() is client else None
    if tools is None or name not in tools:
        try:
            listed = await client.list_tools()
        except Exception:
            return False  # unknown: not safe
        tools = {t.name: t.annotations for t in listed.tools}
        for key, (ref, _) in list(_declared.items()):
            if ref() is None:
                del _declared[key]
        _declared[id(client)] = (weakref.ref(client), tools)
    annotations = tools.get(name)
    return annotations is not None and bool(
        annotations.read_only_hint or annotations.idempotent_hint
    )


async def call_tool(
    client: Any,
    run: Run,
    step: str,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    idempotent: bool | None = None,
    server_deduplicates: bool | None = None,
    read_timeout_seconds: float | None = None,
    meta: Mapping[str, Any] | None = None,
) -> ToolResult:
    """Calls tool ``name`` on ``client`` as tool call ``step`` of ``run``;
    the run's ``ToolResult`` (see the module docs for what is retried).
    ``idempotent`` defaults to what the tool declares in ``tools/list``."""
    if not isinstance(run, Run):
        raise TypeError(f"run= must be a stoic.agents.Run, not {run!r}")
    safe = idempotent if idempotent is not None else await _declared_safe(client, name)
    from .agents import current_key

    async def attempt(**_args: Any) -> mcp_types.CallToolResult:
        key = current_key()
        sent = {**(meta or {}), META["idempotency_key"]: key}
        try:
            result: mcp_types.CallToolResult = await client.call_tool(
                name, arguments, read_timeout_seconds=read_timeout_seconds, meta=sent
            )
        except MCPError as error:
            code = error.error.code
            if code == mcp_types.REQUEST_TIMEOUT:
                raise _RequestTimedOut(f"MCPError: {error.error.message}") from error
            if code == mcp_types.CONNECTION_CLOSED:
                raise _ConnectionClosed(f"MCPError: {error.error.message}") from error
            raise
        return result

    return await run.acall(
        step,
        attempt,
        args=arguments or {},
        idempotent=safe,
        server_deduplicates=server_deduplicates,
        tool=name,
    )
