"""Clocks: where the host runtime reads time and sleeps.

The engine never reads a clock; the runtime passes ``monotonic()`` in and
sleeps the delays that come out. Swapping the clock (``clock=`` on a
runtime, or ``stoic.testing.set_testing``) makes every wait virtual.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Protocol

from ._stoic import monotonic

__all__ = ["Clock", "SystemClock", "VirtualClock", "async_sleep", "monotonic"]

# ``time.monotonic`` counts from an arbitrary point (the boot, on Linux), so
# two processes' readings do not compare, and a snapshot taken on a host up
# for ten days would keep a breaker open for ten days on a host just booted.
# ``monotonic`` (native: every call reads it twice, without a Python frame)
# adds the offset to the Unix scale taken once (as JavaScript's
# ``performance.timeOrigin + performance.now()``): readings stay monotonic
# within a process and mean the same instant across processes and
# languages, up to clock skew.


class Clock(Protocol):
    """What the host runtime needs from time."""

    def monotonic(self) -> float:
        """Monotonic seconds (``time.monotonic``)."""
        ...

    def wall(self) -> float:
        """Unix seconds (``time.time``), used only to date HTTP-date hints."""
        ...

    def sleep(self, seconds: float) -> None:
        """Blocks for ``seconds``."""
        ...

    async def asleep(self, seconds: float) -> None:
        """Waits ``seconds`` without blocking the event loop."""
        ...


async def async_sleep(seconds: float) -> None:
    """``asyncio.sleep``, or ``trio.sleep`` inside a trio run (so anyio on
    trio and plain trio cancel the wait the usual way)."""
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            pass
        else:
            await trio.sleep(seconds)
            return
    await asyncio.sleep(seconds)


class SystemClock:
    """The real clock: ``monotonic`` (``time.monotonic`` on the Unix scale),
    ``time.time``, ``time.sleep``."""

    __slots__ = ()

    monotonic = staticmethod(monotonic)
    wall = staticmethod(time.time)
    sleep = staticmethod(time.sleep)

    async def asleep(self, seconds: float) -> None:
        await async_sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


class VirtualClock:
    """A clock for tests: sleeping advances it instantly.

    ``sleeps`` lists every wait the runtime asked for, so a test can assert
    the schedule (``[1.0]`` for a ``Retry-After: 1``) without waiting.
    """

    def __init__(self, start: float = 0.0, wall: float = 1_750_000_000.0) -> None:
        self.now = float(start)
        self.wall_origin = float(wall) - float(start)
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.wall_origin + self.now

    def advance(self, seconds: float) -> None:
        """Moves time forward without recording a sleep."""
        self.now += max(0.0, float(seconds))

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)
        await async_sleep(0)  # still a checkpoint: cancellation lands here

    def __repr__(self) -> str:
        return f"VirtualClock(now={self.now!r}, sleeps={len(self.sleeps)})"
