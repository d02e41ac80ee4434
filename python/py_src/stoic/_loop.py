"""``stoic.retrying(...)``: the retry loop, for code that is not a function.

::

    for attempt in stoic.retrying(max_attempts=3):
        with attempt:
            send()

    async for attempt in stoic.retrying(max_attempts=3):
        with attempt:
            await send()

The ``with`` block reports how the attempt ended; the loop sleeps the
engine's delay and goes round again, or ends: after a success, by raising
``RetryError`` (or the failure itself, when it was never retryable).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator
from types import TracebackType
from typing import Any, Literal

from ._classify import Classifier, ClassOutcome, Rejected
from ._clock import Clock
from ._errors import InputError
from ._runtime import Hook, Settings
from ._steps import Steps
from ._stoic import Call, Policy
from .testing import runtime

__all__ = ["Attempt", "Retrying", "retrying"]


class Attempt:
    """One attempt: a context manager that reports how its block ended."""

    __slots__ = ("_call", "_clock", "_rejection", "_steps", "delay", "exception", "num")

    def __init__(self, call: Call, clock: Clock, steps: Steps) -> None:
        self._call = call
        self._clock = clock
        self._steps = steps
        self._rejection: Rejected | None = None
        self.num: int = call.attempts
        #: The engine's delay before the next attempt, once this one failed.
        self.delay: float | None = None
        #: The exception this attempt failed with, once it was retried.
        self.exception: BaseException | None = None

    @property
    def timeout(self) -> float | None:
        """This attempt's time limit in seconds (None: unbounded)."""
        return self._call.timeout

    @property
    def idempotency_key(self) -> str | None:
        """The call's idempotency key, the same on every attempt."""
        return self._call.idempotency_key

    def reject(self, detail: str = "", cls: str = "transient") -> None:
        """Marks the block's result as a failure (a 200 with an error body):
        the attempt is reported as rejected even if the block ends cleanly."""
        if cls == "success":
            raise InputError(
                'attempt.reject(cls="success"): a rejected result cannot be a success; '
                "leave it unrejected to accept it, or reject it as transient, "
                "deterministic or ambiguous",
                "not_a_failure",
                "cls",
            )
        self._rejection = Rejected(cls, detail)  # type: ignore[arg-type]

    def __enter__(self) -> Attempt:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        call, clock, steps = self._call, self._clock, self._steps
        if exc is None:
            rejection = self._rejection
            if rejection is None:
                call.on_success(clock.monotonic())
                return False
            verdict: ClassOutcome = ("rejected", rejection.cls, rejection.detail or None)
            self.delay = steps.rejected(call, clock, verdict, None)
            return False
        if not isinstance(exc, Exception):
            call.cancel(clock.monotonic())
            return False
        # Retried: the loop sleeps and goes round. Given up: the RetryError
        # is raised here, or ``exc`` itself goes on (False).
        self.delay = steps.raised(call, clock, exc)
        if self.delay is None:
            return False
        self.exception = exc
        return True


class _Once(Attempt):
    """The one attempt of a loop while retrying is off (``set_active``):
    nothing is reported to the engine, and the block's exception goes on."""

    __slots__ = ("_key",)

    def __init__(self, settings: Settings) -> None:  # no call: no engine
        self._rejection = None
        self.num = 1
        self.delay = None
        self.exception = None
        self._key = settings.key() if callable(settings.key) else settings.key

    @property
    def timeout(self) -> float | None:
        return None

    @property
    def idempotency_key(self) -> str | None:
        return self._key

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        return False  # the block's exception goes on, unreported


class Retrying:
    """The iterable ``retrying()`` returns; iterate it with ``for`` or
    ``async for``: a sync and an async pump of one loop (``_attempts``),
    which only sleep."""

    __slots__ = ("_settings", "_steps")

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._steps = Steps(settings, settings.operation)

    def _attempts(self, clock: Clock) -> Generator[Attempt | float, None, None]:
        """The loop, once: each attempt (the caller's ``with`` block runs
        it, and reports how it ended to the steps), then, when it is
        retried, the delay to wait before the next."""
        s, steps = self._settings, self._steps
        if not runtime.active:  # set_active(False): one attempt, no engine
            yield _Once(s)
            return
        call = steps.begin(clock, (), {})
        last: BaseException | None = None
        try:
            while call.admitted:
                attempt = Attempt(call, clock, steps)
                yield attempt
                if call.finished or attempt.delay is None:
                    return
                last = attempt.exception
                steps.retrying(call, last, None)
                yield attempt.delay
                call.admit(clock.monotonic())
            raise steps.stopped(call, last, None)
        finally:
            steps.end(call, clock)

    def __iter__(self) -> Iterator[Attempt]:
        clock = self._settings.clock or runtime.clock
        attempts = self._attempts(clock)
        try:
            for step in attempts:
                if isinstance(step, float):
                    clock.sleep(step)
                else:
                    yield step
        finally:
            attempts.close()  # the call ends with the loop, however it ends

    async def __aiter__(self) -> AsyncIterator[Attempt]:
        clock = self._settings.clock or runtime.clock
        attempts = self._attempts(clock)
        try:
            for step in attempts:
                if isinstance(step, float):
                    await clock.asleep(step)
                else:
                    yield step
        finally:
            attempts.close()


def retrying(
    *,
    policy: Policy | None = None,
    on: type[BaseException] | Iterable[type[BaseException]] | Callable[[BaseException], bool] = (),
    classify: Classifier | None = None,
    operation: str = "",
    scope: str | Callable[[], str] = "",
    idempotent: bool = True,
    key: str | None = None,
    reraise: bool = False,
    clock: Clock | None = None,
    records: Any = None,
    on_retry: Hook | None = None,
    on_give_up: Hook | None = None,
    **config: Any,
) -> Retrying:
    """A retry loop with the same keywords as ``@stoic.retry`` (see it)."""
    settings = Settings.build(
        policy=policy,
        config=config,
        records=records,
        operation=operation,
        scope=scope,
        idempotent=idempotent,
        key=key,
        on=on,
        classify=classify,
        validate=None,
        reraise=reraise,
        clock=clock,
        caller="stoic.retrying",
        signature=retrying,
        on_retry=on_retry,
        on_give_up=on_give_up,
    )
    return Retrying(settings)
