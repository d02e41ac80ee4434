"""The stamina-style loop, with an idempotency key and a rejected result.

Run: .venv/bin/python examples/py_loop.py
"""

from __future__ import annotations

from collections.abc import Iterator

import stoic

replies: Iterator[dict[str, object]] = iter(
    [{"status": "pending"}, {"status": "pending"}, {"status": "done", "id": 7}]
)


def main() -> None:
    key = stoic.idempotency_key("run-42", "create_order", {"item": "tea", "qty": 2})
    reply: dict[str, object] = {}
    for attempt in stoic.retrying(
        key=key, backoff={"strategy": "constant", "base": 0.02, "cap": 1}
    ):
        with attempt:
            print(f"attempt {attempt.num} with key {attempt.idempotency_key}")
            reply = next(replies)
            if reply["status"] != "done":
                attempt.reject("order still pending")
    print("reply", reply)


if __name__ == "__main__":
    main()
