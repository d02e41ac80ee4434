"""At-least-once delivery, exactly-once effect: mixed faults, and draining."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from batch import by_key, refs
from orders.faults import FaultPlan
from orders.server import OrdersServer

from conftest import RunClient

MIXED = FaultPlan(seed=11, rate=0.5)


def test_every_order_once_under_mixed_faults(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient, client: str
) -> None:
    server = start_server(MIXED)
    summary = run_client(server.url)
    held = server.summary(client)
    valid = refs(valid=True)
    assert held["count"] == len(valid)
    assert held["duplicates"] == 0
    assert sorted(o["order_ref"] for o in held["orders"]) == sorted(valid)
    assert summary["unsettled"] == []
    rows = server.store.requests()
    faults = {row.fault for row in rows}
    assert {"lost_ack", "reset", "unavailable", "error_body"} <= faults, faults
    # One key per order, across every retry and every pass.
    keys_of: dict[str | None, set[str | None]] = defaultdict(set)
    for row in rows:
        keys_of[row.order_ref].add(row.key)
    assert all(len(keys) == 1 for ref, keys in keys_of.items() if ref is not None)
    # Every lost acknowledgement was retried with the same key and answered
    # by a replay of the stored response, not by a second order.
    groups = by_key(rows)
    lost = [row for row in rows if row.answer == "created" and row.status is None]
    assert lost, "the seed injects lost acknowledgements"
    for row in lost:
        later = [r for r in groups[row.key] if r.id > row.id]
        assert any(r.answer == "replayed" and r.status == 201 for r in later), row
    assert summary["server_orders"] == len(valid)
    assert summary["server_duplicates"] == 0


def test_draining_stops_retries_and_loses_nothing(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient, client: str
) -> None:
    server = start_server(MIXED)
    first = run_client(server.url, "--drain-after", "10")
    drained_at = first["drained_at"]
    assert drained_at is not None
    unsettled = {u["order_ref"] for u in first["unsettled"]}
    assert unsettled, "draining after 10 orders leaves work for later"
    rows = server.store.requests()
    # No order left the client once it drained (0.5 s covers requests
    # already on the wire when it did; the summary's GET is not an order).
    assert [r for r in rows if r.method == "POST" and r.at > drained_at + 0.5] == []
    # Every order the server committed is known to the client: acknowledged,
    # or in its outbox to resend with the same key.
    acked = {c["order_ref"] for c in first["calls"] if c["outcome"] in ("created", "replayed")}
    committed = {o["order_ref"] for o in server.summary(client)["orders"]}
    assert committed <= acked | unsettled
    # Resending the outbox completes the batch, with no duplicate.
    run_client(server.url, "--only", ",".join(sorted(unsettled)))
    held = server.summary(client)
    assert held["count"] == len(refs(valid=True))
    assert held["duplicates"] == 0
