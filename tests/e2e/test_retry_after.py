"""Retry-After is honoured, in both its forms: the next attempt comes no
sooner than the hint, and not much later (the hint replaces the backoff)."""

from __future__ import annotations

from collections.abc import Callable

from batch import by_key, refs
from orders.faults import FaultPlan
from orders.server import OrdersServer

from conftest import RunClient

#: Every order's first attempt meets a 429, half with delay-seconds, half
#: with an HTTP-date (relative to the response's own Date header).
HINTED = FaultPlan(
    seed=3,
    rate=1.0,
    faulty_attempts=1,
    weights={"retry_after_seconds": 1.0, "retry_after_date": 1.0},
    retry_after_seconds=1,
)

#: Scheduling slack on a loaded machine: generous, since it only bounds how
#: late a retry may come (the lower bound is exact).
LATE = 0.75


def test_retry_after_is_honoured(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient
) -> None:
    server = start_server(HINTED)
    sent = refs(valid=True)[:8]
    summary = run_client(server.url, "--only", ",".join(sent))
    groups = by_key(server.store.requests())
    hinted = [rows for key, rows in groups.items() if key is not None]
    assert len(hinted) == len(sent)
    forms = set()
    for first, second, *rest in hinted:
        assert first.status == 429
        assert first.hint == 1.0
        forms.add(first.fault)
        gap = second.at - first.at
        assert first.hint <= gap <= first.hint + LATE, (first, second)
        assert second.status == 201
        assert rest == []
    assert forms == {"retry_after_seconds", "retry_after_date"}
    assert summary["retry_after_waits"] == len(sent)
