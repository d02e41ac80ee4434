"""fleet_exchange.json through the component's `policy` interface: a
policy's fleet exports and how it takes views back, as in every language."""

from __future__ import annotations

import json
from typing import Any

from engine import Engine, load, plain, record, snake
from test_policy import outcome

DOC = load("fleet_exchange.json", "fleet_exchange")


class Run:
    def __init__(self, engine: Engine, config: dict[str, Any]) -> None:
        self.engine = engine
        self.policy = engine.call("policy", "[static]policy.create", json.dumps(config))

    def on(self, name: str, *args: Any) -> Any:
        return self.engine.call("policy", f"[method]policy.{name}", self.policy, *args)

    def call(self, now: int, scope: str, statuses: list[int]) -> int:
        """One call whose attempts get `statuses` in turn: the attempts made."""
        spec = record(
            operation=scope,
            scope="",
            idempotent=True,
            method=None,
            idempotency_key=None,
            max_attempts=None,
            backoff_json=None,
        )
        handle = self.on("start", now, spec)
        t, attempts = now, 0
        for status in statuses:
            admission = plain(self.on("before-attempt", t, handle))
            if admission["kind"] != "proceed":
                break
            attempts += 1
            decision = plain(self.on("on-outcome", t + 1, handle, outcome({"status": status})))
            if decision["kind"] != "retry":
                break
            t += 1 + decision["delay_ms"]
        return attempts

    def step(self, here: str, step: dict[str, Any]) -> None:
        now = step.get("now", 0)
        op = step["op"]
        if op == "call":
            assert self.call(now, step["scope"], step["statuses"]) == step["attempts"], here
        elif op == "export":
            seq, scopes = self.on("fleet-export", now, step["store_now_ms"])
            assert seq == step["seq"], here
            assert {scope: json.loads(text) for scope, text in scopes} == step["scopes"], here
        elif op == "apply":
            self.on("fleet-apply", now, [json.dumps(reply) for reply in step["replies"]])
        elif op == "budget_status":
            ratio = json.loads(self.on("budget-status-json", now, step["scope"]))["ratio"]
            got = (ratio["requests"], ratio["retries"])
            assert got == (step["requests"], step["retries"]), here
        elif op == "breaker_state":
            assert snake(self.on("breaker-state", step["scope"])) == step["state"], here
        else:
            raise AssertionError(f"{here}: unknown op {op}")


def test_fleet_exchange_vectors(engine: Engine) -> None:
    ran = 0
    for scenario in DOC["scenarios"]:
        run = Run(engine, scenario["config"])
        for index, step in enumerate(scenario["steps"]):
            run.step(f"{scenario['name']}[{index}]", step)
            ran += 1
    assert ran > 10


def test_the_script_is_the_engines(engine: Engine) -> None:
    script = engine.call("policy", "fleet-redis-script")
    assert "HINCRBY" in script
    assert "cjson.decode" in script
