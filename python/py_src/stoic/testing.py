"""Testing without sleeping, and switches for a test run.

``stoic.testing.set_testing(True)`` (also ``stoic.set_testing``) swaps the
clock of every runtime that was not given one for a ``VirtualClock``:
retries still happen, the engine still decides every delay, deadlines still
pass, but nothing waits. ``set_testing(True, attempts=1)`` also caps every
call's attempts (stamina's switch of the same name): a test of a failure
fails at once. ``set_active(False)`` turns retrying off entirely: every
decorated function, transport and adapter makes one attempt outside the
engine (no breaker, budget or records) and its exception reaches the caller
as itself; ``retrying()`` gives one attempt. ``virtual_time()`` does the same for a ``with``
block and gives the clock back, so a test can assert the waits::

    with stoic.testing.virtual_time() as clock:
        fetch()
    assert clock.sleeps == [1.0]

A pytest fixture is two lines::

    @pytest.fixture
    def clock():
        with stoic.testing.virtual_time() as clock:
            yield clock
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ._clock import Clock, SystemClock, VirtualClock

__all__ = [
    "VirtualClock",
    "current_clock",
    "is_active",
    "is_testing",
    "set_active",
    "set_testing",
    "virtual_time",
]


class _Runtime:
    """The clock runtimes use when they were not given one, and the
    switches of a test run."""

    __slots__ = ("active", "attempts", "clock", "plain", "testing")

    def __init__(self) -> None:
        self.clock: Clock = SystemClock()
        self.testing = False
        #: Every call's attempts while testing, when capped.
        self.attempts: int | None = None
        #: Retrying on (False: one attempt, outside the engine).
        self.active = True
        #: Retrying on and no cap: the runtimes' one check per call.
        self.plain = True

    def switched(self) -> None:
        """Recomputes ``plain`` after a switch changed."""
        self.plain = self.active and self.attempts is None


runtime = _Runtime()


def set_testing(testing: bool, *, clock: Clock | None = None, attempts: int | None = None) -> Clock:
    """Turns testing mode on (a ``VirtualClock``, or ``clock``) or off (the
    system clock). ``attempts`` caps every call's attempts while testing
    (``None``: each policy's own). Returns the clock now in use."""
    if attempts is not None and (
        not isinstance(attempts, int) or isinstance(attempts, bool) or attempts < 1
    ):
        raise ValueError(f"attempts must be a whole number of at least 1, got {attempts!r}")
    runtime.testing = bool(testing)
    if testing:
        runtime.clock = clock if clock is not None else VirtualClock()
        runtime.attempts = attempts
    else:
        runtime.clock = SystemClock()
        runtime.attempts = None
    runtime.switched()
    return runtime.clock


def set_active(active: bool) -> None:
    """Turns retrying on or off for every runtime. Off, each call makes one
    attempt, outside the engine: no breaker, budget, metrics or records, and
    an exception reaches the caller as itself (not as ``RetryError``)."""
    runtime.active = bool(active)
    runtime.switched()


def is_active() -> bool:
    """Whether retrying is on (``set_active``)."""
    return runtime.active


def is_testing() -> bool:
    """Whether testing mode is on."""
    return runtime.testing


def current_clock() -> Clock:
    """The clock runtimes without their own clock use now."""
    return runtime.clock


@contextmanager
def virtual_time(clock: VirtualClock | None = None) -> Iterator[VirtualClock]:
    """Testing mode for a ``with`` block; restores the previous clock."""
    previous = (runtime.clock, runtime.testing, runtime.attempts)
    virtual = clock if clock is not None else VirtualClock()
    runtime.clock, runtime.testing = virtual, True
    try:
        yield virtual
    finally:
        runtime.clock, runtime.testing, runtime.attempts = previous
        runtime.switched()
