"""@stoic.retry on a flaky function, sync and async.

Run: .venv/bin/python examples/py_decorator.py
"""

from __future__ import annotations

import asyncio

import stoic

calls = {"sync": 0, "async": 0}


@stoic.retry(max_attempts=4, backoff={"base": 0.05, "cap": 0.5})
def fetch_price(item: str) -> float:
    calls["sync"] += 1
    if calls["sync"] < 3:
        raise ConnectionResetError("the price service hung up")
    return 9.99


@stoic.retry(max_attempts=4, backoff={"base": 0.05, "cap": 0.5})
async def fetch_stock(item: str) -> int:
    calls["async"] += 1
    if calls["async"] < 2:
        raise TimeoutError("the stock service is slow")
    return 42


@stoic.retry(max_attempts=3, backoff={"strategy": "constant", "base": 0.01, "cap": 0.01})
def always_down() -> None:
    raise ConnectionRefusedError("nobody home")


def main() -> None:
    print("price", fetch_price("tea"), "after", calls["sync"], "attempts")
    print("stock", asyncio.run(fetch_stock("tea")), "after", calls["async"], "attempts")
    try:
        always_down()
    except stoic.RetryError as error:
        print("gave up:", error.reason, "after", error.attempts, "attempts")
        print("observation:", error.observation)


if __name__ == "__main__":
    main()
