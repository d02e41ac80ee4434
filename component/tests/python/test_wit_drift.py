"""wit/stoic.wit against the core, as the component shows it.

The WIT is parsed (a small parser for the subset it uses: interfaces,
records, enums, variants, type aliases, resources and functions, with their
`///` docs). The core's side comes from the component: the codes its errors
list when handed an unknown one (the schema's own lists), the JSON documents
it writes (snapshots, log lines) and the values it returns. No code list is
copied here; where a list is not reachable from the component, the test says
so in a comment rather than pinning one.

Compared:
- each enum's cases (`connect-refused` for `connect_refused`) with the core's
  list of the same codes;
- the codes a doc comment names for a string field (`breaker-transition.reason`:
  `cooldown_elapsed`, ...) with the codes the core has for that field;
- records that carry a core document (a breaker transition, a budget event,
  a log record) with the keys of that document as the core writes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine import ROOT, ComponentError, Engine, plain, record

WIT = ROOT / "wit/stoic.wit"

# ---------------------------------------------------------------- the parser


@dataclass
class Member:
    """A record's field, an enum's or variant's case, or a function."""

    name: str
    type: str
    doc: str
    params: list[str] = field(default_factory=list)


@dataclass
class Item:
    kind: str
    name: str
    doc: str
    members: list[Member]

    def member(self, name: str) -> Member:
        for m in self.members:
            if m.name == name:
                return m
        raise AssertionError(f"wit/stoic.wit: {self.kind} {self.name} has no {name}")

    def names(self) -> list[str]:
        return [m.name for m in self.members]


def split_top(text: str) -> list[str]:
    """`text` split at the commas outside `<>` and `()`."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def unescape(name: str) -> str:
    return name.lstrip("%")


def member_of(kind: str, text: str, doc: str) -> Member:
    if kind in ("record",):
        name, _, type_ = text.partition(":")
        return Member(unescape(name.strip()), type_.strip(), doc)
    if kind == "variant":
        match = re.fullmatch(r"(%?[\w-]+)\s*(?:\((.*)\))?", text)
        assert match, f"wit/stoic.wit: cannot read variant case {text!r}"
        return Member(unescape(match.group(1)), match.group(2) or "", doc)
    return Member(unescape(text), "", doc)


FUNC = re.compile(r"(%?[\w\[\].-]+)\s*:\s*(?:static\s+)?func\((.*?)\)(?:\s*->\s*(.*))?;")


def func_of(line: str, doc: str) -> Member | None:
    match = FUNC.fullmatch(line)
    if match is None:
        return None
    params = [unescape(p.partition(":")[0].strip()) for p in split_top(match.group(2))]
    return Member(unescape(match.group(1)), match.group(3) or "", doc, params)


def parse(text: str) -> dict[tuple[str, str], Item]:
    """Every item of every interface, by (interface, name)."""
    items: dict[tuple[str, str], Item] = {}
    lines = iter(line.strip() for line in text.splitlines())
    interface = ""
    doc: list[str] = []

    def body(first: str) -> Iterator[tuple[str, str]]:
        """The members of a block opened on `first`, each with its doc."""
        inline = first.partition("{")[2]
        if "}" in inline:
            for part in split_top(inline.partition("}")[0]):
                yield part, ""
            return
        member_doc: list[str] = []
        for line in lines:
            if line.startswith("}"):
                return
            if line.startswith("///"):
                member_doc.append(line[3:].strip())
            elif line and not line.startswith("//"):
                for part in split_top(line) if "func(" not in line else [line]:
                    yield part, " ".join(member_doc)
                member_doc = []

    for line in lines:
        if line.startswith("///"):
            doc.append(line[3:].strip())
            continue
        head = re.match(r"(interface|record|enum|variant|flags|resource|world)\s+(%?[\w-]+)", line)
        alias = re.match(r"type\s+([\w-]+)\s*=\s*(.*);", line)
        if head and head.group(1) in ("interface", "world"):
            interface = head.group(2)
        elif head:
            kind, name = head.group(1), unescape(head.group(2))
            members: list[Member] = []
            for part, member_doc in body(line):
                if kind == "resource":
                    func = func_of(part, member_doc)
                    if func is not None:
                        members.append(func)
                else:
                    members.append(member_of(kind, part, member_doc))
            items[(interface, name)] = Item(kind, name, " ".join(doc), members)
        elif alias:
            items[(interface, alias.group(1))] = Item("type", alias.group(1), " ".join(doc), [])
        else:
            func = func_of(line, " ".join(doc))
            if func is not None:
                items[(interface, func.name)] = Item("func", func.name, func.doc, [func])
        if line and not line.startswith("//"):
            doc = []
    return items


ITEMS = parse(WIT.read_text(encoding="utf-8"))


def item(interface: str, name: str) -> Item:
    found = ITEMS.get((interface, name))
    assert found is not None, f"wit/stoic.wit declares no {interface}.{name}"
    return found


def snake(name: str) -> str:
    return name.replace("-", "_")


def doc_codes(doc: str, exclude: list[str]) -> tuple[list[str], bool]:
    """The codes a doc names (backquoted snake_case words, not the names in
    `exclude`), and whether the doc says the list goes on (`...`)."""
    codes = [c for c in re.findall(r"`([a-z][a-z0-9_]*)`", doc) if c not in exclude]
    return codes, "..." in doc


# ---------------------------------------------------------------- the core's lists


def listed(message: str) -> list[str]:
    """The codes a core message lists: `expected one of "a", "b"`,
    `must be one of: a, b`, ``one of `a`, `b` `` or `` `a` or `b` ``."""
    match = re.search(r"one of:?\s*(.*?)(?:, got .*|\)|$)", message)
    text = match.group(1) if match else message.partition(" must be ")[2]
    assert text, f"no list of codes in the core's message: {message}"
    return [c.strip(' `"') for c in re.split(r",\s*|\s+or\s+", text) if c.strip(' `"')]


def refusal(body: Callable[[], object], field_name: str | None = None) -> list[str]:
    """The core's list in the error `body` raises (at `field_name`, if given)."""
    with pytest.raises(ComponentError) as info:
        body()
    error = info.value.error
    problems = error.get("problems") or [error]
    chosen = [p for p in problems if field_name is None or p.get("field") == field_name]
    assert chosen, f"the component named no problem at {field_name}: {error}"
    return listed(str(chosen[0]["message"]))


def assert_same(what: str, declared: list[str], core: list[str], source: str) -> None:
    missing = [c for c in core if c not in declared]
    extra = [c for c in declared if c not in core]
    drift = (f" the core has {missing}, not declared;" if missing else "") + (
        f" declared {extra}, which the core does not know;" if extra else ""
    )
    assert not drift, f"{what} in wit/stoic.wit drifted from the core ({source}):{drift}"


def assert_doc(what: str, declared: tuple[list[str], bool], core: list[str], source: str) -> None:
    """A doc's codes: all the core's (or some of them, when the doc says `...`)."""
    codes, goes_on = declared
    assert codes, f"{what}: its doc in wit/stoic.wit names no codes any more"
    unknown = [c for c in codes if c not in core]
    assert not unknown, (
        f"{what}: the doc in wit/stoic.wit names {unknown}, which the core does not have "
        f"({source}: {core})"
    )
    if not goes_on:
        assert_same(f"{what} (its doc)", codes, core, source)


class Core:
    """The lists the component lets one read, each from an error it gives."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def call(self, interface: str, name: str, *args: Any) -> Any:
        return self.engine.call(interface, name, *args)

    def policy(self, config: dict[str, Any]) -> Any:
        return self.call("policy", "[static]policy.create", json.dumps({"seed": 1, **config}))

    def classes(self) -> list[str]:
        config = {"classify": {"status": {"404": "zz_drift"}}}
        return refusal(lambda: self.policy(config), "classify.status.404")

    def network_kinds(self) -> list[str]:
        config = {"classify": {"network": {"zz_drift": "transient"}}}
        return refusal(lambda: self.policy(config), "classify.network.zz_drift")

    def breaker_snapshot(self) -> dict[str, Any]:
        """A breaker's snapshot with a transition queued."""
        config = json.dumps({"trip": {"kind": "consecutive_failures", "threshold": 1}})
        breaker = self.call("parts", "[static]breaker.create", config)
        admit = self.call("parts", "[method]breaker.try-acquire", breaker, 0)
        self.call("parts", "[method]breaker.on-failure", breaker, 0, admit.payload, 1)
        snapshot: dict[str, Any] = json.loads(
            self.call("parts", "[method]breaker.snapshot", breaker)
        )
        assert snapshot["transitions"], "a breaker snapshot no longer keeps its transitions"
        return snapshot

    def from_breaker_snapshot(self, edit: Callable[[dict[str, Any]], None]) -> list[str]:
        snapshot = self.breaker_snapshot()
        edit(snapshot)
        text = json.dumps(snapshot)
        return refusal(lambda: self.call("parts", "[static]breaker.from-snapshot", text))

    def breaker_states(self) -> list[str]:
        return self.from_breaker_snapshot(lambda s: s["state"].update(kind="zz_drift"))

    def transition_reasons(self) -> list[str]:
        return self.from_breaker_snapshot(lambda s: s["transitions"][0].update(reason="zz_drift"))

    def budget_snapshot(self) -> dict[str, Any]:
        """A run-cap budget's snapshot, exhausted once."""
        budget = self.call(
            "parts", "[static]budget.create", json.dumps({"run_cap": {"max_retries": 0}})
        )
        self.call("parts", "[method]budget.on-first-attempt", budget, 0)
        self.call("parts", "[method]budget.try-retry", budget, 0, "normal")
        snapshot: dict[str, Any] = json.loads(self.call("parts", "[method]budget.snapshot", budget))
        assert snapshot["events"], "a budget snapshot no longer keeps its events"
        return snapshot

    def budget_kinds(self) -> list[str]:
        snapshot = self.budget_snapshot()
        snapshot["exhausted"] = ["zz_drift"]
        text = json.dumps(snapshot)
        return refusal(lambda: self.call("parts", "[static]budget.from-snapshot", text))

    def policy_snapshot(self) -> tuple[Any, dict[str, Any]]:
        """A policy and its snapshot, one scope used."""
        policy = self.policy({})
        spec = record(
            operation="op",
            scope="api",
            idempotent=True,
            method=None,
            idempotency_key=None,
            max_attempts=None,
            backoff_json=None,
        )
        call = self.call("policy", "[method]policy.start", policy, 0, spec)
        self.call("policy", "[method]policy.before-attempt", policy, 0, call)
        return policy, json.loads(self.call("policy", "[method]policy.snapshot", policy))

    def alert_lists(self) -> tuple[list[str], list[str]]:
        """The alert rules and levels a policy snapshot may hold."""
        policy, snapshot = self.policy_snapshot()
        out = []
        for key in ("rule", "level"):
            copy = json.loads(json.dumps(snapshot))
            copy["scopes"]["api"]["metrics"]["alerts"]["rules"][0][key] = "zz_drift"
            out.append(self.restoring(policy, json.dumps(copy)))
        return out[0], out[1]

    def restoring(self, policy: Any, text: str) -> list[str]:
        return refusal(lambda: self.call("policy", "[method]policy.restore", policy, text))

    def call_outcomes(self) -> list[str]:
        metrics = self.call("parts", "[static]metrics.create", "{}")
        method = "[method]metrics.on-call-finished"
        return refusal(lambda: self.call("parts", method, metrics, 0, 0, "zz_drift", 0))

    def log_input(self, outcome: str) -> Any:
        return record(
            wall_now_unix_ms=0,
            operation="op",
            attempt=1,
            max_attempts=2,
            delay_ms=0,
            error=None,
            strategy="none",
            outcome=outcome,
            total_duration_ms=0,
        )

    def log_outcomes(self) -> list[str]:
        given = self.log_input("zz_drift")
        return refusal(lambda: self.call("parts", "format-log-record", given))


@pytest.fixture(scope="module")
def core(engine: Engine) -> Core:
    return Core(engine)


# ---------------------------------------------------------------- enums


def cases(interface: str, name: str) -> list[str]:
    found = item(interface, name)
    assert found.kind == "enum", f"wit/stoic.wit: {interface}.{name} is a {found.kind}, not an enum"
    return [snake(c) for c in found.names()]


def test_class_enum_is_the_cores_classes(core: Core) -> None:
    assert_same("types.class", cases("types", "class"), core.classes(), "classify.status's codes")


def test_network_kind_enum_is_the_cores_kinds(core: Core) -> None:
    declared = cases("types", "network-kind")
    assert_same("types.network-kind", declared, core.network_kinds(), "classify.network's keys")


def test_breaker_state_enum_is_the_cores_states(core: Core) -> None:
    declared = cases("types", "breaker-state")
    assert_same("types.breaker-state", declared, core.breaker_states(), "a snapshot's state.kind")


def test_breaker_state_json_kinds_are_enum_cases(core: Core, engine: Engine) -> None:
    config = json.dumps(
        {"trip": {"kind": "consecutive_failures", "threshold": 1}, "cooldown_ms": 5}
    )
    breaker = engine.call("parts", "[static]breaker.create", config)
    seen = set()
    for now, fail in ((0, True), (10, False)):
        state = json.loads(engine.call("parts", "[method]breaker.state-json", breaker))
        seen.add(state["kind"])
        admit = engine.call("parts", "[method]breaker.try-acquire", breaker, now)
        method = "[method]breaker.on-failure" if fail else "[method]breaker.on-success"
        engine.call("parts", method, breaker, now, admit.payload, 1)
        seen.add(json.loads(engine.call("parts", "[method]breaker.state-json", breaker))["kind"])
    declared = cases("types", "breaker-state")
    assert seen <= set(declared), f"state-json wrote {seen - set(declared)}, not in breaker-state"


# The core's list of retry costs is not reachable from the component: the
# cost is a WIT enum, so an unknown one cannot be handed in. Each declared
# case is tried instead.
def test_each_retry_cost_case_is_taken(engine: Engine) -> None:
    budget = engine.call("parts", "[static]budget.create", json.dumps({"token_bucket": {}}))
    for cost in item("parts", "retry-cost").names():
        engine.call("parts", "[method]budget.on-first-attempt", budget, 0)
        engine.call("parts", "[method]budget.try-retry", budget, 0, cost)


# ---------------------------------------------------------------- codes in docs


def field_doc(interface: str, name: str, member: str) -> tuple[list[str], bool]:
    found = item(interface, name)
    return doc_codes(found.member(member).doc, found.names())


def test_transition_reasons_in_docs(core: Core) -> None:
    reasons = core.transition_reasons()
    assert_doc(
        "policy.breaker-transition.reason",
        field_doc("policy", "breaker-transition", "reason"),
        reasons,
        "a breaker snapshot's transitions[].reason",
    )


def test_alert_rules_in_docs(core: Core) -> None:
    rules, _ = core.alert_lists()
    assert_doc(
        "policy.alert-changed.rule",
        field_doc("policy", "alert-changed", "rule"),
        rules,
        "a policy snapshot's alerts.rules[].rule",
    )


def test_call_outcomes_in_docs(core: Core) -> None:
    method = item("parts", "metrics").member("on-call-finished")
    assert_doc(
        "parts.metrics.on-call-finished (outcome)",
        doc_codes(method.doc, method.params),
        core.call_outcomes(),
        "on-call-finished's refusal of an unknown outcome",
    )


def test_log_outcomes_in_docs(core: Core) -> None:
    assert_doc(
        "policy.log-record.outcome",
        field_doc("policy", "log-record", "outcome"),
        core.log_outcomes(),
        "format-log-record's refusal of an unknown outcome",
    )


def test_budget_kinds_in_docs(core: Core) -> None:
    grant = item("parts", "retry-grant")
    assert_doc(
        "parts.retry-grant (refused)",
        doc_codes(grant.doc, grant.names()),
        core.budget_kinds(),
        "a budget snapshot's exhausted[]",
    )


# The core's list of hint sources is not reachable from the component (the
# hint's source is only written, never read back with a check). Each source
# the doc names is checked by a header of that name giving that source.
def test_hint_sources_in_docs(engine: Engine) -> None:
    codes, _ = doc_codes(item("hints", "hint-source").doc, [])
    assert codes, "hints.hint-source: its doc names no codes any more"
    for code in codes:
        header = code.replace("_", "-")
        hint = plain(engine.call("hints", "parse-server-hint", [(header, "1")], 0))
        said = f"hints.hint-source: the doc names `{code}`, and a `{header}` header gives {hint}"
        assert hint is not None, said
        assert hint["source"] == code, said


# The core's stop reasons and its fleet health codes are not reachable as a
# list from the component; the codes the component hands out are checked
# against the docs instead, where the docs name all of them.
def test_fleet_health_codes_in_docs(core: Core) -> None:
    documented, _ = doc_codes(item("policy", "policy").member("fleet-health").doc, [])
    policy = core.policy({})
    health = core.call("policy", "[method]policy.fleet-health", policy, 0)
    assert health in documented, f"policy.fleet-health: returned {health!r}, not in {documented}"


def test_config_error_codes_in_docs(core: Core) -> None:
    problem = item("types", "config-problem")
    documented, _ = doc_codes(problem.doc, problem.names())
    seen = set()
    for config in ({"max_attempts": 0}, {"zz_drift": 1}, {"max_attempts": "x"}, {"version": 9}):
        with pytest.raises(ComponentError) as info:
            core.policy(config)
        seen.add(info.value.error["code"])
    with pytest.raises(ComponentError) as info:
        core.call("policy", "[static]policy.create", "{")
    seen.add(info.value.error["code"])
    # A hedged call that is not safe to repeat is refused as a config error.
    spec = record(operation="op", scope="", idempotent=False, method=None, idempotency_key=None)
    with pytest.raises(ComponentError) as info:
        core.call("policy", "[method]policy.start-hedged", core.policy({}), 0, spec, "{}")
    seen.add(info.value.error["code"])
    assert seen <= set(documented), (
        f"types.config-problem.code: the core gave {sorted(seen - set(documented))}, "
        f"not named in the doc ({documented})"
    )


# ---------------------------------------------------------------- records


def fields(interface: str, name: str) -> list[str]:
    found = item(interface, name)
    assert found.kind == "record", f"wit/stoic.wit: {interface}.{name} is not a record"
    return [snake(f) for f in found.names()]


def assert_carries(
    what: str, declared: list[str], written: dict[str, Any], added: set[str]
) -> None:
    """Every key of the core's document is a field; every field is a key,
    except those the host adds (`added`, each checked to be declared)."""
    keys = set(written)
    missing = sorted(keys - set(declared))
    extra = sorted(set(declared) - keys - added)
    drift = (f" the core writes {missing}, not declared;" if missing else "") + (
        f" declared {extra}, which the core does not write;" if extra else ""
    )
    assert not drift, (
        f"{what} in wit/stoic.wit drifted from the core's document {sorted(keys)}:{drift}"
    )
    assert added <= set(declared), f"{what}: no longer declares {sorted(added - set(declared))}"


def test_breaker_transition_records_carry_the_cores_transition(core: Core) -> None:
    written = core.breaker_snapshot()["transitions"][0]
    # The policy's event names the scope it happened in.
    declared = fields("policy", "breaker-transition")
    assert_carries("policy.breaker-transition", declared, written, {"scope"})


def test_budget_event_records_carry_the_cores_event(core: Core) -> None:
    written = core.budget_snapshot()["events"][0]
    # Events handed out carry the message; the policy's name the scope, and
    # its variant case is the kind.
    declared = fields("parts", "budget-event")
    assert_carries("parts.budget-event", declared, written, {"message"})
    kindless = {k: v for k, v in written.items() if k != "kind"}
    policy_fields = fields("policy", "budget-exhausted")
    assert_carries("policy.budget-exhausted", policy_fields, kindless, {"scope", "message"})
    event_case = snake(written["kind"])
    assert event_case in [snake(c) for c in item("policy", "event").names()], (
        f"policy.event has no case for the core's {written['kind']!r} events"
    )


def test_log_record_carries_the_cores_line(core: Core) -> None:
    for outcome in core.log_outcomes():
        returned = plain(core.call("parts", "format-log-record", core.log_input(outcome)))
        line = json.loads(returned["line"])
        # `line` and `text` are the record written out, beside its fields.
        assert_carries("policy.log-record", fields("policy", "log-record"), line, {"line", "text"})
        error = {"code": "c", "message": "m"}
        given = core.log_input(outcome)
        given.error = record(**error)
        if outcome == "retry":
            with_error = json.loads(plain(core.call("parts", "format-log-record", given))["line"])
            assert_carries(
                "policy.log-error", fields("policy", "log-error"), with_error["error"], set()
            )


# An alert's document is not reachable from the component (a policy's
# snapshot hands its queued alerts on as events): the codes an alert event
# carries are checked against the core's rule and level lists instead.
def test_alert_events_carry_the_cores_codes(core: Core, engine: Engine) -> None:
    rules, levels = core.alert_lists()
    metrics = engine.call("parts", "[static]metrics.create", json.dumps({"min_requests": 1}))
    engine.call("parts", "[method]metrics.on-attempt", metrics, 0, False)
    engine.call("parts", "[method]metrics.on-call-finished", metrics, 0, 0, "exhausted", 5)
    engine.call("parts", "[method]metrics.evaluate", metrics, 0)
    event = engine.call("parts", "[method]metrics.poll-event", metrics)
    assert event is not None, "no alert event from a call that exhausted its attempts"
    got = plain(event)
    assert got["rule"] in rules, f"an alert event's rule {got['rule']!r} is not one of {rules}"
    assert {got["from"], got["to"]} <= set(levels), f"alert levels {got} not in {levels}"
    assert set(fields("parts", "alert-event")) <= set(fields("policy", "alert-changed"))


def test_parser_reads_the_subset() -> None:
    """The parser found what the checks rely on (so a WIT reshuffle that it
    misreads fails here, not as a confusing drift)."""
    assert item("types", "network-kind").kind == "enum"
    assert "half-open" in item("types", "breaker-state").names()
    assert item("policy", "event").kind == "variant"
    assert "on-call-finished" in item("parts", "metrics").names()
    assert "outcome" in item("parts", "metrics").member("on-call-finished").params
    assert item("policy", "log-record").member("outcome").doc
