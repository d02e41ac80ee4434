"""The idempotency store outlives the server process: a retry that reaches
a restarted server (same SQLite file) is answered by a replay, not by a
second order."""

from __future__ import annotations

from pathlib import Path

import httpx
from orders.faults import FaultPlan
from orders.server import OrdersServer

from stoic.httpx import RetryTransport

ORDER = {"order_ref": "r-1", "client": "py", "sku": "kettle", "quantity": 2}


def post(url: str) -> httpx.Response:
    with httpx.Client(transport=RetryTransport(seed=1), base_url=url) as http:
        return http.post("/orders", json=ORDER, headers={"Idempotency-Key": "restart-key"})


def test_a_retry_after_a_restart_is_replayed(tmp_path: Path) -> None:
    db = str(tmp_path / "orders.sqlite")
    with OrdersServer(FaultPlan(), db=db) as first:
        created = post(first.url)
    with OrdersServer(FaultPlan(), db=db) as second:
        replayed = post(second.url)
        held = second.summary()
    assert created.status_code == 201
    assert "Idempotent-Replayed" not in created.headers
    assert replayed.status_code == 201
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.json() == created.json()
    assert held["count"] == 1
