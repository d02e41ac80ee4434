"""What the decorator, the retry loop and the transports share: building
the policy, reporting outcomes, and turning a give-up into an exception.

The runtime only sleeps, calls and translates; every decision (class,
delay, key, deadline, breaker, budget) is the engine's answer.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ._classify import Classifier, Outcome, body_cut, normalize_on
from ._clock import Clock
from ._errors import RetryError
from ._hooks import hook_failed, hook_returned
from ._stoic import Call, CallOverrides, Policy
from .testing import runtime

__all__ = ["Judge", "Settings", "failure", "note", "report", "stopped", "wrong_type"]

#: Reports a returned value: the delay before the next attempt, or None
#: when the call is over (the value is returned). Arguments: the call, the
#: clock, the settings and the value.
Judge = Callable[[Call, Clock, "Settings", Any], "float | None"]


@dataclass(frozen=True, slots=True, eq=False)
class Settings:
    """One runtime's options, fixed when it is built (``Settings.build``
    checks them and makes the policy). Derived runtimes (the decorator's
    own statistics, the async continuation) are ``dataclasses.replace``d
    copies."""

    policy: Policy
    #: This runtime's own per-call overrides on a shared policy, or None.
    overrides: CallOverrides | None
    #: The call's own config keys, for the testing cap to keep (see
    #: ``call_overrides``).
    override_config: dict[str, Any]
    records: Any
    operation: str
    #: A value, or a function of the call's arguments.
    scope: str | Callable[..., str]
    idempotent: bool | None
    #: A value, a function of the call's arguments, or None.
    key: str | Callable[..., str | None] | None
    on: Any
    classify: Classifier | None
    validate: Callable[[Any], object] | None
    reraise: bool
    clock: Clock | None
    #: How the pumps treat a returned value (see ``_steps.py``).
    judge: Judge | None = None
    discard: Callable[[Any], object] | None = None
    adiscard: Callable[[Any], Awaitable[object]] | None = None
    limit: Callable[[Call, tuple[Any, ...]], None] | None = None
    preempt: bool = True
    on_retry: Hook | None = None
    on_give_up: Hook | None = None
    #: Told each call as it starts (the decorator's statistics, a run).
    started: Callable[[Call], object] | None = None
    #: Continues a call whose attempt returned a coroutine (a sync-looking
    #: callable that is async after all): the decorator's, see ``_callables``.
    resume: Callable[[Call, Any, tuple[Any, ...], dict[str, Any]], Any] | None = None
    #: The testing cap's overrides, made once per cap: ``{attempts: overrides}``.
    capped: dict[int, CallOverrides | None] = field(default_factory=dict, compare=False)

    @classmethod
    def build(
        cls,
        *,
        policy: Policy | None,
        config: dict[str, Any],
        records: Any,
        operation: str,
        scope: str | Callable[..., str],
        idempotent: bool | None,
        key: str | Callable[..., str | None] | None,
        on: Any,
        classify: Classifier | None,
        validate: Callable[[Any], object] | None,
        reraise: bool,
        clock: Clock | None,
        caller: str = "stoic.retry",
        signature: Callable[..., Any] | None = None,
        judge: Judge | None = None,
        discard: Callable[[Any], object] | None = None,
        adiscard: Callable[[Any], Awaitable[object]] | None = None,
        limit: Callable[[Call, tuple[Any, ...]], None] | None = None,
        preempt: bool = True,
        on_retry: Hook | None = None,
        on_give_up: Hook | None = None,
        started: Callable[[Call], object] | None = None,
    ) -> Settings:
        """Checks the options (a wrong one is a ``TypeError`` naming it, at
        once rather than at the first call) and builds the policy: the
        given one, with this runtime's overrides, or a private one from
        ``config``."""
        _check_settings(
            on_retry=on_retry,
            on_give_up=on_give_up,
            policy=policy,
            records=records,
            operation=operation,
            scope=scope,
            idempotent=idempotent,
            key=key,
            classify=classify,
            validate=validate,
            reraise=reraise,
        )
        overrides: CallOverrides | None = None
        if policy is None:
            unknown = [k for k in config if k not in _engine_keys()]
            if unknown:
                raise _unexpected_keyword(caller, signature, unknown[0])
            policy = Policy(records=records, **config)
        elif records is not None:
            raise TypeError("records= belongs to the policy: give it to stoic.Policy(records=...)")
        elif config:
            # A shared policy with this call's own attempts and backoff; its
            # breakers and budgets stay shared. Other keys are a TypeError.
            unknown = [k for k in config if k not in OVERRIDABLE]
            # A typo of the caller's own keyword (`on_retyr`), not an engine key
            # (`log_records`, close to `records`, which the engine says belongs
            # to the policy).
            if (
                unknown
                and unknown[0] not in _engine_keys()
                and _close(unknown[0], _keywords_of(signature))
            ):
                raise _unexpected_keyword(caller, signature, unknown[0])
            overrides = policy.overrides(**config)
        return cls(
            policy=policy,
            overrides=overrides,
            override_config={k: v for k, v in config.items() if k in OVERRIDABLE},
            records=policy.records,
            operation=operation,
            scope=scope,
            idempotent=idempotent,
            key=key,
            on=normalize_on(on),
            classify=classify,
            validate=validate,
            reraise=reraise,
            clock=clock,
            judge=judge,
            discard=discard,
            adiscard=adiscard,
            limit=limit,
            preempt=preempt,
            on_retry=on_retry,
            on_give_up=on_give_up,
            started=started,
        )

    def call_overrides(self) -> CallOverrides | None:
        """The overrides a call starts with: this runtime's own, or, under
        ``set_testing(True, attempts=n)``, those with ``n`` attempts."""
        attempts = runtime.attempts
        if attempts is None:
            return self.overrides
        capped = self.capped.get(attempts)
        if capped is None:
            config = {**self.override_config, "max_attempts": attempts}
            capped = self.capped[attempts] = self.policy.overrides(**config)
        return capped


def _keywords_of(fn: Callable[..., Any] | None) -> tuple[str, ...]:
    """A function's own keyword-only parameters (for error messages: read
    only when there is one to write)."""
    if fn is None:
        return ()
    params = inspect.signature(fn).parameters.values()
    return tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)


#: The engine settings a call may set on a shared policy (``policy.overrides``).
#: The config keys a call may override on a shared policy.
OVERRIDABLE = frozenset({"max_attempts", "backoff"})


@functools.cache
def _engine_keys() -> frozenset[str]:
    """The engine's top-level config keys, as the core lists them."""
    return frozenset(Policy(seed=0).config)


def _close(name: str, choices: tuple[str, ...] | list[str]) -> str | None:
    found = difflib.get_close_matches(name, choices, n=1, cutoff=0.75)
    return found[0] if found else None


def _unexpected_keyword(caller: str, signature: Callable[..., Any] | None, name: str) -> TypeError:
    """A misspelled keyword, named against the caller's own keywords and the
    engine's config keys (a typo of ``idempotent`` must not read as an
    unknown engine setting)."""
    keywords = _keywords_of(signature)
    engine = sorted(_engine_keys())
    near = _close(name, [*keywords, *engine])
    hint = f" (did you mean {near!r}?)" if near else ""
    return TypeError(
        f"{caller}() got an unexpected keyword argument {name!r}{hint}; its keywords are "
        f"{', '.join(keywords)}, and the engine's config keys {', '.join(engine)}"
    )


def wrong_type(name: str, expected: str, value: object) -> TypeError:
    """The error for an argument of the wrong type, naming it."""
    return TypeError(f"{name}= must be {expected}, not {type(value).__name__}")


def dunder_call(target: object) -> Callable[..., Any] | None:
    """The ``__call__`` its class gives a callable object (None for a
    function or a method, whose own flags say what it is): where an object
    with ``async def __call__`` says that it is async."""
    if inspect.isfunction(target) or inspect.ismethod(target) or isinstance(target, type):
        return None
    found = inspect.getattr_static(type(target), "__call__", None)
    return found if inspect.isfunction(found) else None


def _check_settings(**given: Any) -> None:
    """Rejects a wrong argument when the decorator, loop or transport is
    built, naming it, instead of at the first call."""

    def wrong(name: str, expected: str) -> TypeError:
        return wrong_type(name, expected, given[name])

    if given["policy"] is not None and not isinstance(given["policy"], Policy):
        raise wrong("policy", "a stoic.Policy")
    # records= is checked by the Policy it is given to.
    if not isinstance(given["operation"], str):
        raise wrong("operation", "a str")
    if not (isinstance(given["scope"], str) or callable(given["scope"])):
        raise wrong("scope", "a str or a function of the call's arguments")
    if given["idempotent"] is not None and not isinstance(given["idempotent"], bool):
        raise wrong("idempotent", "a bool")
    key = given["key"]
    if not (key is None or isinstance(key, str) or callable(key)):
        raise wrong("key", "a str, a function of the call's arguments, or None")
    for name in ("classify", "validate", "on_retry", "on_give_up"):
        if given[name] is not None and not callable(given[name]):
            raise wrong(name, "a callable or None")
    for name in ("on_retry", "on_give_up"):
        hook = given[name]
        if inspect.iscoroutinefunction(hook) or inspect.iscoroutinefunction(dunder_call(hook)):
            # Hooks run inside the call, between its steps: an async one
            # would never be awaited.
            raise TypeError(f"{name}= must be a plain function, not an async one")
    if not isinstance(given["reraise"], bool):
        raise wrong("reraise", "a bool")


@dataclass(frozen=True)
class RetryInfo:
    """What ``on_retry=`` (before each wait) and ``on_give_up=`` (when the
    engine stops a call that did not succeed) are told."""

    #: The engine's decision, as ``Call.decision`` gives it: a retry's
    #: ``delay``, ``matched`` (the rule the failure matched) and ``source``
    #: (backoff or a server hint); a give-up's ``reason`` and ``observation``.
    decision: dict[str, Any]
    #: The attempts made so far (the one that just ended included).
    attempt: int
    #: The exception the last attempt raised, if it raised one.
    exception: BaseException | None
    #: The value (a response) the last attempt returned, if it returned one,
    #: or the response whose body was cut (``exception`` cut it).
    result: Any


#: ``on_retry=`` and ``on_give_up=``: called with a ``RetryInfo``; what
#: they return is ignored (a hook never changes a call's result).
Hook = Callable[[RetryInfo], object]


def tell(
    name: str, hook: Hook | None, call: Call, exception: BaseException | None, result: Any
) -> None:
    """Tells a hook (``name``: ``on_retry``, ``on_give_up``) of the decision
    just made. A hook never changes the call's result: what it returns is
    ignored, and an ``Exception`` it raises is reported once (``_hooks``)."""
    if hook is None:
        return
    if result is None and exception is not None:
        result = body_cut(exception)  # the response whose body was cut, if any
    try:
        value = hook(RetryInfo(call.decision or {}, call.attempts, exception, result))
    except Exception as error:
        hook_failed(f"{name}=", hook, error)
    else:
        if value is not None:
            hook_returned(f"{name}=", hook, value)


def report(call: Call, clock: Clock, outcome: Outcome, detail: str | None) -> float | None:
    """Tells the engine how the attempt ended: the delay before the next
    attempt, or None when the call is over."""
    now = clock.monotonic()
    if outcome[0] == "status":
        return call.on_status(now, outcome[1], outcome[2], detail=detail, wall_now=clock.wall())
    if outcome[0] == "network":
        return call.on_network_error(now, outcome[1], detail)
    # A classifier's own tuple may carry anything there: only text is a detail.
    text = outcome[2] if isinstance(outcome[2], str) else detail
    if outcome[0] == "raised":
        return call.on_raised(now, outcome[1], text)
    return call.on_rejected(now, outcome[1], text)


def note(exc: BaseException, observation: str | None) -> None:
    """Adds the engine's observation to an exception that propagates."""
    add_note = getattr(exc, "add_note", None)
    if observation and add_note is not None:
        text = f"stoic: {observation}"
        # Nested decorated calls see the same exception: one note is enough.
        if text not in getattr(exc, "__notes__", ()):
            add_note(text)


def failure(call: Call, settings: Settings, exc: BaseException) -> RetryError | None:
    """What to raise after the engine gave up on ``exc``: a ``RetryError``,
    or None to re-raise ``exc`` itself (not retryable, or ``reraise=True``)."""
    # A failure the engine never held retryable propagates as itself.
    if settings.reraise or call.was_retryable is False:
        note(exc, call.observation)
        return None
    # A response whose body was cut stays with the error (status, headers).
    return RetryError(call.decision, last_exception=exc, last_result=body_cut(exc))


def stopped(
    call: Call, settings: Settings, last_exception: BaseException | None, last_result: Any
) -> BaseException:
    """The exception for a call whose next attempt was refused (deadline,
    open breaker, draining)."""
    if last_result is None and last_exception is not None:
        last_result = body_cut(last_exception)
    tell("on_give_up", settings.on_give_up, call, last_exception, last_result)
    if settings.reraise and last_exception is not None:
        note(last_exception, call.observation)
        return last_exception
    return RetryError(call.decision, last_exception=last_exception, last_result=last_result)
