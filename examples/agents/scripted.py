"""What both agent runs share: the script, the scripted model's rules, the
server's faults, and what the server recorded.

- ``SCRIPT`` (``script.json``): the prompt, the three orders, how many times
  the model calls ``create_order`` for one order before it gives up, and
  the fault each POST meets, by its place among the server's POSTs;
- ``Clerk``: the scripted model's rules, with no framework in them (the
  JavaScript agent has the same rules); the pydantic-ai agent wraps it in a
  ``FunctionModel``;
- ``ScriptedFaults``: the orders server's fault plan for this demo. The
  faults hit the 1st and 5th POSTs, whatever keys they carry (the runs
  without stoic send a random key per request, so a plan drawn from the key
  would not replay);
- ``server_facts``: what the server holds and saw, read from its store.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from orders.faults import FaultPlan  # noqa: E402
from orders.server import OrdersServer  # noqa: E402

SCRIPT: dict[str, Any] = json.loads((HERE / "script.json").read_text())

#: What stoic's observation says of a write whose answer was lost.
MAY_HAVE_BEEN_APPLIED = "may already have been applied"


@dataclass
class Answer:
    """A tool's answer as the model read it."""

    tool: str
    ok: bool
    text: str


ToolCall = tuple[str, dict[str, Any]]


class Clerk:
    """The scripted model's rules: place the script's orders one at a time,
    deciding each next call from the last tool answer it was handed.

    - an answer that succeeded: the next order;
    - a failure that mentions 422: send the order again, corrected (the
      script's ``corrected_quantity``), once;
    - a failure that says the order may already have been applied: call
      ``list_orders``, and place the order again only if it is not there;
    - any other failure: call the tool again, as a model does, up to
      ``calls_per_order`` calls for one order, then give up on it.
    """

    def __init__(self, script: dict[str, Any] = SCRIPT) -> None:
        self.orders: list[dict[str, Any]] = [dict(o) for o in script["orders"]]
        self.limit = int(script["calls_per_order"])
        self.index = 0
        self.calls = 0
        self.corrected = False
        self.placed: list[str] = []
        self.given_up: list[str] = []

    def next_call(self, answer: Answer | None) -> ToolCall | None:
        """The next tool call, or None when the work is done."""
        if answer is None:
            return self._create()
        order = self.orders[self.index]
        if answer.tool == "list_orders":
            if answer.ok and f'"{order["order_ref"]}"' in answer.text:
                return self._advance(placed=True)
            return self._create()
        if answer.ok:
            return self._advance(placed=True)
        if "422" in answer.text and "corrected_quantity" in order and not self.corrected:
            self.corrected = True
            return self._create()
        if MAY_HAVE_BEEN_APPLIED in answer.text:
            return ("list_orders", {})
        if self.calls < self.limit:
            return self._create()
        return self._advance(placed=False)

    def final_text(self) -> str:
        text = f"Placed {', '.join(self.placed) or 'nothing'}."
        return f"{text} Gave up on {', '.join(self.given_up)}." if self.given_up else text

    def _create(self) -> ToolCall:
        order = self.orders[self.index]
        quantity = order["corrected_quantity"] if self.corrected else order["quantity"]
        self.calls += 1
        args = {"order_ref": order["order_ref"], "sku": order["sku"], "quantity": quantity}
        return ("create_order", args)

    def _advance(self, *, placed: bool) -> ToolCall | None:
        ref = str(self.orders[self.index]["order_ref"])
        (self.placed if placed else self.given_up).append(ref)
        self.index += 1
        self.calls = 0
        self.corrected = False
        return self._create() if self.index < len(self.orders) else None


class _PostCounter:
    """Counts the POSTs the server judged (the fault plan is asked once per POST)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen = 0

    def next(self) -> int:
        with self._lock:
            self._seen += 1
            return self._seen


@dataclass(frozen=True)
class ScriptedFaults(FaultPlan):
    """The orders server's faults by the POST's place: ``by_post[n - 1]`` is
    the fault of the n-th POST /orders (None: served normally)."""

    by_post: tuple[str | None, ...] = ()
    _posts: _PostCounter = field(default_factory=_PostCounter, compare=False, repr=False)

    def choose(self, key: str | None, attempt: int, request_number: int) -> str | None:
        n = self._posts.next()
        return self.by_post[n - 1] if n <= len(self.by_post) else None


def scripted_faults() -> ScriptedFaults:
    """A fresh plan (its own POST count) with the script's faults."""
    return ScriptedFaults(by_post=tuple(SCRIPT["faults_by_post"]))


def server_facts(server: OrdersServer) -> dict[str, Any]:
    """What the server holds and saw, from its store (not from any client)."""
    rows = server.store.requests()
    held = server.summary()
    posts = [row for row in rows if row.method == "POST"]
    return {
        "requests": len(rows),
        "posts": len(posts),
        "gets": sum(1 for row in rows if row.method == "GET"),
        "orders": [f"{o['order_ref']} (qty {o['quantity']})" for o in held["orders"]],
        "order_count": held["count"],
        "duplicates": held["duplicates"],
        "posts_by_ref": dict(Counter(str(row.order_ref) for row in posts)),
        "faults": [
            f"POST #{n} ({row.order_ref}): {row.fault}"
            for n, row in enumerate(posts, 1)
            if row.fault
        ],
        "answers": [
            f"{row.method} {row.order_ref or ''} -> {row.status or 'reset'} {row.answer}".replace(
                "  ", " "
            )
            for row in rows
        ],
    }
