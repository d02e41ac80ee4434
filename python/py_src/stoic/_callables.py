"""What ``@stoic.retry`` can decorate, and how each kind is run.

- An ``async def`` function, or an object whose ``__call__`` is one, runs
  on the async loop (its attempts awaited, each under the per-attempt
  timeout).
- Anything else callable runs on the sync loop. When such a callable
  returns a coroutine after all (``lambda: fetch()`` around an ``async
  def``, a ``functools.partial`` of an async callable object), the call
  goes on asynchronously: the caller gets an awaitable, as the callable
  would have given, and awaiting it awaits this attempt and makes the
  next ones (``resumer``). A future or a task is returned as it is.
- A generator function, an async generator function and a class are
  refused: their failures happen after the call has returned (while the
  caller iterates), or the decorator would replace a class by a function.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ._executors import async_loop
from ._runtime import Settings, dunder_call
from ._stoic import Call

__all__ = ["is_async", "resumer"]


def is_async(target: Callable[..., Any], caller: str = "@stoic.retry") -> bool:
    """Whether ``target`` is an async callable; refuses what the decorator
    cannot retry, naming it and saying what to do instead."""
    if isinstance(target, type):
        raise TypeError(
            f"{caller} decorates a function, not the class {target.__qualname__}: the class "
            "would be replaced by a function (isinstance and subclassing would break); "
            "decorate its methods, or, to retry building one, a function that builds it "
            f"(stoic.retry(lambda *args: {target.__qualname__}(*args)))"
        )
    for candidate in (target, dunder_call(target)):
        if candidate is None:
            continue
        name = getattr(target, "__qualname__", type(target).__qualname__)
        if inspect.isasyncgenfunction(candidate):
            raise TypeError(
                f"{caller} cannot retry the async generator function {name}: its failures "
                "happen while the caller iterates, after the call has returned; retry the "
                "iteration with `async for attempt in stoic.retrying(): with attempt: ...`, "
                "or decorate an async function that collects the items"
            )
        if inspect.isgeneratorfunction(candidate):
            raise TypeError(
                f"{caller} cannot retry the generator function {name}: its failures happen "
                "while the caller iterates, after the call has returned; retry the iteration "
                "with `for attempt in stoic.retrying(): with attempt: ...`, or decorate a "
                "function that returns a list"
            )
        if inspect.iscoroutinefunction(candidate):
            return True
    return False


class _Handover:
    """A call begun on the sync loop whose attempt returned an awaitable:
    the engine call, that awaitable, and the arguments of the next ones."""

    __slots__ = ("args", "call", "first", "kwargs")

    def __init__(
        self, call: Call, first: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        self.call = call
        self.first = first
        self.args = args
        self.kwargs = kwargs


async def _value(value: Any) -> Any:
    """A value the function returned without an awaitable, to await."""
    return value


def resumer(
    fn: Callable[..., Any], s: Settings, operation: str
) -> Callable[[Call, Any, tuple[Any, ...], dict[str, Any]], Any]:
    """``settings.resume`` for the sync loop of ``fn``: the coroutine that
    awaits the attempt under way and makes the next ones, on the same
    engine call (its breaker permit, its attempts, its deadline)."""

    def start(_clock: Any, handover: _Handover) -> Call:
        return handover.call  # begun and admitted by the sync loop

    def attempt(handover: _Handover) -> Any:
        first = handover.first
        if first is not None:
            handover.first = None
            return first
        result = fn(*handover.args, **handover.kwargs)
        return result if inspect.isawaitable(result) else _value(result)

    run = async_loop(s, attempt, operation, start=start)

    def resume(call: Call, first: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return run(_Handover(call, first, args, kwargs))

    return resume
