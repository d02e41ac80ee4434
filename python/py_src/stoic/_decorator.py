"""``@stoic.retry(...)``: retries for sync and ``async def`` functions.

Per call: ``begin`` (start + admit) and ``on_success`` are the only engine
calls when the first attempt succeeds; a failure adds one report and one
admission. Everything else is a closure variable, so the wrapper stays a
few hundred nanoseconds. The loop itself is the step machine of
``_steps.py``, pumped by ``_executors.sync_loop`` / ``async_loop`` (the
HTTP integrations' too) and by ``retrying()``.

Each decorated function is its own scope unless ``scope=`` says otherwise
(a name, or a function of the call's arguments): one failing function
never opens the breaker of another. An exception from a judge
(``validate``, ``classify``) ends the engine call, so it gives back its
breaker permit, and reaches the caller as itself; one from a hook
(``on_retry``, ``on_give_up``) is reported and the call goes on
(``_hooks.py``). What may be decorated is ``_callables.py``'s.

Timeouts: an ``async def`` attempt runs under the engine's per-attempt
timeout (``timeouts={"read": ...}``, capped by the time left of
``timeouts={"total": ...}``) on asyncio, and a timed-out attempt is a
``read_timeout`` failure. A sync function cannot be interrupted: its
attempts run to completion, and the total deadline still bounds the
retries (no attempt starts once it is spent).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ParamSpec, Protocol, TypeVar, cast, overload

from ._callables import is_async, resumer
from ._classify import Classifier
from ._clock import Clock
from ._executors import async_loop, sync_loop
from ._hedging import hedged_function, hedging_config, refuse_sync
from ._runtime import OVERRIDABLE, Hook, Settings
from ._statistics import CallStatistics, LastCall
from ._steps import validated
from ._stoic import HedgingConfig, Policy

__all__ = ["RetryingFunction", "retry"]

P = ParamSpec("P")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class RetryingFunction(Protocol[P, T_co]):
    """A function decorated with ``@stoic.retry``: call it as the function,
    read its last call's ``statistics()``, or make a variant with
    ``retry_with(...)``."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T_co: ...

    def statistics(self) -> CallStatistics | None:
        """The last call in this thread or task (attempts, retries, total
        seconds, the final decision); None before the first."""
        ...

    def retry_with(self, **changes: Any) -> RetryingFunction[P, T_co]:
        """The same function retried with ``changes`` (``max_attempts``,
        ``backoff``, hooks, ``reraise``, ...) on the same policy: its
        breakers and budgets stay shared."""
        ...


@overload
def retry(fn: Callable[P, T], /) -> RetryingFunction[P, T]: ...


@overload
def retry(
    *,
    policy: Policy | None = None,
    on: type[BaseException] | Iterable[type[BaseException]] | Callable[[BaseException], bool] = (),
    classify: Classifier | None = None,
    validate: Callable[[Any], object] | None = None,
    operation: str | None = None,
    scope: str | Callable[..., str] = "",
    idempotent: bool = True,
    key: str | Callable[..., str] | None = None,
    reraise: bool = False,
    clock: Clock | None = None,
    records: Any = None,
    on_retry: Hook | None = None,
    on_give_up: Hook | None = None,
    hedging: Mapping[str, Any] | HedgingConfig | None = None,
    **config: Any,
) -> Callable[[Callable[P, T]], RetryingFunction[P, T]]: ...


def retry(
    fn: Callable[P, T] | None = None,
    /,
    *,
    policy: Policy | None = None,
    on: type[BaseException] | Iterable[type[BaseException]] | Callable[[BaseException], bool] = (),
    classify: Classifier | None = None,
    validate: Callable[[Any], object] | None = None,
    operation: str | None = None,
    scope: str | Callable[..., str] = "",
    idempotent: bool = True,
    key: str | Callable[..., str] | None = None,
    reraise: bool = False,
    clock: Clock | None = None,
    records: Any = None,
    on_retry: Hook | None = None,
    on_give_up: Hook | None = None,
    hedging: Mapping[str, Any] | HedgingConfig | None = None,
    **config: Any,
) -> Callable[[Callable[P, T]], RetryingFunction[P, T]] | RetryingFunction[P, T]:
    """Retries the decorated function (sync or ``async def``) as the
    engine decides. ``@stoic.retry`` and ``@stoic.retry()`` are the same.

    Config keywords (``max_attempts=3``, ``backoff={"base": 0.1}``,
    ``timeouts={"total": 10}``, ...) build a private ``Policy``; or pass a
    shared ``policy=``, whose breakers and budgets every user shares, with
    this function's own ``max_attempts`` and ``backoff`` if it needs them
    (other keywords belong to the policy and are a ``TypeError``).
    Network exceptions (``ConnectionError``, ``TimeoutError``, ``OSError``
    errnos, httpx, httpx2 and requests errors) are classified by kind and status;
    ``on=`` marks more exceptions transient; ``classify=`` maps an
    exception to a ``Rejected``, a class code, or None (use the defaults).
    ``validate=`` checks each result (None/True accepts, False or a
    ``Rejected`` retries). ``scope=`` groups calls that share a breaker and
    a budget (default: the function's own name); it may be a function of
    the call's arguments, e.g. ``scope=lambda host, *a: host``.
    ``idempotent`` (default True: decorating says repeating is safe) decides
    whether ambiguous failures (a timeout after sending) may be retried;
    ``key=`` gives an idempotency key (a string, or a function of the
    call's arguments).

    ``on_retry=`` is called before each wait and ``on_give_up=`` when the
    engine stops a call that did not succeed, each with a ``RetryInfo``
    (the decision, the attempt, its exception or result). Hooks never
    change the call's result: what they return is ignored (``on_give_up``
    is no fallback: catch ``RetryError`` for one), and one that raises is
    reported once as a ``stoic.HookWarning`` while the call goes on.

    ``async def`` functions, objects with ``async def __call__`` and
    callables that return a coroutine are retried asynchronously (awaiting
    the call makes the attempts); generator functions and classes are
    refused with a ``TypeError``. A ``classify=`` that calls an exception a
    success is refused with ``InputError`` (``not_a_failure``).

    When the engine stops retrying, ``RetryError`` is raised from the last
    exception; failures it never considered retryable (and every failure,
    with ``reraise=True``) propagate as themselves, with the engine's
    observation added as a note.

    ``hedging=`` (``async def`` only) sends a second copy of a slow call
    before the first answers, the first answer winning and the others
    cancelled (``{"max_hedges": 1, "delay": {"kind": "fixed", "after":
    0.05}}``, or a quantile of recent latencies: see ``stoic.HedgingConfig``).
    Only a call that is safe to repeat is hedged: one with
    ``idempotent=False`` and no ``key=`` is refused with ``ConfigError``
    ``not_idempotent``. Hedges are paid for by the retry budget; a sync
    function with ``hedging=`` is refused (``ConfigError`` ``inconsistent``,
    field ``hedging``): its losing copies could not be cancelled.

    The decorated function also has ``statistics()`` (its last call in this
    thread or task) and ``retry_with(**changes)`` (a variant on the same
    policy, e.g. ``fetch.retry_with(max_attempts=1)``).
    """
    given: dict[str, Any] = {
        "on": on,
        "classify": classify,
        "validate": validate,
        "operation": operation,
        "scope": scope,
        "idempotent": idempotent,
        "key": key,
        "reraise": reraise,
        "clock": clock,
        "on_retry": on_retry,
        "on_give_up": on_give_up,
        "hedging": hedging,
        **{name: value for name, value in config.items() if name in OVERRIDABLE},
    }
    settings = Settings.build(
        policy=policy,
        config=config,
        records=records,
        operation=operation if operation is not None else "",
        scope=scope,
        idempotent=idempotent,
        key=key,
        on=on,
        classify=classify,
        validate=validate,
        reraise=reraise,
        clock=clock,
        caller="stoic.retry",
        signature=retry,
        judge=validated if validate is not None else None,
        on_retry=on_retry,
        on_give_up=on_give_up,
    )

    hedged = hedging_config(hedging)

    def decorate(target: Callable[P, T]) -> RetryingFunction[P, T]:
        if not callable(target):
            raise TypeError(f"@stoic.retry decorates a function, not {type(target).__name__}")
        asynchronous = is_async(target)
        if hedged is not None and not asynchronous:
            raise refuse_sync("stoic.retry")
        last = LastCall(_operation(target, settings))
        own = dataclasses.replace(settings, started=last.started)
        wrapper = (
            hedged_function(own, cast(Any, target), _operation(target, own), hedged)
            if hedged is not None
            else _wrapper(target, own, asynchronous)
        )
        wrapped: Any = functools.wraps(target)(wrapper)
        wrapped.statistics = last.statistics

        def retry_with(**changes: Any) -> RetryingFunction[P, T]:
            # The decorator's own keywords, a call's overrides, and `policy`
            # (a variant on another policy).
            takes = {*given, *OVERRIDABLE, "policy"}
            unknown = sorted(set(changes) - takes)
            if unknown:
                raise TypeError(
                    f"retry_with() got an unexpected keyword argument {unknown[0]!r}: it takes "
                    f"{', '.join(sorted(takes))} (the rest belongs to the policy)"
                )
            kwargs = {"policy": settings.policy, **given, **changes}
            return cast(RetryingFunction[P, T], retry(target, **kwargs))

        wrapped.retry_with = retry_with
        return cast(RetryingFunction[P, T], wrapped)

    if fn is not None:
        return decorate(fn)
    return decorate


def _operation(fn: Callable[..., Any], s: Settings) -> str:
    """The operation name: the caller's, or the function's qualified name."""
    return s.operation or f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', 'call')}"


def _wrapper(fn: Callable[..., Any], s: Settings, asynchronous: bool) -> Callable[..., Any]:
    """The decorated function: the retry loop around ``fn``."""
    operation = _operation(fn, s)
    if asynchronous:
        return async_loop(s, fn, operation)
    # A sync-looking callable may return an awaitable: the call goes on there.
    return sync_loop(dataclasses.replace(s, resume=resumer(fn, s, operation)), fn, operation)
