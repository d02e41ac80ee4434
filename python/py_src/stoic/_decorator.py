"""``@stoic.retry(...)``: retries for sync and ``async def`` functions.

Per call: ``begin`` (start + admit) and ``on_success`` are the only engine
calls when the first attempt succeeds; a failure adds one report and one
admission. Everything else is a closure variable, so the wrapper stays a
few hundred nanoseconds.

Each decorated function is its own scope unless ``scope=`` says otherwise
(a name, or a function of the call's arguments): one failing function
never opens the breaker of another. An exception from a hook (``validate``,
``classify``) ends the engine call, so it gives back its breaker permit,
and reaches the caller as itself.

Timeouts: an ``async def`` attempt runs under the engine's per-attempt
timeout (``timeouts={"read": ...}``, capped by the time left of
``timeouts={"total": ...}``) on asyncio, and a timed-out attempt is a
``read_timeout`` failure. A sync function cannot be interrupted: its
attempts run to completion, and the total deadline still bounds the
retries (no attempt starts once it is spent).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ParamSpec, TypeVar, cast, overload

from ._classify import Classifier, classify_exception, classify_result, exception_detail
from ._clock import Clock
from ._deadline import bounded
from ._errors import RetryError
from ._records import deliver
from ._runtime import Settings, failure, report, stopped
from ._stoic import Policy
from .testing import runtime

__all__ = ["retry"]

P = ParamSpec("P")
T = TypeVar("T")


@overload
def retry(fn: Callable[P, T], /) -> Callable[P, T]: ...


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
    **config: Any,
) -> Callable[[Callable[P, T]], Callable[P, T]]: ...


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
    **config: Any,
) -> Callable[[Callable[P, T]], Callable[P, T]] | Callable[P, T]:
    """Retries the decorated function (sync or ``async def``) as the
    engine decides. ``@stoic.retry`` and ``@stoic.retry()`` are the same.

    Config keywords (``max_attempts=3``, ``backoff={"base": 0.1}``,
    ``timeouts={"total": 10}``, ...) build a private ``Policy``; or pass a
    shared ``policy=``, whose breakers and budgets every user shares, with
    this function's own ``max_attempts`` and ``backoff`` if it needs them
    (other keywords belong to the policy and are a ``TypeError``).
    Network exceptions (``ConnectionError``, ``TimeoutError``, ``OSError``
    errnos, httpx and requests errors) are classified by kind and status;
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

    When the engine stops retrying, ``RetryError`` is raised from the last
    exception; failures it never considered retryable (and every failure,
    with ``reraise=True``) propagate as themselves, with the engine's
    observation added as a note.
    """
    settings = Settings(
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
    )

    def decorate(target: Callable[P, T]) -> Callable[P, T]:
        if inspect.iscoroutinefunction(target):
            wrapped = _async_wrapper(cast(Callable[..., Awaitable[Any]], target), settings)
        else:
            wrapped = _sync_wrapper(target, settings)
        return cast(Callable[P, T], functools.wraps(target)(wrapped))

    if fn is not None:
        if not callable(fn):
            raise TypeError(f"@stoic.retry decorates a function, not {type(fn).__name__}")
        return decorate(fn)
    return decorate


def _names(fn: Callable[..., Any], s: Settings) -> tuple[str, Any, Any]:
    """The operation name, and the scope and key as values or functions."""
    operation = (
        s.operation or f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', 'call')}"
    )
    return operation, s.scope, s.key


def _sync_wrapper(fn: Callable[..., Any], s: Settings) -> Callable[..., Any]:
    policy, begin, records = s.policy, s.policy.begin, s.records
    operation, scope, key = _names(fn, s)
    idempotent, fixed_clock, overrides = s.idempotent, s.clock, s.overrides
    on, classify, validate = s.on, s.classify, s.validate
    scope_of = scope if callable(scope) else None
    key_of = key if callable(key) else None
    fixed_key = None if callable(key) else key

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        clock = fixed_clock or runtime.clock
        now = clock.monotonic
        call_key = fixed_key if key_of is None else key_of(*args, **kwargs)
        call_scope = scope if scope_of is None else scope_of(*args, **kwargs)
        call = begin(now(), operation, call_scope, idempotent, call_key, overrides)
        try:
            last_exception: BaseException | None = None
            last_result: Any = None
            while call.admitted:
                try:
                    result = fn(*args, **kwargs)
                except Exception as exc:
                    outcome = classify_exception(exc, on, classify)
                    delay = report(call, clock, outcome, exception_detail(exc))
                    if delay is None:
                        if records is not None:
                            deliver(policy, records)
                        error = failure(call, s, exc)
                        if error is None:
                            raise
                        raise error from exc
                    last_exception = exc
                except BaseException:
                    call.cancel(clock.monotonic())
                    if records is not None:
                        deliver(policy, records)
                    raise
                else:
                    verdict = (
                        None if validate is None else classify_result(validate(result), result)
                    )
                    if verdict is None:
                        call.on_success(now())
                        if records is not None:
                            deliver(policy, records)
                        return result
                    delay = report(call, clock, verdict, verdict[2])
                    if delay is None:
                        if records is not None:
                            deliver(policy, records)
                        raise RetryError(call.decision, last_result=result)
                    last_result = result
                if records is not None:
                    deliver(policy, records)
                try:
                    clock.sleep(delay)
                except BaseException:
                    call.cancel(clock.monotonic())
                    raise
                call.admit(clock.monotonic())
            if records is not None:
                deliver(policy, records)
            raise stopped(call, s, last_exception, last_result)

        except BaseException:
            # A hook raised (validate, classify): end the call, so it gives
            # back its breaker permit, and let the hook's error through.
            if not call.finished:
                call.cancel(clock.monotonic())
            raise

    return wrapper


def _async_wrapper(fn: Callable[..., Awaitable[Any]], s: Settings) -> Callable[..., Any]:
    policy, begin, records = s.policy, s.policy.begin, s.records
    operation, scope, key = _names(fn, s)
    idempotent, fixed_clock, overrides = s.idempotent, s.clock, s.overrides
    on, classify, validate = s.on, s.classify, s.validate
    scope_of = scope if callable(scope) else None
    key_of = key if callable(key) else None
    fixed_key = None if callable(key) else key

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        clock = fixed_clock or runtime.clock
        now = clock.monotonic
        call_key = fixed_key if key_of is None else key_of(*args, **kwargs)
        call_scope = scope if scope_of is None else scope_of(*args, **kwargs)
        call = begin(now(), operation, call_scope, idempotent, call_key, overrides)
        try:
            last_exception: BaseException | None = None
            last_result: Any = None
            while call.admitted:
                try:
                    result = await bounded(fn(*args, **kwargs), call.timeout)
                except Exception as exc:
                    outcome = classify_exception(exc, on, classify)
                    delay = report(call, clock, outcome, exception_detail(exc))
                    if delay is None:
                        if records is not None:
                            deliver(policy, records)
                        error = failure(call, s, exc)
                        if error is None:
                            raise
                        raise error from exc
                    last_exception = exc
                except BaseException:
                    # Cancellation (asyncio, anyio, trio) or an interrupt: the
                    # engine records the call as cancelled, the signal goes on.
                    call.cancel(clock.monotonic())
                    if records is not None:
                        deliver(policy, records)
                    raise
                else:
                    verdict = (
                        None if validate is None else classify_result(validate(result), result)
                    )
                    if verdict is None:
                        call.on_success(now())
                        if records is not None:
                            deliver(policy, records)
                        return result
                    delay = report(call, clock, verdict, verdict[2])
                    if delay is None:
                        if records is not None:
                            deliver(policy, records)
                        raise RetryError(call.decision, last_result=result)
                    last_result = result
                if records is not None:
                    deliver(policy, records)
                try:
                    await clock.asleep(delay)
                except BaseException:
                    call.cancel(clock.monotonic())
                    raise
                call.admit(clock.monotonic())
            if records is not None:
                deliver(policy, records)
            raise stopped(call, s, last_exception, last_result)

        except BaseException:
            # A hook raised (validate, classify): end the call, so it gives
            # back its breaker permit, and let the hook's error through.
            if not call.finished:
                call.cancel(clock.monotonic())
            raise

    return wrapper
