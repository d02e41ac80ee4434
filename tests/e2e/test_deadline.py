"""The total deadline caps each call, however the server stalls."""

from __future__ import annotations

from collections.abc import Callable

from batch import by_key, refs
from orders.faults import FaultPlan
from orders.server import OrdersServer

from conftest import RunClient

TOTAL = 1.5
#: How far past its deadline a call may end: process scheduling on a loaded
#: machine, not stoic's arithmetic (which never schedules past it).
SLACK = 0.5


def test_no_call_outlives_its_deadline(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient
) -> None:
    server = start_server(FaultPlan(always="slow", slow_seconds=10.0))
    sent = refs(valid=True)[:4]
    timeouts = {"connect_ms": 500, "read_ms": 500, "total_ms": int(TOTAL * 1000)}
    config = {"timeouts": timeouts, "breaker": None}
    summary = run_client(server.url, "--passes", "1", "--only", ",".join(sent), config=config)
    assert len(summary["calls"]) == len(sent)
    for call in summary["calls"]:
        assert call["outcome"] == "deferred"
        assert call["reason"] in ("deadline_exceeded", "retry_after_exceeds_deadline")
        assert call["elapsed"] <= TOTAL + SLACK, call
    for key, rows in by_key(server.store.requests()).items():
        if key is not None:
            assert rows[-1].at - rows[0].at <= TOTAL, rows
