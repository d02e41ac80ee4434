"""backoff.json, breaker_scenarios.json, budget.json and records.json
through the component's `backoff` and `parts` interfaces."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from wasmtime.component import Record, Variant

from engine import ComponentError, Engine, load, plain, record, snake


def test_backoff(engine: Engine) -> None:
    doc = load("backoff.json", "backoff")
    for case in doc["cases"]:
        backoff = engine.call(
            "backoff", "[static]backoff.create", json.dumps(case["spec"]), case["seed"]
        )
        got = [
            engine.call("backoff", "[method]backoff.delay-ms", backoff, k) for k in case["retries"]
        ]
        assert got == case["expected_ms"], case["name"]
    for case in doc["invalid_cases"]:
        with pytest.raises(ComponentError) as info:
            engine.call("backoff", "[static]backoff.create", json.dumps(case["spec"]), 0)
        assert (info.value.error["code"], info.value.error["field"]) == (
            case["code"],
            case["field"],
        )


class Breaker:
    def __init__(self, engine: Engine, handle: Any) -> None:
        self.engine, self.handle = engine, handle

    def __getattr__(self, name: str) -> Any:
        method = f"[method]breaker.{name.replace('_', '-')}"
        return lambda *args: self.engine.call("parts", method, self.handle, *args)

    def restored(self) -> Breaker:
        text = self.snapshot()
        return Breaker(
            self.engine,
            self.engine.call("parts", "[static]breaker.from-snapshot", text),
        )


def breaker_step(b: Breaker, step: dict[str, Any], permits: dict[str, Any]) -> dict[str, Any]:
    now, duration, name = step["t_ms"], step.get("duration_ms", 0), step.get("permit", "")
    op = step["op"]
    seen: dict[str, Any] = {}
    if op in ("acquire", "call_success", "call_failure"):
        admit = b.try_acquire(now)
        seen["admitted"] = admit.tag == "admitted"
        if seen["admitted"]:
            if name:
                permits[name] = admit.payload
            if op == "call_success":
                seen["counted"] = b.on_success(now, admit.payload, duration)
            elif op == "call_failure":
                seen["counted"] = b.on_failure(now, admit.payload, duration)
        else:
            seen["rejection"] = plain(admit.payload)
    elif op == "success":
        seen["counted"] = b.on_success(now, permits[name], duration)
    elif op == "failure":
        seen["counted"] = b.on_failure(now, permits[name], duration)
    elif op == "release":
        seen["counted"] = b.release(permits[name])
    else:
        assert op == "observe", op
    return seen


@pytest.mark.parametrize("restore_every_step", [False, True])
def test_breaker_scenarios(engine: Engine, restore_every_step: bool) -> None:
    doc = load("breaker_scenarios.json", "breaker")
    assert len(doc["scenarios"]) >= 29
    for scenario in doc["scenarios"]:
        b = Breaker(
            engine,
            engine.call("parts", "[static]breaker.create", json.dumps(scenario["config"])),
        )
        permits: dict[str, Any] = {}
        for n, step in enumerate(scenario["steps"]):
            ctx = f"{scenario['id']} step {n}"
            if restore_every_step:
                b = b.restored()
            seen: dict[str, Any] = {}
            for _ in range(step.get("repeat", 1)):
                seen = breaker_step(b, step, permits)
            drained = []
            while (t := b.poll_transition()) is not None:
                got = plain(t)
                drained.append(
                    {
                        "from": snake(got["from"]),
                        "to": snake(got["to"]),
                        "at_ms": got["at"],
                        "reason": got["reason"],
                    }
                )
            now = step["t_ms"]
            state = json.loads(b.state_json())
            for key, want in step.get("expect", {}).items():
                if key in ("admitted", "counted"):
                    got_value: Any = seen[key]
                elif key == "reject_reason":
                    got_value = seen["rejection"]["reason"]
                elif key == "retry_at_ms":
                    got_value = seen["rejection"]["retry_at"]
                elif key == "state":
                    got_value = snake(b.state_at(now))
                    assert got_value == state["kind"], ctx
                elif key in ("consecutive_failures", "probes_in_flight", "successes"):
                    got_value = state[key]
                elif key == "window":
                    text = b.window_counts_json(now)
                    got_value = None if text is None else json.loads(text)
                elif key == "next_timeout_ms":
                    got_value = b.next_timeout()
                elif key == "transitions":
                    got_value = drained
                else:
                    pytest.fail(f"{ctx}: unknown expect key {key}")
                assert got_value == want, f"{ctx}: {key}"


COSTS = {
    "retry": "normal",
    "retry_timeout": "timeout",
    "retry_throttling": "throttling",
}


class BudgetRun:
    """One budget scenario: the budget, its tickets, and the steps taken."""

    def __init__(self, engine: Engine, config: dict[str, Any]) -> None:
        self.engine = engine
        self.budget = engine.call("parts", "[static]budget.create", json.dumps(config))
        self.tickets: dict[str, Any] = {}
        self.ended: dict[str, Any] = {}
        self.steps = 0

    def call(self, name: str, *args: Any) -> Any:
        return self.engine.call("parts", f"[method]budget.{name}", self.budget, *args)

    def run(self, steps: list[dict[str, Any]], at: str) -> None:
        for index, step in enumerate(steps):
            here = f"{at}[{index}]"
            if "repeat" in step:
                for round_ in range(step["repeat"]):
                    self.run(step["steps"], f"{here}#{round_}")
            else:
                self.step(step, here)

    def step(self, step: dict[str, Any], here: str) -> None:
        self.steps += 1
        now, name, op = step["t_ms"], step.get("call", ""), step["op"]
        grant = None
        if op in COSTS:
            # wasmtime-py gives a variant whose cases it can tell apart by
            # type untagged: a ticket record, or the refusing budget's name.
            grant = self.call("try-retry", now, COSTS[op])
            if isinstance(grant, Record):
                self.tickets[name] = grant
        elif op == "first_attempt":
            self.tickets.pop(name, None)
            self.call("on-first-attempt", now)
        elif op == "failure":
            self.call("on-attempt-failure", now)
        elif op == "success":
            self.call("on-attempt-success", now, None)
        elif op == "success_after_retry":
            self.ended[name] = self.tickets.pop(name)
            self.call("on-attempt-success", now, self.ended[name])
        elif op == "success_after_retry_again":
            self.call("on-attempt-success", now, self.ended[name])
        elif op == "reconfigure":
            self.call("reconfigure", json.dumps(step["config"]))
        else:
            pytest.fail(f"{here}: unknown op {op}")
        events = []
        while (event := self.call("poll-event")) is not None:
            got = plain(event)
            assert got.pop("message"), here
            events.append(got)
        snapshot = self.call("snapshot")
        again = self.engine.call("parts", "[static]budget.from-snapshot", snapshot)
        assert self.engine.call("parts", "[method]budget.snapshot", again) == snapshot, here
        status = json.loads(self.call("status-json", now))
        allowed = isinstance(grant, Record)
        for key, want in step.get("expect", {}).items():
            if key == "allowed":
                got_value: Any = allowed
            elif key == "refused_by":
                got_value = grant if isinstance(grant, str) else None
            elif key == "cost":
                got_value = plain(grant)["token_cost"] if allowed else None
            elif key == "tokens":
                got_value = status["token_bucket"] and status["token_bucket"]["tokens"]
            elif key == "grpc_milli_tokens":
                got_value = status["grpc"] and status["grpc"]["milli_tokens"]
            elif key == "run_cap_used":
                got_value = status["run_cap"] and status["run_cap"]["used"]
            elif key == "ratio":
                got_value = status["ratio"]
            elif key == "events":
                got_value = events
            else:
                pytest.fail(f"{here}: unknown expect key {key}")
            assert got_value == want, f"{here}: {key}"


def test_budget_scenarios(engine: Engine) -> None:
    doc = load("budget.json", "budget")
    total = 0
    for scenario in doc["scenarios"]:
        run = BudgetRun(engine, scenario["config"])
        run.run(scenario["steps"], scenario["id"])
        total += run.steps
    assert total > 1000
    for case in doc["config_errors"]:
        with pytest.raises(ComponentError) as info:
            engine.call("parts", "[static]budget.create", json.dumps(case["config"]))
        # Fields are named as the caller wrote them: relative to the part.
        want = (case["code"], case["field"].removeprefix("budget."))
        assert (info.value.error["code"], info.value.error["field"]) == want, case


def test_log_records(engine: Engine) -> None:
    doc = load("records.json", "records")
    for case in doc["log_cases"]:
        i = case["input"]
        error = i["error"]
        got = engine.call(
            "parts",
            "format-log-record",
            record(
                wall_now_unix_ms=i["wall_now_unix_ms"],
                operation=i["operation"],
                attempt=i["attempt"],
                max_attempts=i["max_attempts"],
                delay_ms=i["delay_ms"],
                error=None
                if error is None
                else record(code=error["code"], message=error["message"]),
                strategy=i["strategy"],
                outcome=i["outcome"],
                total_duration_ms=i["total_duration_ms"],
            ),
        )
        log = plain(got)
        assert log["line"] == case["expected_json_line"], case["name"]
        assert log["text"] == case["expected_display"], case["name"]


def close_enough(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    if set(actual) != set(expected):
        return False
    for key, want in expected.items():
        if key in ("value", "threshold"):
            if not math.isclose(actual[key], want, rel_tol=0, abs_tol=1e-12):
                return False
        elif actual[key] != want:
            return False
    return True


def test_metrics(engine: Engine) -> None:
    doc = load("records.json", "records")

    def call(name: str, *args: Any) -> Any:
        return engine.call("parts", f"[method]metrics.{name}", *args)

    for scenario in doc["metrics_scenarios"]:
        metrics = engine.call(
            "parts", "[static]metrics.create", json.dumps(scenario["alert_config"])
        )
        events = []
        for step in scenario["steps"]:
            now, op = step["t_ms"], step["op"]
            if op == "attempt":
                call("on-attempt", metrics, now, step["is_retry"])
            elif op == "retry_scheduled":
                call("on-retry-scheduled", metrics, now)
            elif op == "call_finished":
                call(
                    "on-call-finished",
                    metrics,
                    now,
                    step["retries"],
                    step["outcome"],
                    step["duration_ms"],
                )
            elif op == "breaker_state":
                known = call("set-breaker-state", metrics, step["state"])
                assert known == (step["state"] in ("closed", "half_open", "open"))
            elif op == "evaluate":
                call("evaluate", metrics, now)
            else:
                pytest.fail(op)
            while (e := call("poll-event", metrics)) is not None:
                events.append({"kind": "alert_changed", **plain(e)})
        assert json.loads(call("snapshot-json", metrics)) == scenario["expected_snapshot"], (
            scenario["name"]
        )
        expected = scenario["expected_alert_events"]
        assert len(events) == len(expected), scenario["name"]
        for actual, want in zip(events, expected, strict=True):
            assert close_enough(actual, want), (scenario["name"], actual, want)
    for case in doc["merge_cases"]:
        merged = engine.call("parts", "merge-metrics", json.dumps(case["a"]), json.dumps(case["b"]))
        assert json.loads(merged) == case["expected"], case["name"]
    for case in doc["catalogue_cases"]:
        given = [(scope, json.dumps(m)) for scope, m in case["metrics"].items()]
        catalogue = engine.call("parts", "metric-catalogue", given)
        assert json.loads(catalogue) == case["expected"], case["name"]


def entry(stored: dict[str, Any]) -> Any:
    state = dict(stored["state"])
    kind = state.pop("kind")
    return record(
        fingerprint=stored["fingerprint"],
        state=Variant(kind.replace("_", "-"), record(**state)),
    )


def test_server_idempotency(engine: Engine) -> None:
    doc = load("server_idempotency.json", "server_idempotency")
    assert len(doc["cases"]) >= 10
    for case in doc["cases"]:
        server = engine.call(
            "server",
            "[static]server-idempotency.create",
            json.dumps(case.get("config", {})),
        )
        stored = case["stored"]
        decision = engine.call(
            "server",
            "[method]server-idempotency.decide",
            server,
            case["now_unix_ms"],
            case["key"],
            case["fingerprint"],
            None if stored is None else entry(stored),
        )
        assert plain(decision) == case["expected"], case["name"]
    for case in doc["fingerprint_cases"]:
        assert engine.call("server", "fingerprint", case["body"]) == case["expected"]
