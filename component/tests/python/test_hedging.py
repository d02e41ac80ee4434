"""tests/vectors/hedging.json through the component's hedged calls
(`policy.start-hedged`, `hedge-poll`, `hedge-outcome`, `hedge-cancel`, the
`hedged-call` resource) and `hedging-settings`, as
core/tests/vectors_hedging.rs runs it through the Rust API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from wasmtime.component import Variant

from engine import ComponentError, Engine, load, plain, record, snake

DOC = load("hedging.json", "hedging")


def copies(bits: int) -> list[int]:
    """A `copies` bit set as the vectors write it: the copies, lowest first."""
    assert 0 <= bits < 1 << 5, f"copies beyond the fifth: {bits:#b}"
    return [n for n in range(1, 6) if bits & (1 << (n - 1))]


def wire(step: dict[str, Any]) -> dict[str, Any]:
    """A plain `hedge-step` in the vectors' spelling: the done or give-up
    record's fields beside the step's, `cancel` as a list."""
    out = dict(step)
    for nested in ("done", "give_up"):
        if isinstance(out.get(nested), dict):
            out.update(out.pop(nested))
    if "cancel" in out:
        out["cancel"] = copies(out["cancel"])
    if "retry_at" in out:
        out["retry_at_ms"] = out.pop("retry_at")
    if isinstance(out.get("class"), str):
        out["class"] = snake(out["class"])
    return out


def check(context: str, actual: dict[str, Any], expect: dict[str, Any] | None) -> None:
    for key, want in (expect or {}).items():
        if key == "observation_contains":
            assert want in (actual.get("observation") or ""), f"{context}: {actual}"
        else:
            assert key in actual, f"{context}: no `{key}` in {actual}"
            assert actual[key] == want, f"{context}: field `{key}` of {actual}"


def hedged_spec(spec: dict[str, Any]) -> Any:
    return record(
        operation=spec.get("operation", "op"),
        scope=spec.get("scope", ""),
        idempotent=spec.get("idempotent"),
        method=spec.get("method"),
        idempotency_key=spec.get("idempotency_key"),
    )


def outcome_of(o: dict[str, Any]) -> Any:
    """A vector's outcome (`success`, `status` with headers as an object, or
    `network`) as WIT's `outcome`."""
    if "status" in o:
        kind = Variant("status", o["status"])
    elif "network" in o:
        kind = Variant("network", o["network"].replace("_", "-"))
    else:
        assert o.get("success") is True, f"unknown outcome {o}"
        kind = Variant("success")
    headers = list((o.get("headers") or {}).items())
    return record(kind=kind, headers=headers, wall_now_unix_ms=None, detail=None)


class Runner:
    def __init__(self, engine: Engine, scenario: dict[str, Any]) -> None:
        self.engine = engine
        self.policy = engine.call("policy", "[static]policy.create", json.dumps(scenario["config"]))
        self.hedging = json.dumps(scenario.get("hedging") or {})
        self.calls: dict[str, Any] = {}
        self.steps_run = 0

    def on(self, name: str, *args: Any) -> Any:
        return self.engine.call("policy", f"[method]policy.{name}", self.policy, *args)

    def of_call(self, name: str, call: Any) -> Any:
        return self.engine.call("policy", f"[method]hedged-call.{name}", call)

    def run(self, steps: list[dict[str, Any]], at: str, round_: int | None = None) -> list[str]:
        kinds: list[str] = []
        for index, step in enumerate(steps):
            here = f"{at}[{index}]"
            if "repeat" in step:
                inner: list[str] = []
                for i in range(step["repeat"]):
                    inner.extend(self.run(step["steps"], f"{here}#{i}", i))
                if "expect_kinds" in step:
                    tally: dict[str, int] = {}
                    for seen in inner:
                        tally[seen] = tally.get(seen, 0) + 1
                    assert tally == step["expect_kinds"], f"{here}: kinds {tally}"
                kinds.extend(inner)
            else:
                answered = self.step(step, here, round_)
                if answered is not None:
                    kinds.append(answered)
        return kinds

    def step(self, step: dict[str, Any], here: str, round_: int | None) -> str | None:
        self.steps_run += 1
        now = step.get("t_ms", 0)
        name = str(step.get("call", "")).replace("{i}", "" if round_ is None else str(round_))
        op = step["op"]
        kind: str | None = None
        if op == "start":
            spec = hedged_spec(step["spec"])
            hedging = json.dumps(step["hedging"]) if "hedging" in step else self.hedging
            if "expect_error" in step:
                with pytest.raises(ComponentError) as info:
                    self.on("start-hedged", now, spec, hedging)
                got = {"code": info.value.error["code"], "field": info.value.error["field"]}
                assert got == step["expect_error"], f"{here}: {info.value.error}"
            else:
                self.calls[name] = self.on("start-hedged", now, spec, hedging)
        elif op in ("poll", "outcome", "cancel"):
            call = self.calls[name]
            if op == "outcome":
                got = self.on("hedge-outcome", now, call, step["copy"], outcome_of(step["outcome"]))
            else:
                got = self.on(f"hedge-{op}", now, call)
            answer = wire(plain(got))
            answer["next_timeout_ms"] = self.of_call("next-timeout", call)
            answer["in_flight"] = copies(self.of_call("in-flight", call))
            finished = self.of_call("finished", call)
            assert finished == (answer["kind"] in ("done", "give_up")), f"{here}: {answer}"
            check(here, answer, step.get("expect"))
            kind = answer["kind"]
        elif op == "drain":
            self.on("drain")
        elif op == "scope":
            scope = step.get("scope", "")
            status = self.on("budget-status-json", now, scope)
            ratio = None if status is None else json.loads(status).get("ratio")
            state = self.on("breaker-state", scope)
            actual = {
                "latency_samples": self.on("latency-samples", scope),
                "hedge_delay_ms": self.on("hedge-delay-ms", scope, self.hedging),
                "ratio": None
                if ratio is None
                else {"requests": ratio["requests"], "retries": ratio["retries"]},
                "breaker": None if state is None else snake(state),
            }
            check(here, actual, step.get("expect"))
        else:
            raise AssertionError(f"{here}: unknown op {op}")
        # Every step drains the events; a step listing them checks the
        # breaker's and the budget's.
        codes = []
        while (event := self.on("poll-event")) is not None:
            event_kind = plain(event)["kind"]
            if event_kind in ("breaker_transition", "budget_exhausted"):
                codes.append(event_kind)
        if "events" in step:
            assert codes == step["events"], f"{here}: events {codes}"
        return kind


@pytest.mark.parametrize("scenario", DOC["scenarios"], ids=lambda s: s["id"])
def test_hedging_scenario(engine: Engine, scenario: dict[str, Any]) -> None:
    runner = Runner(engine, scenario)
    runner.run(scenario["steps"], scenario["id"])
    assert runner.steps_run > 0


def test_the_scenarios_run_enough_steps(engine: Engine) -> None:
    total = 0
    for scenario in DOC["scenarios"]:
        runner = Runner(engine, scenario)
        runner.run(scenario["steps"], scenario["id"])
        total += runner.steps_run
    assert total >= 100


@pytest.mark.parametrize("case", DOC["config_errors"], ids=lambda c: json.dumps(c["hedging"]))
def test_hedging_config_error(engine: Engine, case: dict[str, Any]) -> None:
    """The settings refused by `hedging-settings` and by `start-hedged` alike,
    the field in the core's (Rust) spelling."""
    text = json.dumps(case["hedging"])
    with pytest.raises(ComponentError) as info:
        engine.call("policy", "hedging-settings", text)
    assert (info.value.error["code"], info.value.error["field"]) == (case["code"], case["field"])
    policy = engine.call("policy", "[static]policy.create", json.dumps({"seed": 1}))
    spec = hedged_spec({"method": "GET"})
    with pytest.raises(ComponentError) as info:
        engine.call("policy", "[method]policy.start-hedged", policy, 0, spec, text)
    assert (info.value.error["code"], info.value.error["field"]) == (case["code"], case["field"])


@pytest.mark.parametrize("case", DOC["valid"], ids=lambda c: json.dumps(c["hedging"]))
def test_valid_hedging_reads_back_with_its_defaults(engine: Engine, case: dict[str, Any]) -> None:
    written = engine.call("policy", "hedging-settings", json.dumps(case["hedging"]))
    assert json.loads(written) == case["resolved"]


def test_a_dropped_hedged_call_gives_its_copies_back(engine: Engine) -> None:
    """A hedged call dropped with a copy in flight gives back the breaker's
    half-open probe slot, so the next call is admitted (otherwise the
    breaker would wait for a probe nobody will report)."""
    config = {
        "seed": 1,
        "breaker": {
            "trip": {"kind": "consecutive_failures", "threshold": 1},
            "cooldown_ms": 10,
            "half_open": {"max_probes": 1},
        },
    }
    policy = engine.call("policy", "[static]policy.create", json.dumps(config))
    hedging = json.dumps({"delay": {"kind": "fixed", "after_ms": 1000}})
    spec = hedged_spec({"method": "GET", "scope": "api"})

    def start_and_send(now: int) -> tuple[Any, dict[str, Any]]:
        call = engine.call("policy", "[method]policy.start-hedged", policy, now, spec, hedging)
        step = plain(engine.call("policy", "[method]policy.hedge-poll", policy, now, call))
        return call, step

    call, step = start_and_send(0)
    assert step["kind"] == "send", step
    failed = outcome_of({"status": 503})
    engine.call("policy", "[method]policy.hedge-outcome", policy, 0, call, 1, failed)
    assert engine.call("policy", "[method]policy.breaker-state", policy, "api") == "open"
    probe, step = start_and_send(20)
    assert step["kind"] == "send", f"the half-open probe was not sent: {step}"
    probe.drop(engine.store)
    _, step = start_and_send(20)
    assert step["kind"] == "send", f"the dropped probe's slot was not given back: {step}"


def test_another_policys_hedged_call_is_refused(engine: Engine) -> None:
    create = "[static]policy.create"
    one = engine.call("policy", create, json.dumps({"seed": 1}))
    two = engine.call("policy", create, json.dumps({"seed": 2}))
    spec = hedged_spec({"method": "GET"})
    call = engine.call("policy", "[method]policy.start-hedged", one, 0, spec, "{}")
    with pytest.raises(ComponentError) as info:
        engine.call("policy", "[method]policy.hedge-poll", two, 0, call)
    assert info.value.error["code"] == "misuse"
