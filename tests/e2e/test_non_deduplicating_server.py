"""Unkeyed POSTs with the HTTP wrappers' defaults against a server that
ignores ``Idempotency-Key`` and commits before it fails: every POST is
stored exactly once (a careful urllib3 or ky user's expectation). With the
caller's key or the "server deduplicates" switch, against the orders
server (which does deduplicate), POSTs are retried and replayed, still
without a duplicate. Assertions are on what the servers stored."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from batch import ORDERS, refs
from naive_server import COMMITTING_FAULTS, NaiveServer
from orders.faults import FaultPlan
from orders.server import OrdersServer

from stoic.httpx import RetryTransport

ROOT = Path(__file__).resolve().parents[2]
FAST: dict[str, Any] = {
    "seed": 5,
    "timeouts": {"read": 0.4},
    "backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05},
}
# Each faulty POST is followed by a healthy one, so the host's breaker (5
# consecutive failures) stays closed and every POST reaches the server.
POSTS: list[dict[str, Any]] = []
for _fault in (*COMMITTING_FAULTS, "503"):
    for _i in range(2):
        POSTS.append({"path": f"/orders?fault={_fault}", "body": {"ref": f"{_fault}-{_i}"}})
        POSTS.append({"path": "/orders", "body": {"ref": f"ok-after-{_fault}-{_i}"}})


@pytest.fixture
def naive(tmp_path: Path) -> Iterator[NaiveServer]:
    server = NaiveServer(tmp_path / "naive.sqlite", slow_secs=1.0).start()
    yield server
    server.stop()


def post_py(url: str, posts: list[dict[str, Any]], **transport: Any) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    with httpx.Client(transport=RetryTransport(**transport, **FAST)) as client:
        for post in posts:
            try:
                response = client.post(f"{url}{post['path']}", json=post["body"])
                results.append({"status": response.status_code})
            except Exception as exc:  # what the caller would see
                results.append({"code": type(exc).__name__})
    return results


def post_js(url: str, posts: list[dict[str, Any]], **options: Any) -> list[dict[str, Any]]:
    done = subprocess.run(
        [
            "node",
            str(ROOT / "tests" / "e2e" / "post_client.mjs"),
            url,
            json.dumps(options),
            json.dumps(posts),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    results: list[dict[str, Any]] = json.loads(done.stdout)
    return results


POSTERS: dict[str, Callable[..., list[dict[str, Any]]]] = {"py": post_py, "js": post_js}


@pytest.mark.parametrize("client", ["py", "js"])
def test_every_unkeyed_post_is_stored_once(naive: NaiveServer, client: str) -> None:
    results = POSTERS[client](naive.url, POSTS)
    stored = Counter(ref for ref, _ in naive.orders())
    duplicated = {ref: n for ref, n in stored.items() if n > 1}
    assert not duplicated, f"{client}: duplicates on a server that ignores keys: {duplicated}"
    # Every POST reached the server; the ones turned away (503) were retried.
    assert set(stored) == {post["body"]["ref"] for post in POSTS}
    outcomes = dict(zip([p["body"]["ref"] for p in POSTS], results, strict=True))
    assert outcomes["503-0"] == {"status": 201}
    assert outcomes["ok-after-lost_ack-0"] == {"status": 201}
    for fault in ("500", "502", "504"):
        # The final answer is the server's own: the caller sees what happened.
        assert (
            outcomes[f"{fault}-0"].get("status") == int(fault)
            or outcomes[f"{fault}-0"].get("code") == "not_idempotent"
        ), outcomes
    # The automatic key was still sent on every POST.
    assert all(key for _, key in naive.orders())


@pytest.mark.parametrize("client", ["py", "js"])
def test_a_caller_key_or_the_dedup_switch_is_retried_and_replayed(
    start_server: Callable[[FaultPlan], OrdersServer], client: str
) -> None:
    plan = FaultPlan(seed=3, rate=1.0, weights={"lost_ack": 1.0}, faulty_attempts=1)
    server = start_server(plan)
    valid = set(refs(valid=True))
    orders = [{**o, "client": client} for o in ORDERS if o["order_ref"] in valid][:4]
    posts = [{"path": "/orders", "body": order} for order in orders]
    if client == "py":
        results = post_py(server.url, posts, server_deduplicates=True)
    else:
        results = post_js(server.url, posts, serverDeduplicates=True)
    assert [r.get("status") for r in results] == [201] * len(orders), results
    summary = server.summary()
    assert (summary["count"], summary["duplicates"]) == (len(orders), 0)
    # Each POST met a lost acknowledgement first: it was sent again, and replayed.
    assert len([r for r in server.store.requests() if r.method == "POST"]) == 2 * len(orders)


@pytest.mark.parametrize("client", ["py", "js"])
def test_the_dedup_switch_is_a_claim_about_the_server(naive: NaiveServer, client: str) -> None:
    # Declaring that a server deduplicates when it does not brings back the
    # duplicates: the switch is what makes repeating a POST safe, so the
    # default stays off.
    posts = [{"path": "/orders?fault=lost_ack", "body": {"ref": "claimed"}}]
    if client == "py":
        results = post_py(naive.url, posts, server_deduplicates=True)
    else:
        results = post_js(naive.url, posts, serverDeduplicates=True)
    assert results == [{"status": 201}]
    assert Counter(ref for ref, _ in naive.orders())["claimed"] == 2
