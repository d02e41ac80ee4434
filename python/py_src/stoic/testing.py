"""Testing without sleeping.

``stoic.testing.set_testing(True)`` (also ``stoic.set_testing``) swaps the
clock of every runtime that was not given one for a ``VirtualClock``:
retries still happen, the engine still decides every delay, deadlines still
pass, but nothing waits. ``virtual_time()`` does the same for a ``with``
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

__all__ = ["VirtualClock", "current_clock", "is_testing", "set_testing", "virtual_time"]


class _Runtime:
    """The clock runtimes use when they were not given one."""

    __slots__ = ("clock", "testing")

    def __init__(self) -> None:
        self.clock: Clock = SystemClock()
        self.testing = False


runtime = _Runtime()


def set_testing(testing: bool, *, clock: Clock | None = None) -> Clock:
    """Turns testing mode on (a ``VirtualClock``, or ``clock``) or off (the
    system clock). Returns the clock now in use."""
    runtime.testing = bool(testing)
    if testing:
        runtime.clock = clock if clock is not None else VirtualClock()
    else:
        runtime.clock = SystemClock()
    return runtime.clock


def is_testing() -> bool:
    """Whether testing mode is on."""
    return runtime.testing


def current_clock() -> Clock:
    """The clock runtimes without their own clock use now."""
    return runtime.clock


@contextmanager
def virtual_time(clock: VirtualClock | None = None) -> Iterator[VirtualClock]:
    """Testing mode for a ``with`` block; restores the previous clock."""
    previous = (runtime.clock, runtime.testing)
    virtual = clock if clock is not None else VirtualClock()
    runtime.clock, runtime.testing = virtual, True
    try:
        yield virtual
    finally:
        runtime.clock, runtime.testing = previous
