"""anyio cancellation (a cancel scope's deadline) reaches a decorated
coroutine: the engine records the call as cancelled, the scope ends it."""

from __future__ import annotations

import anyio

import stoic


def test_anyio_cancel_scope_cancels_the_call() -> None:
    policy = stoic.Policy()

    @stoic.retry(policy=policy)
    async def slow() -> None:
        await anyio.sleep(10)

    async def main() -> bool:
        with anyio.move_on_after(0.05) as scope:
            await slow()
        return scope.cancelled_caught

    assert anyio.run(main) is True
    totals = policy.metrics_total()
    assert totals["calls_total"] == 1
    assert totals["gave_up_total"] == 1


def test_anyio_cancel_during_backoff_sleep() -> None:
    policy = stoic.Policy(backoff={"strategy": "constant", "base": 5, "cap": 5})
    attempts = 0

    @stoic.retry(policy=policy)
    async def flaky() -> None:
        nonlocal attempts
        attempts += 1
        raise ConnectionRefusedError()

    async def main() -> None:
        with anyio.move_on_after(0.05):
            await flaky()

    anyio.run(main)
    assert attempts == 1
    assert policy.metrics_total()["gave_up_total"] == 1
