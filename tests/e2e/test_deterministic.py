"""Deterministic failures reach the server once per call, and come back as
observations a caller (or an agent) can act on."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Callable

import httpx
import pytest
from batch import refs
from orders.faults import FaultPlan
from orders.server import OrdersServer

from conftest import ROOT, RunClient
from stoic.httpx import RetryTransport


def test_invalid_orders_are_sent_once_and_explained(
    start_server: Callable[[FaultPlan], OrdersServer], run_client: RunClient
) -> None:
    server = start_server(FaultPlan())
    summary = run_client(server.url)
    invalid = refs(valid=False)
    posts = Counter(r.order_ref for r in server.store.requests() if r.method == "POST")
    assert {ref: posts[ref] for ref in invalid} == dict.fromkeys(invalid, 1)
    assert sorted(summary["observations"]) == invalid
    for text in summary["observations"].values():
        assert "422" in text
        assert "not retried" in text
        assert "quantity must be" in text


def probe_py(url: str) -> dict[str, int]:
    """A 400 (an invalid key) and a 404 through the Python httpx transport."""
    transport = RetryTransport(seed=1, keys=False)
    statuses = {}
    with httpx.Client(transport=transport, base_url=url) as http:
        bad_key = http.post("/orders", json={"order_ref": "x"}, headers={"Idempotency-Key": ""})
        statuses["400"] = bad_key.status_code
        statuses["404"] = http.post("/nowhere", json={}).status_code
        statuses["404_get"] = http.get("/orders/17").status_code
    return statuses


def probe_js(url: str) -> dict[str, int]:
    """The same three calls through the npm package's fetch wrapper."""
    done = subprocess.run(
        ["node", str(ROOT / "tests/e2e/probe.mjs"), url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, int] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("probe", [probe_py, probe_js], ids=["py", "js"])
def test_400_and_404_are_not_retried(
    start_server: Callable[[FaultPlan], OrdersServer], probe: Callable[[str], dict[str, int]]
) -> None:
    server = start_server(FaultPlan())
    assert probe(server.url) == {"400": 400, "404": 404, "404_get": 404}
    rows = server.store.requests()
    assert [(r.method, r.path, r.status) for r in rows] == [
        ("POST", "/orders", 400),
        ("POST", "/nowhere", 404),
        ("GET", "/orders/17", 404),
    ]
    assert server.summary()["count"] == 0
