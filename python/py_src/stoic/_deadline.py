"""Per-attempt timeouts for ``async def`` attempts, cheap enough for every call.

``asyncio.timeout`` costs about 5 us per use (a context manager, a
``TimerHandle`` in the loop's heap, cancel bookkeeping): several times the
whole retry wrapper. Every attempt has a timeout (the engine's per-attempt
limit, 30 s by default), so here the attempts of one event loop share one
loop timer. Attempts with the same timeout expire in the order they
started, so each timeout value keeps a FIFO of ``[deadline, task, expired]``
entries: watching an attempt is an append, ending it clears the entry's
task, and the timer is armed for the earliest head. Expiry cancels the
attempt's task and the attempt raises ``TimeoutError`` (the engine hears
``read_timeout``), with the same uncancel discipline as ``asyncio.timeout``.

On Python 3.10 (no ``Task.uncancel``) the attempt runs under
``asyncio.wait_for``; outside asyncio (trio) it runs unbounded, and the
total deadline still bounds the retries.
"""

from __future__ import annotations

import asyncio
import sys
import time
import weakref
from collections import deque
from collections.abc import Awaitable
from typing import Any

__all__ = ["bounded"]

# An entry: [deadline (loop time), task or None once the attempt ended, expired].
_Entry = list[Any]


class _Watchdog:
    """The deadlines of one event loop's attempts, behind one loop timer."""

    __slots__ = ("armed_at", "handle", "loop", "queues", "time")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # The default loop's time() is time.monotonic() behind a method call.
        default = type(loop).time is asyncio.BaseEventLoop.time
        self.time = time.monotonic if default else loop.time
        self.queues: dict[float, deque[_Entry]] = {}
        self.handle: asyncio.TimerHandle | None = None
        self.armed_at = float("inf")

    def watch(self, task: asyncio.Task[Any], timeout: float) -> _Entry:
        queue = self.queues.get(timeout)
        if queue is None:
            queue = self.queues[timeout] = deque()
        # Attempts that ended leave the front as new ones come, so a queue
        # holds about the attempts in flight.
        while queue and queue[0][1] is None:
            queue.popleft()
        entry: _Entry = [self.time() + timeout, task, False]
        queue.append(entry)
        if entry[0] < self.armed_at:
            self._arm(entry[0])
        return entry

    def _arm(self, at: float) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.armed_at = at
        self.handle = self.loop.call_at(at, self._fire)

    def _fire(self) -> None:
        self.handle = None
        self.armed_at = float("inf")
        now = self.time()
        earliest = float("inf")
        for timeout, queue in list(self.queues.items()):
            while queue and (queue[0][1] is None or queue[0][0] <= now):
                entry = queue.popleft()
                task = entry[1]
                if task is not None:
                    entry[2] = True
                    task.cancel()
            if queue:
                earliest = min(earliest, queue[0][0])
            else:
                del self.queues[timeout]
        if earliest < float("inf"):
            self._arm(earliest)


_dogs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Watchdog] = weakref.WeakKeyDictionary()
_last: tuple[asyncio.AbstractEventLoop, _Watchdog] | None = None


def _watchdog(loop: asyncio.AbstractEventLoop) -> _Watchdog:
    """The loop's watchdog (the last one used is kept at hand: one loop,
    almost always)."""
    global _last
    last = _last
    if last is not None and last[0] is loop:
        return last[1]
    dog = _dogs.get(loop)
    if dog is None:
        dog = _dogs[loop] = _Watchdog(loop)
    _last = (loop, dog)
    return dog


async def bounded(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    """Awaits ``awaitable``; past ``timeout`` seconds it is cancelled and
    ``TimeoutError`` is raised instead."""
    if timeout is None:
        return await awaitable
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None  # no asyncio loop (trio): unbounded
    if task is None:
        return await awaitable
    if sys.version_info < (3, 11):
        return await asyncio.wait_for(awaitable, timeout)
    entry = _watchdog(task.get_loop()).watch(task, timeout)
    answered = False
    try:
        return await awaitable
    except asyncio.CancelledError:
        if entry[2]:
            answered = True
            # Ours alone (no one else cancelled the task too): a timeout.
            if task.uncancel() == 0:
                raise TimeoutError("the attempt timed out") from None
        raise
    finally:
        entry[1] = None
        if entry[2] and not answered:
            # Expired just as the attempt ended: take the cancel back.
            task.uncancel()
