"""A fleet shares one view: retry budgets across processes, through Redis.

Each process decides locally, in memory; a background exchange (about once a
second) sends what this process counted and brings back the fleet's totals,
so the ratio budget's floor holds once for the whole fleet instead of once
per process, and a breaker that opens or closes is sent at once (checked every
50 ms in memory). No call ever waits on Redis, and a store error is reported to
``on_error`` (and seen in ``policy.fleet_health(now)``), never raised into a
call. The exchange's logic (what is counted, the wire form, the Redis
script) is the engine's; this module only runs it::

    import redis
    import stoic
    from stoic.redis import FleetSync

    policy = stoic.Policy()
    with FleetSync(policy, redis.Redis(host="127.0.0.1")):
        ...  # calls through `policy` share its budget with the fleet

``AsyncFleetSync`` is the same for ``redis.asyncio`` clients, run as a task
(``async with AsyncFleetSync(policy, client): ...``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._clock import monotonic
from ._hooks import hook_failed
from ._records import deliver
from ._stoic import FLEET_REDIS_SCRIPT

if TYPE_CHECKING:
    from ._stoic import Policy

__all__ = ["AsyncFleetSync", "FleetSync"]

#: Seconds between exchanges: counts reach the other processes within one.
DEFAULT_INTERVAL = 1.0
#: Where the fleet's keys live; a scope's keys are ``<prefix>{<scope>}...``.
DEFAULT_PREFIX = "stoic:fleet:"
#: Seconds between looks for a breaker that opened or closed, which is sent
#: at once (an in-memory check, no store round trip).
NEWS_CHECK = 0.05


def _store_ms(reply: Any) -> int:
    """Redis ``TIME`` (seconds, microseconds) as Unix milliseconds."""
    seconds, micros = reply
    return int(seconds) * 1000 + int(micros) // 1000


def _text(reply: Any) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


class _Exchange:
    """What both adapters share: the policy, the keys, the error report."""

    def __init__(
        self,
        policy: Policy,
        client: Any,
        *,
        prefix: str,
        interval: float,
        on_error: Callable[[BaseException], None] | None,
        now: Callable[[], float],
    ) -> None:
        if not isinstance(interval, (int, float)) or not interval > 0:
            raise ValueError(f"interval must be a positive number of seconds, got {interval!r}")
        self.policy = policy
        self.prefix = prefix
        self.interval = float(interval)
        self.on_error = on_error
        self.now = now
        #: This process's id in the store (its sequence numbers are its own).
        self.process_id = secrets.token_hex(8)
        self.exchanges = 0
        self.failures = 0
        self.client = client
        # redis-py's Script for either client (sync or asyncio).
        self._script = client.register_script(FLEET_REDIS_SCRIPT)

    def key(self, scope: str) -> str:
        return f"{self.prefix}{{{scope}}}"

    def health(self) -> str:
        """Whether decisions see the fleet now: ``"detached"``, ``"live"``
        or ``"stale"`` (``policy.fleet_health(now)`` at this clock)."""
        return self.policy.fleet_health(self.now())

    def failed(self, error: BaseException) -> None:
        self.failures += 1
        self.policy.fleet_failed(self.now())
        if self.on_error is not None:
            # A reporting hook that raises never stops the exchange.
            try:
                self.on_error(error)
            except Exception as failure:
                hook_failed("on_error=", self.on_error, failure)

    def delivered(self) -> None:
        """Hands what the exchange queued (``fleet_health``, breakers the
        fleet opened or closed) to the policy's ``records=`` now, from this
        thread or task: a process making no calls hears of them too."""
        # A sink that raises never stops the exchange: ``deliver`` reports
        # it; anything else (a warning made an error) is dropped here.
        with contextlib.suppress(Exception):
            deliver(self.policy, self.policy.records)


class FleetSync(_Exchange):
    """Runs the fleet exchange for ``policy`` on a ``redis.Redis`` client, in
    a daemon thread (``start()`` / ``close()``, or ``with``)."""

    def __init__(
        self,
        policy: Policy,
        client: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        interval: float = DEFAULT_INTERVAL,
        on_error: Callable[[BaseException], None] | None = None,
        now: Callable[[], float] = monotonic,
    ) -> None:
        super().__init__(
            policy, client, prefix=prefix, interval=interval, on_error=on_error, now=now
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def exchange(self) -> bool:
        """One exchange now; ``False`` (reported to ``on_error``) if it failed."""
        try:
            store_now = _store_ms(self.client.time())
            _, scopes = self.policy.fleet_export(self.now(), store_now)
            replies = [
                _text(self._script(keys=[self.key(scope)], args=[self.process_id, text]))
                for scope, text in scopes
            ]
            self.policy.fleet_apply(self.now(), replies)
        except Exception as error:  # a store error is an event, never the caller's
            self.failed(error)
            return False
        finally:
            self.delivered()
        self.exchanges += 1
        return True

    def start(self) -> FleetSync:
        """Attaches with one exchange, then exchanges every ``interval`` seconds."""
        if self._thread is None:
            self.exchange()
            self._thread = threading.Thread(target=self._run, name="stoic-fleet", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        next_at = self.now() + self.interval
        while not self._stop.wait(min(NEWS_CHECK, self.interval)):
            if self.now() >= next_at or self.policy.fleet_has_news():
                self.exchange()
                next_at = self.now() + self.interval

    def close(self) -> None:
        """Stops the exchange, after a last one so this process's counts are sent."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            self.exchange()

    def __enter__(self) -> FleetSync:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class AsyncFleetSync(_Exchange):
    """``FleetSync`` for a ``redis.asyncio.Redis`` client, run as an asyncio task."""

    def __init__(
        self,
        policy: Policy,
        client: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        interval: float = DEFAULT_INTERVAL,
        on_error: Callable[[BaseException], None] | None = None,
        now: Callable[[], float] = monotonic,
    ) -> None:
        super().__init__(
            policy, client, prefix=prefix, interval=interval, on_error=on_error, now=now
        )
        self._task: asyncio.Task[None] | None = None

    async def exchange(self) -> bool:
        """One exchange now; ``False`` (reported to ``on_error``) if it failed."""
        try:
            store_now = _store_ms(await self.client.time())
            _, scopes = self.policy.fleet_export(self.now(), store_now)
            replies = [
                _text(await self._script(keys=[self.key(scope)], args=[self.process_id, text]))
                for scope, text in scopes
            ]
            self.policy.fleet_apply(self.now(), replies)
        except Exception as error:  # a store error is an event, never the caller's
            self.failed(error)
            return False
        finally:
            self.delivered()
        self.exchanges += 1
        return True

    async def start(self) -> AsyncFleetSync:
        """Attaches with one exchange, then exchanges every ``interval`` seconds."""
        if self._task is None:
            await self.exchange()
            self._task = asyncio.get_running_loop().create_task(self._run(), name="stoic-fleet")
        return self

    async def _run(self) -> None:
        next_at = self.now() + self.interval
        while True:
            await asyncio.sleep(min(NEWS_CHECK, self.interval))
            if self.now() >= next_at or self.policy.fleet_has_news():
                await self.exchange()
                next_at = self.now() + self.interval

    async def close(self) -> None:
        """Stops the exchange, after a last one so this process's counts are sent."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            await self.exchange()

    async def __aenter__(self) -> AsyncFleetSync:
        return await self.start()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()
