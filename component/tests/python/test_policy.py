"""Every `kind: "policy"` vector file through the component's `policy`
interface, as core/tests/vectors_policy.rs runs it through the Rust API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from wasmtime.component import Variant

from engine import ComponentError, Engine, load, plain, record, snake, vector_docs

SCENARIOS = [
    pytest.param(s, id=f"{name}:{s['id']}")
    for name, doc in vector_docs()
    if doc["kind"] == "policy"
    for s in doc["scenarios"]
]

# Fields that are WIT enums: their values come back kebab-case.
ENUM_FIELDS = ("class", "from", "to", "state")


def normal(value: dict[str, Any]) -> dict[str, Any]:
    """A plain decision or event with enum values in the core's spelling."""
    out = dict(value)
    for key in ENUM_FIELDS:
        if isinstance(out.get(key), str):
            out[key] = snake(out[key])
    if isinstance(out.get("record"), dict):
        log = dict(out["record"])
        line, text = log.pop("line"), log.pop("text")
        assert json.loads(line) == log, line
        assert text, log
        out["record"] = log
    if isinstance(out.get("attributes"), list):
        # A measured point's or decision's OpenTelemetry key-values.
        # wasmtime gives the attribute-value variant as its payload alone
        # (its cases have distinct Python types).
        out["attributes"] = {
            name: value["value"] if isinstance(value, dict) else value
            for name, value in out["attributes"]
        }
    return out


def check(context: str, actual: dict[str, Any], step: dict[str, Any]) -> None:
    expect = step.get("expect")
    if isinstance(expect, dict):
        for key, want in expect.items():
            assert key in actual, f"{context}: no `{key}` in {actual}"
            assert actual[key] == want, f"{context}: `{key}` of {actual}"
    for part in step.get("observation_contains", []):
        assert part in (actual.get("observation") or ""), f"{context}: {actual}"


def outcome(o: dict[str, Any]) -> Any:
    if "status" in o:
        kind = Variant("status", o["status"])
    elif "network" in o:
        kind = Variant("network", o["network"].replace("_", "-"))
    elif "rejected" in o:
        kind = Variant("rejected", o["rejected"])
    elif "raised" in o:
        kind = Variant("raised", o["raised"])
    else:
        assert o.get("success") is True, o
        kind = Variant("success")
    return record(
        kind=kind,
        headers=[tuple(h) for h in o.get("headers", [])],
        wall_now_unix_ms=o.get("wall_now_unix_ms"),
        detail=o.get("detail"),
    )


def start_spec(spec: dict[str, Any]) -> Any:
    backoff = spec.get("backoff")
    return record(
        operation=spec.get("operation", ""),
        scope=spec.get("scope", ""),
        idempotent=spec.get("idempotent"),
        method=spec.get("method"),
        idempotency_key=spec.get("idempotency_key"),
        max_attempts=spec.get("max_attempts"),
        backoff_json=None if backoff is None else json.dumps(backoff),
    )


class Run:
    """One scenario: a policy, its calls, and the steps taken on them."""

    def __init__(self, engine: Engine, config: dict[str, Any]) -> None:
        self.engine = engine
        self.config = json.dumps(config)
        self.policy = self.method("[static]policy.create", self.config)
        self.calls: dict[str, Any] = {}

    def method(self, name: str, *args: Any) -> Any:
        return self.engine.call("policy", name, *args)

    def on(self, name: str, *args: Any) -> Any:
        return self.method(f"[method]policy.{name}", self.policy, *args)

    def events(self) -> list[dict[str, Any]]:
        found = []
        while (event := self.on("poll-event")) is not None:
            found.append(normal(plain(event)))
        return found

    def step(self, context: str, step: dict[str, Any]) -> None:
        now = step.get("t_ms", 0)
        name = step.get("call", "")
        op = step["op"]
        if op == "start":
            self.calls[name] = self.on("start", now, start_spec(step["spec"]))
        elif op == "before_attempt":
            check(
                context,
                normal(plain(self.on("before-attempt", now, self.calls[name]))),
                step,
            )
        elif op == "outcome" and "expect_error" in step:
            with pytest.raises(ComponentError) as info:
                self.on("on-outcome", now, self.calls[name], outcome(step["outcome"]))
            assert info.value.error["code"] == step["expect_error"], context
        elif op == "outcome":
            got = self.on("on-outcome", now, self.calls[name], outcome(step["outcome"]))
            check(context, normal(plain(got)), step)
        elif op == "cancel":
            got = plain(self.on("cancel", now, self.calls[name]))
            check(context, normal({"kind": "give_up", **got}), step)
        elif op == "drain":
            self.on("drain")
        elif op == "set_measuring":
            self.on("set-measuring", step["on"])
        elif op == "set_wall_clock":
            self.on("set-wall-clock", now, step["wall_unix_ms"])
        elif op == "events":
            wanted = step.get("filter") or []
            events = [e for e in self.events() if not wanted or e["kind"] in wanted]
            assert len(events) == len(step["expect"]), f"{context}: {events}"
            for event, want in zip(events, step["expect"], strict=True):
                check(context, event, {"expect": want})
        elif op == "breaker_state":
            state = self.on("breaker-state", step.get("scope", ""))
            check(context, {"state": None if state is None else snake(state)}, step)
        elif op == "metrics":
            metrics = {scope: json.loads(m) for scope, m in self.on("metrics-json")}
            check(context, metrics[step.get("scope", "default")], step)
        elif op == "budget_status":
            status = self.on("budget-status-json", now, step.get("scope", ""))
            check(context, json.loads(status), step)
        elif op == "next_timeout":
            check(context, {"at": self.on("next-timeout")}, step)
        elif op == "snapshot_restore":
            assert all(
                self.engine.call("policy", "[method]call.finished", c) for c in self.calls.values()
            )
            text = self.on("snapshot")
            self.policy = self.method("[static]policy.create", self.config)
            report = plain(self.on("restore", text))
            assert report["reset"] == [], f"{context}: {report}"
            self.calls.clear()
        else:
            pytest.fail(f"{context}: unknown op {op}")


def test_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(engine: Engine, scenario: dict[str, Any]) -> None:
    run = Run(engine, scenario["config"])
    for i, step in enumerate(scenario["steps"]):
        run.step(f"{scenario['id']} step {i}", step)


def test_config_errors_name_the_field(engine: Engine) -> None:
    """config_errors.json's Rust-dialect cases: the component reads the
    core's own spelling, so the field is the Rust one."""
    cases = [
        c for c in load("config_errors.json", "config_errors")["cases"] if "rust" in c["config"]
    ]
    assert len(cases) >= 30
    for case in cases:
        got = engine.func("policy", "[static]policy.create")(
            engine.store, json.dumps(case["config"]["rust"])
        )
        error = plain(got)
        assert isinstance(error, dict), f"{case['name']}: accepted"
        assert (error["code"], error["field"]) == (
            case["code"],
            case["field"]["rust"],
        ), case["name"]
        if "problems" in case:
            assert [[p["code"], p["field"]] for p in error["problems"]] == case["problems"]["rust"]
