"""The shared per-loop deadline watch behind async attempt timeouts, on a
real asyncio loop (short real sleeps: the behaviour is the timing)."""

from __future__ import annotations

import asyncio

import pytest

from stoic._deadline import bounded


def test_attempts_with_mixed_timeouts_expire_each_at_its_own() -> None:
    async def attempt(secs: float, timeout: float) -> str:
        async def work() -> str:
            await asyncio.sleep(secs)
            return "done"

        try:
            return str(await bounded(work(), timeout))
        except TimeoutError:
            return "timed out"

    async def main() -> list[str]:
        return list(
            await asyncio.gather(
                attempt(0.2, 0.05), attempt(0.05, 1.0), attempt(0.2, 0.1), attempt(0.01, 0.5)
            )
        )

    assert asyncio.run(main()) == ["timed out", "done", "timed out", "done"]


def test_a_cancel_from_outside_stays_a_cancel() -> None:
    async def main() -> None:
        task = asyncio.ensure_future(bounded(asyncio.sleep(5), 1.0))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_the_task_is_usable_after_a_timeout() -> None:
    async def main() -> str:
        with pytest.raises(TimeoutError):
            await bounded(asyncio.sleep(5), 0.02)
        await asyncio.sleep(0.01)  # no cancel left pending on this task
        return str(await bounded(asyncio.sleep(0, "after"), 1.0))

    assert asyncio.run(main()) == "after"
