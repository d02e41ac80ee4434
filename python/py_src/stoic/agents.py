"""Agent runs: stoic owns an agent's retries.

::

    run = stoic.agents.Run("run-7")                      # one per agent run
    result = run.call(tool_call.id, create_order, args=tool_call.args)
    if result.ok:
        reply(result.value)
    else:
        reply(result.observation)                        # what the model reads

A **run** has an id, a policy (its own, or a shared ``policy=`` whose
breakers and budgets every run uses) and a retry quota for the whole run
(``max_retries``, 20 by default: retries of every tool call and of every
request made inside one count). A **tool call** is ``run.call(step, fn,
args=...)``: its idempotency key ``{run_id}:{step}:{hash of args}`` is made
once, before the first attempt; transient failures are retried inside, and
the model never hears of them; everything else ends the call with a
``ToolResult`` that says why (``reason``) and what the model can do next
(``observation``). A tool call always gets an answer: only exceptions you
name as bugs (``bugs=``) and cancellation propagate.

Inside the call, ``current_key()`` is the key, and stoic's HTTP layers
(``stoic.httpx``, ``stoic.httpx2``, ``stoic.requests``, ``stoic.aiohttp``)
send it as ``Idempotency-Key`` on the writes they make, and spend the run's
retries. **Safety rule:** the key alone does not make a write safe to
repeat; only ``server_deduplicates=True`` (the servers honour the key) or
``idempotent=True`` does. Without either, a write whose answer was lost
ends ``ambiguous``, sent once, with the key it carried: check whether it
took effect before calling again.

Exactly one layer retries: a failure that a stoic layer inside the tool
already retried (its ``RetryError``, or a response it gave up on) ends the
tool call as that layer decided, without more attempts.
"""

from __future__ import annotations

import contextlib
import inspect
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from . import _run_context
from ._classify import Classifier
from ._clock import Clock
from ._errors import InputError, RetryError
from ._executors import async_loop, sync_loop
from ._run_context import ToolCallContext
from ._runtime import (
    OVERRIDABLE,
    Settings,
    _engine_keys,
    _unexpected_keyword,
    wrong_type,
)
from ._stoic import (
    DEFAULT_RUN_MAX_RETRIES,
    Call,
    Policy,
    RunQuota,
    idempotency_key,
    tool_reason,
    wants_excerpt,
)
from .testing import runtime

__all__ = ["Run", "ToolResult", "current_key"]

#: The engine call of the tool call running in this context (set when it
#: starts, so its attempts and decision can be read when it ends).
_started_call: ContextVar[Call | None] = ContextVar("stoic_started_call", default=None)


@dataclass(frozen=True)
class ToolResult:
    """How a tool call ended: a value, or an observation for the model."""

    #: Whether the tool returned a value.
    ok: bool
    #: What the tool returned (None unless ``ok``).
    value: Any = None
    #: Text for the model: what failed, what it means, what to do next.
    observation: str | None = None
    #: Why there is no value, a stable code: ``deterministic``, ``ambiguous``
    #: (may have been applied; not repeated), ``exhausted``, ``budget``,
    #: ``breaker_open``, ``deadline``, ``refused``, ``cancelled``.
    reason: str | None = None
    #: The call's idempotency key.
    key: str = ""
    #: Attempts made.
    attempts: int = 0
    #: Seconds until trying again may make sense (an open breaker's
    #: cooldown, the server's wait), when the engine knows.
    retry_after: float | None = None
    #: The last exception the tool raised, for logs (never for the model).
    error: BaseException | None = None


def current_key() -> str | None:
    """The idempotency key of the tool call in progress, or None."""
    tool_call = _run_context.current.get()
    return tool_call.key if tool_call is not None else None


class _Settled(Exception):
    """A failure a stoic layer inside the tool already retried and ended."""

    def __init__(self, decision: Mapping[str, Any], error: BaseException) -> None:
        super().__init__(decision.get("observation") or "")
        self.decision = decision
        self.error = error


def _inner_decision(failure: object) -> Mapping[str, Any] | None:
    """The give-up of a stoic layer inside the tool, if ``failure`` carries
    one: a ``RetryError``, a response a stoic transport returned after
    giving up (``response.extensions["stoic"]``), or an HTTP error raised
    from such a response."""
    seen: set[int] = set()
    # An SDK above the transport wraps its RetryError (``raise ... from``).
    while failure is not None and id(failure) not in seen:
        seen.add(id(failure))
        if isinstance(failure, RetryError):
            return failure.decision
        response = getattr(failure, "response", failure)
        extensions = getattr(response, "extensions", None)
        decision = extensions.get("stoic") if isinstance(extensions, Mapping) else None
        if isinstance(decision, Mapping) and decision.get("kind") == "give_up":
            return decision
        failure = getattr(failure, "__cause__", None)
    return None


def _returned_status(value: Any) -> int | None:
    """The status of an HTTP response a tool returned instead of raising
    (httpx, httpx2 and requests' ``status_code``, aiohttp's ``status``)."""
    for name in ("status_code", "status"):
        status = getattr(value, name, None)
        if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
            return status
    return None


def _judge_returned(call: Call, clock: Clock, settings: Settings, value: Any) -> float | None:
    """A tool's returned value: an HTTP response is judged by its status
    (a 503 the tool returned is retried like one it raised), a response a
    stoic transport inside already gave up on ends the call as it decided,
    and anything else is a success. The delay, or None when it is over."""
    now = clock.monotonic()
    if _inner_decision(value) is not None:
        call.on_raised(now, "deterministic", "a stoic layer inside already retried it")
        return None
    status = _returned_status(value)
    if status is None:
        call.on_success(now)
        return None
    headers: Any = getattr(value, "headers", None)
    pairs = (
        list(headers.items())
        if headers is not None and settings.policy.reads_hints(status)
        else None
    )
    return call.on_status(
        now, status, pairs, detail=_body_text(value, status), wall_now=clock.wall()
    )


def _body_text(response: Any, status: int) -> str | None:
    """The body of an error response a tool returned, for the observation,
    when it is already text (httpx's and requests' ``.text``; a streamed or
    aiohttp body is not read here)."""
    if not wants_excerpt(status):
        return None
    try:
        text = getattr(response, "text", None)
    except Exception:  # a streamed body not read yet
        return None
    return text if isinstance(text, str) else None


def _settled_first(user: Classifier | None) -> Classifier:
    """Reads a ``_Settled`` as final (deterministic: not retried again),
    then asks the caller's classifier."""

    def classify(exc: BaseException) -> Any:
        if isinstance(exc, _Settled):
            return "deterministic"
        return user(exc) if user is not None else None

    return classify


class InvalidToolArguments(Exception):
    """A model's arguments that are not a JSON object: the tool call ends
    with an observation that says so, and the tool does not run."""


def _arguments(args: Any) -> tuple[Any, dict[str, Any] | InvalidToolArguments]:
    """The value the key hashes, and the keyword arguments the tool gets: a
    mapping as it is, JSON text of an object (as a model writes tool
    arguments) parsed, None as no arguments. Text that is not a JSON object
    (a model's truncated or malformed arguments) is not the caller's bug:
    it becomes the reason the call fails, for the model to correct."""
    if args is None:
        return {}, {}
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError as exc:
            return args, InvalidToolArguments(f"the tool's arguments are not valid JSON ({exc})")
        if not isinstance(parsed, dict):
            return args, InvalidToolArguments(
                f"the tool's arguments must be a JSON object, not {type(parsed).__name__}"
            )
        return args, parsed
    if isinstance(args, Mapping):
        return args, dict(args)
    raise wrong_type("args", "a mapping, JSON text of an object, or None", args)


def _check_config(config: dict[str, Any], *, shared: bool) -> None:
    """Refuses a misspelt keyword with the nearest name, before a policy is
    built: ``Run("r", maxRetries=3)`` says ``max_retries``."""
    allowed = set(OVERRIDABLE) if shared else set(_engine_keys())
    for name in config:
        if name not in allowed:
            raise _unexpected_keyword("Run", Run.__init__, name)


def _named(error: InputError, field: str) -> InputError:
    """The core's input error, naming the caller's parameter."""
    return InputError(error.message, error.code, field)


class Run:
    """One agent run: its id, its policy and its retry quota."""

    def __init__(
        self,
        run_id: str,
        *,
        policy: Policy | None = None,
        max_retries: int = DEFAULT_RUN_MAX_RETRIES,
        server_deduplicates: bool = False,
        bugs: type[BaseException] | tuple[type[BaseException], ...] = (),
        classify: Classifier | None = None,
        clock: Clock | None = None,
        **config: Any,
    ) -> None:
        if not isinstance(run_id, str):
            raise wrong_type("run_id", "a str", run_id)
        # The key rule is the core's: an empty (or unkeyable) run id fails
        # here, with the core's code, before any tool runs.
        try:
            idempotency_key(run_id, "step", {})
        except InputError as error:
            raise _named(error, "run_id") from None
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise TypeError(f"max_retries= must be a whole number >= 0, not {max_retries!r}")
        if not isinstance(server_deduplicates, bool):
            raise wrong_type("server_deduplicates", "a bool", server_deduplicates)
        if policy is not None and not isinstance(policy, Policy):
            raise wrong_type("policy", "a stoic.Policy", policy)
        bug_types = bugs if isinstance(bugs, tuple) else (bugs,)
        if not all(isinstance(b, type) and issubclass(b, BaseException) for b in bug_types):
            raise wrong_type("bugs", "an exception class or a tuple of them", bugs)
        if classify is not None and not callable(classify):
            raise wrong_type("classify", "a callable or None", classify)
        _check_config(config, shared=policy is not None)
        self.run_id = run_id
        self._server_deduplicates = server_deduplicates
        self._bugs = bug_types
        self._classify = _settled_first(classify)
        self._clock = clock
        self._quota = RunQuota(max_retries)
        self._policy = policy if policy is not None else Policy(**config)
        # Config keys beyond attempts and backoff belong to a shared policy.
        self._overrides = config if policy is not None else {}
        self._settings: dict[tuple[str, bool, bool], Settings] = {}

    @property
    def policy(self) -> Policy:
        """The policy whose breakers and budgets the run's calls use."""
        return self._policy

    @property
    def retries_used(self) -> int:
        """Retries the run has made, across its calls."""
        return int(self._quota.used)

    @property
    def retries_left(self) -> int:
        """Retries the run may still make."""
        return int(self._quota.remaining)

    def call(
        self,
        step: str,
        fn: Callable[..., Any],
        *,
        args: Any = None,
        idempotent: bool = False,
        server_deduplicates: bool | None = None,
        tool: str | None = None,
    ) -> ToolResult:
        """Runs ``fn(**args)`` as tool call ``step`` of this run and always
        answers with a ``ToolResult`` (see the module docs)."""
        # An object whose __call__ is async counts as an async function.
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__):
            raise TypeError("fn= is an async function: await run.acall(...) runs it")
        key, kwargs, context, settings, fn = self._prepare(
            step, fn, args, idempotent, server_deduplicates, tool
        )
        loop = sync_loop(settings, _unwrapping(fn, context), settings.operation)
        with _entered(context):
            try:
                value = loop(**kwargs)
            except Exception as exc:
                return self._failed(exc, key, settings)
            return _succeeded(value, key)

    async def acall(
        self,
        step: str,
        fn: Callable[..., Awaitable[Any]],
        *,
        args: Any = None,
        idempotent: bool = False,
        server_deduplicates: bool | None = None,
        tool: str | None = None,
    ) -> ToolResult:
        """``call`` for an ``async def`` tool, awaited."""
        key, kwargs, context, settings, fn = self._prepare(
            step, fn, args, idempotent, server_deduplicates, tool
        )
        loop = async_loop(settings, _aunwrapping(fn, context), settings.operation)
        with _entered(context):
            try:
                value = await loop(**kwargs)
            except Exception as exc:
                return self._failed(exc, key, settings)
            return _succeeded(value, key)

    def _prepare(
        self,
        step: str,
        fn: Callable[..., Any],
        args: Any,
        idempotent: bool,
        server_deduplicates: bool | None,
        tool: str | None,
    ) -> tuple[str, dict[str, Any], ToolCallContext, Settings, Callable[..., Any]]:
        if not isinstance(step, str):
            raise wrong_type("step", "a str", step)
        if not callable(fn):
            raise wrong_type("fn", "a callable", fn)
        if not isinstance(idempotent, bool):
            raise wrong_type("idempotent", "a bool", idempotent)
        if server_deduplicates is not None and not isinstance(server_deduplicates, bool):
            raise wrong_type("server_deduplicates", "a bool or None", server_deduplicates)
        if tool is not None and not isinstance(tool, str):
            raise wrong_type("tool", "a str or None", tool)
        keyed, kwargs = _arguments(args)
        try:
            key = idempotency_key(self.run_id, step, keyed)
        except InputError as error:
            raise _named(error, "args" if step else "step") from None
        if isinstance(kwargs, InvalidToolArguments):
            fn = _refusing(kwargs)
            kwargs = {}
        dedupe = self._server_deduplicates if server_deduplicates is None else server_deduplicates
        operation = tool or getattr(fn, "__name__", "") or "tool"
        settings = self._settings_for(operation, idempotent, dedupe)
        context = ToolCallContext(
            key=key, server_deduplicates=dedupe, quota=self._quota, idempotent=idempotent
        )
        return key, kwargs, context, settings, fn

    def _settings_for(self, operation: str, idempotent: bool, dedupe: bool) -> Settings:
        """The runtime settings of one kind of tool call, built once."""
        cache_key = (operation, idempotent, dedupe)
        found = self._settings.get(cache_key)
        if found is not None:
            return found
        quota = self._quota

        def started(call: Call) -> None:
            call.join_run(quota)
            _started_call.set(call)

        def engine_key(*_args: Any, **_kwargs: Any) -> str | None:
            # The engine hears of the key only when the servers honour it:
            # then an ambiguous failure is safe to repeat.
            tool_call = _run_context.current.get()
            return tool_call.key if tool_call is not None and dedupe else None

        settings = Settings.build(
            policy=self._policy,
            config=dict(self._overrides),
            records=None,
            operation=operation,
            scope="",
            idempotent=idempotent,
            key=engine_key,
            on=(),
            classify=self._classify,
            validate=None,
            reraise=True,
            clock=self._clock,
            caller="Run.call",
            judge=_judge_returned,
            started=started,
        )
        if len(self._settings) < 256:
            self._settings[cache_key] = settings
        return settings

    def _failed(self, exc: Exception, key: str, settings: Settings) -> ToolResult:
        """The result of a tool call that raised ``exc`` once the engine
        was done with it; a bug propagates."""
        if isinstance(exc, self._bugs) and not isinstance(exc, _Settled):
            raise exc
        call = _started_call.get()
        if isinstance(exc, _Settled):
            decision: Mapping[str, Any] | None = exc.decision
            error: BaseException = exc.error
        else:
            decision = call.decision if call is not None and call.finished else None
            error = exc
        if (
            decision is None
            or decision.get("kind") not in ("give_up", "reject")
            or decision.get("reason") == "cancelled"
        ):
            # Not the engine's ending but the runtime's: something outside
            # the tool raised (a classifier, a hook) and the call was
            # cancelled on the way out. That is a bug to see, not an answer.
            raise exc
        stop = str(decision.get("reason") or "")
        retry_at = decision.get("retry_at")
        clock = settings.clock or runtime.clock
        retry_after = (
            max(0.0, float(retry_at) - clock.monotonic())
            if isinstance(retry_at, (int, float))
            else None
        )
        return ToolResult(
            ok=False,
            observation=str(decision.get("observation") or ""),
            reason=tool_reason(stop),
            key=key,
            attempts=int(decision.get("attempts") or 0),
            retry_after=retry_after,
            error=error,
        )


@contextlib.contextmanager
def _entered(context: ToolCallContext) -> Iterator[None]:
    """The tool call ``context`` in progress, for the layers under it, and
    a fresh slot for its engine call, both reset when it ends."""
    token = _run_context.current.set(context)
    holder = _started_call.set(None)
    try:
        yield
    finally:
        _started_call.reset(holder)
        _run_context.current.reset(token)


def _succeeded(value: Any, key: str) -> ToolResult:
    """The result of a tool call whose tool returned ``value``: a value, or,
    when the engine judged a returned response a failure, the observation
    (the response is closed: the model gets the words, not the object)."""
    call = _started_call.get()
    if call is None:  # set_active(False): no engine call, one attempt
        return ToolResult(ok=True, value=value, key=key, attempts=1)
    if call.succeeded:
        return ToolResult(ok=True, value=value, key=key, attempts=call.attempts)
    inner = _inner_decision(value)
    decision = inner if inner is not None else (call.decision or {})
    close = getattr(value, "close", None)
    if callable(close) and not inspect.iscoroutinefunction(close):
        # An async client's response may refuse a sync close: then its
        # client's own cleanup releases it.
        with contextlib.suppress(Exception):
            close()
    return ToolResult(
        ok=False,
        observation=str(decision.get("observation") or ""),
        reason=tool_reason(str(decision.get("reason") or "")),
        key=key,
        attempts=int(decision.get("attempts") or call.attempts),
    )


def _refusing(reason: InvalidToolArguments) -> Callable[..., Any]:
    """A tool that fails at once with ``reason``: the model's arguments
    could not be read, so the real tool never runs."""

    def refuse(**_kwargs: Any) -> Any:
        raise reason

    return refuse


def _unwrapping(fn: Callable[..., Any], context: ToolCallContext) -> Callable[..., Any]:
    """``fn``, with a failure a stoic layer inside already ended read as
    settled (not retried again), and the tool call's writes counted afresh
    on each attempt (so each write of an attempt gets the same key as the
    same write of the attempt before)."""

    def attempt(**kwargs: Any) -> Any:
        context.writes[0] = 0
        try:
            return fn(**kwargs)
        except Exception as exc:
            decision = _inner_decision(exc)
            if decision is not None:
                raise _Settled(decision, exc) from exc
            raise

    return attempt


def _aunwrapping(fn: Callable[..., Any], context: ToolCallContext) -> Callable[..., Awaitable[Any]]:
    """``_unwrapping`` for ``acall``: the tool may be ``async def`` or plain."""

    async def attempt(**kwargs: Any) -> Any:
        context.writes[0] = 0
        try:
            result = fn(**kwargs)
            return await result if inspect.isawaitable(result) else result
        except Exception as exc:
            decision = _inner_decision(exc)
            if decision is not None:
                raise _Settled(decision, exc) from exc
            raise

    return attempt
