"""Demo client (Python): submits the batch of ``batch.json`` to the orders
server through stoic's httpx transport, and proves nothing is lost.

Every order carries an idempotency key derived from its content
(``stoic.idempotency_key``), so any repeat, by a retry or by a later pass,
is the same logical operation. Calls that stoic stops for a reason that can
clear (attempts exhausted, breaker open, budget refused, deadline) go back
to an outbox and are sent again, with the same key, in the next pass, once
the breaker's cooldown is over: at-least-once delivery on the wire,
exactly-once on the server. Invalid orders are not repeated; their
observation (what stoic tells a caller, or an agent, about a deterministic
failure) is printed instead.

As it goes it prints each decision in the log format of "Implementing Smart
Retry Logic for Transient Errors" and a progress line; at the end a summary
(``--json PATH`` writes it as JSON).
Run from ``examples/``: ``python -m orders.client http://127.0.0.1:PORT``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

import stoic
from stoic.httpx import AsyncRetryTransport

BATCH = Path(__file__).with_name("batch.json")

#: Stop reasons that can clear with time: the order goes back to the outbox.
DEFERRED = frozenset(
    {
        "attempts_exhausted",
        "budget_exhausted",
        "circuit_open",
        "deadline_exceeded",
        "retry_after_exceeds_deadline",
        "shutting_down",
    }
)


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``extra`` laid over ``base``, section by section (None removes)."""
    out = dict(base)
    for name, value in extra.items():
        if value is None:
            out[name] = None
        elif isinstance(value, dict) and isinstance(out.get(name), dict):
            out[name] = merge(out[name], value)
        else:
            out[name] = value
    return out


@dataclass
class Settled:
    """How one order's call ended."""

    order_ref: str
    key: str
    outcome: str  # created, replayed, invalid, deferred, failed, unsent
    reason: str | None = None
    observation: str | None = None
    elapsed: float = 0.0
    attempts: int = 0
    retry_at: float | None = None


@dataclass
class Tally:
    """What the client counts from the engine's events."""

    retries: int = 0
    retry_after_waits: int = 0
    budget_refusals: int = 0
    breaker_transitions: list[str] = field(default_factory=list)


class OrdersClient:
    """One client run: the batch, in passes, until nothing is left to retry."""

    def __init__(
        self,
        url: str,
        name: str,
        *,
        overrides: dict[str, Any] | None = None,
        drain_after: int | None = None,
        only: set[str] | None = None,
        concurrency: int | None = None,
        passes: int | None = None,
        out: Callable[[str], None] = print,
    ) -> None:
        doc = json.loads(BATCH.read_text())
        self.url, self.name, self.out = url, name, out
        self.orders: list[dict[str, Any]] = [
            {**order, "client": name}
            for order in doc["orders"]
            if only is None or order["order_ref"] in only
        ]
        self.max_passes = passes or int(doc["max_passes"])
        self.concurrency = concurrency or int(doc["concurrency"])
        self.drain_after = drain_after
        self.drained_at: float | None = None
        self.tally = Tally()
        config = merge(doc["policy"], overrides or {})
        self.policy = stoic.Policy.from_json(json.dumps(config), records=self._event)
        self.results: dict[str, Settled] = {}  # each order's latest call
        self.calls: list[Settled] = []  # every call, in the order they ended

    # --------------------------------------------------------------- events

    def _event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "log":
            line = str(event["line"])
            record = json.loads(line)
            if record.get("outcome") == "retry":
                self.tally.retries += 1
                if record.get("strategy") == "retry_after":
                    self.tally.retry_after_waits += 1
            self.out(f"[{self.name}] log {line}")
        elif kind == "breaker_transition":
            change = f"{event['from']}->{event['to']}"
            self.tally.breaker_transitions.append(change)
            self.out(f"[{self.name}] breaker {change} ({event.get('reason')})")
        elif kind == "budget_exhausted":
            self.tally.budget_refusals += 1
            self.out(f"[{self.name}] budget {event.get('message')}")

    # ---------------------------------------------------------------- calls

    def key_of(self, order: dict[str, Any]) -> str:
        return stoic.idempotency_key(f"orders-demo-{self.name}", "create_order", order)

    async def _submit(self, http: httpx.AsyncClient, order: dict[str, Any]) -> Settled:
        key = self.key_of(order)
        ref = str(order["order_ref"])
        if self.policy.draining:
            return Settled(ref, key, "unsent", "shutting_down")
        started = time.monotonic()
        try:
            response = await http.post("/orders", json=order, headers={"Idempotency-Key": key})
        except stoic.RetryError as err:
            outcome = "deferred" if err.reason in DEFERRED else "failed"
            return Settled(
                ref,
                key,
                outcome,
                err.reason,
                err.observation,
                time.monotonic() - started,
                err.attempts,
                err.retry_at,
            )
        except httpx.HTTPError as err:
            return Settled(
                ref,
                key,
                "failed",
                "not_retryable",
                f"{type(err).__name__}: {err}",
                time.monotonic() - started,
            )
        elapsed = time.monotonic() - started
        decision = response.extensions.get("stoic")
        if response.status_code == 201:
            replayed = response.headers.get("Idempotent-Replayed") == "true"
            return Settled(ref, key, "replayed" if replayed else "created", elapsed=elapsed)
        reason = str(decision["reason"]) if decision else f"status_{response.status_code}"
        observation = str(decision["observation"]) if decision else response.text
        attempts = int(decision["attempts"]) if decision else 1
        retry_at = decision.get("retry_at") if decision else None
        outcome = "deferred" if reason in DEFERRED else "invalid"
        return Settled(ref, key, outcome, reason, observation, elapsed, attempts, retry_at)

    async def _worker(
        self, http: httpx.AsyncClient, queue: asyncio.Queue[dict[str, Any]], total: int
    ) -> None:
        while not queue.empty():
            order = queue.get_nowait()
            settled = await self._submit(http, order)
            self.results[settled.order_ref] = settled
            self.calls.append(settled)
            done = sum(1 for s in self.results.values() if s.outcome not in ("deferred", "unsent"))
            self._progress(settled, done, total)
            if (
                self.drain_after is not None
                and done >= self.drain_after
                and not self.policy.draining
            ):
                self.policy.drain()
                self.drained_at = time.monotonic()
                self.out(f"[{self.name}] draining the policy: no new attempts from here on")

    def _progress(self, settled: Settled, done: int, total: int) -> None:
        note = f" ({settled.reason})" if settled.reason else ""
        where = f"{done}/{total} settled"
        self.out(f"[{self.name}] order {settled.order_ref}: {settled.outcome}{note}; {where}")

    async def run(self) -> dict[str, Any]:
        started = time.monotonic()
        transport = AsyncRetryTransport(policy=self.policy, validate=_ok_body)
        pending = list(self.orders)
        async with httpx.AsyncClient(transport=transport, base_url=self.url) as http:
            for number in range(1, self.max_passes + 1):
                self.out(f"[{self.name}] pass {number}: sending {len(pending)} orders")
                queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
                for order in pending:
                    queue.put_nowait(order)
                workers = [
                    self._worker(http, queue, len(self.orders)) for _ in range(self.concurrency)
                ]
                await asyncio.gather(*workers)
                pending = [o for o in pending if self.results[o["order_ref"]].outcome == "deferred"]
                if not pending or self.policy.draining:
                    break
                await asyncio.sleep(self._pause(pending))
        # What the server holds, asked outside stoic: the policy may be
        # draining or its breaker open, and this is bookkeeping, not an order.
        async with httpx.AsyncClient(base_url=self.url) as plain:
            server = (await plain.get("/orders", params={"client": self.name})).json()
        return self._summary(server, time.monotonic() - started)

    def _pause(self, pending: list[dict[str, Any]]) -> float:
        """How long the outbox waits before the next pass: until the latest
        time the engine said trying again could make sense, within limits."""
        now = time.monotonic()
        waits = [
            s.retry_at - now
            for o in pending
            if (s := self.results[o["order_ref"]]).retry_at is not None
        ]
        return min(max([0.2, *waits]), 5.0)

    def _summary(self, server: dict[str, Any], elapsed: float) -> dict[str, Any]:
        results = list(self.results.values())

        def count(outcome: str) -> int:
            return sum(1 for s in results if s.outcome == outcome)

        totals = self.policy.metrics_total()
        return {
            "client": self.name,
            "orders_sent": len(self.orders),
            "created": count("created"),
            "replayed": count("replayed"),
            "invalid": count("invalid"),
            "failed": count("failed"),
            "unsettled": [
                {"order_ref": s.order_ref, "key": s.key, "reason": s.reason}
                for s in results
                if s.outcome in ("deferred", "unsent")
            ],
            "server_orders": server["count"],
            "server_duplicates": server["duplicates"],
            "attempts": totals["attempts_total"],
            "retries": self.tally.retries,
            "retry_after_waits": self.tally.retry_after_waits,
            "breaker_transitions": self.tally.breaker_transitions,
            "budget_refusals": self.tally.budget_refusals,
            "observations": {
                s.order_ref: s.observation for s in results if s.outcome in ("invalid", "failed")
            },
            "drained_at": self.drained_at,
            "calls": [
                {
                    "order_ref": s.order_ref,
                    "key": s.key,
                    "outcome": s.outcome,
                    "reason": s.reason,
                    "elapsed": s.elapsed,
                }
                for s in self.calls
            ],
            "elapsed": elapsed,
        }


def _ok_body(response: httpx.Response) -> object:
    """A 200 whose body says ``"ok": false`` failed, whatever its status."""
    if response.status_code != 200 or "json" not in response.headers.get("content-type", ""):
        return True
    body = response.json()
    return not (isinstance(body, dict) and body.get("ok") is False)


def print_summary(summary: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """The summary, for people."""
    name = summary["client"]
    lines = [
        f"orders sent            {summary['orders_sent']}",
        f"created (acknowledged) {summary['created']}",
        f"replayed (ack was lost){summary['replayed']:>2}",
        f"invalid (not retried)  {summary['invalid']}",
        f"left unsettled         {len(summary['unsettled'])}",
        f"orders on the server   {summary['server_orders']}",
        f"duplicates             {summary['server_duplicates']}",
        f"attempts               {summary['attempts']}",
        f"retries                {summary['retries']}",
        f"retry-after honoured   {summary['retry_after_waits']}",
        f"breaker transitions    {', '.join(summary['breaker_transitions']) or 'none'}",
        f"budget refusals        {summary['budget_refusals']}",
        f"elapsed                {summary['elapsed']:.1f} s",
    ]
    out(f"[{name}] summary")
    for line in lines:
        out(f"[{name}]   {line}")
    for ref, text in sorted(summary["observations"].items()):
        out(f"[{name}]   order {ref}: {text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Submit the demo batch to the orders server through stoic."
    )
    parser.add_argument("url", help="the orders server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--name", default="py", help="client name (part of every key)")
    parser.add_argument("--config", default="{}", help="JSON laid over batch.json's policy")
    parser.add_argument("--drain-after", type=int, help="drain the policy after N orders settle")
    parser.add_argument("--only", help="comma-separated order refs to send (default: all)")
    parser.add_argument("--concurrency", type=int, help="calls in flight (default: batch.json's)")
    parser.add_argument("--passes", type=int, help="outbox passes at most (default: batch.json's)")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    args = parser.parse_args(argv)
    client = OrdersClient(
        args.url,
        args.name,
        overrides=json.loads(args.config),
        drain_after=args.drain_after,
        only=set(args.only.split(",")) if args.only else None,
        concurrency=args.concurrency,
        passes=args.passes,
        out=(lambda _line: None) if args.quiet else lambda line: print(line, flush=True),
    )
    summary = asyncio.run(client.run())
    print_summary(summary)
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
