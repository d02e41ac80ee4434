"""The demo batch, as the suite needs it: which orders are valid."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from orders.server import invalid_reason
from orders.store import RequestRow

BATCH = json.loads((Path(__file__).resolve().parents[2] / "examples/orders/batch.json").read_text())
ORDERS: list[dict[str, Any]] = BATCH["orders"]


def refs(valid: bool) -> list[str]:
    """The batch's order refs, valid or invalid (the server decides which)."""
    return [
        o["order_ref"] for o in ORDERS if (invalid_reason({**o, "client": "x"}) is None) == valid
    ]


def by_key(rows: list[RequestRow]) -> dict[str | None, list[RequestRow]]:
    """The server's requests grouped by idempotency key, in arrival order."""
    groups: dict[str | None, list[RequestRow]] = defaultdict(list)
    for row in rows:
        groups[row.key].append(row)
    return groups
