"""host.json through the component's `host` interface, and the checks that
hold the component to its promise: every vector file has a runner here,
and the component imports nothing."""

from __future__ import annotations

import json
import subprocess
import sys

from engine import COMPONENT, Engine, load, plain, record, vector_docs

# Every kind of vector file, and the test here that runs it.
RUNNERS = {
    "policy": "test_policy.py",
    "config_errors": "test_policy.py",
    "canonical_json": "test_keys_hints.py",
    "es6_number": "test_keys_hints.py",
    "idempotency_key": "test_keys_hints.py",
    "retry_after": "test_keys_hints.py",
    "server_hint": "test_keys_hints.py",
    "backoff": "test_parts.py",
    "breaker": "test_parts.py",
    "budget": "test_parts.py",
    "records": "test_parts.py",
    "server_idempotency": "test_parts.py",
    "host": "test_host.py",
    "fleet_exchange": "test_fleet.py",
    "hedging": "test_hedging.py",
}


def test_every_vector_file_has_a_runner() -> None:
    docs = vector_docs()
    assert len(docs) >= 11
    for name, doc in docs:
        # A file for the bindings alone (text_boundary: text a WIT string
        # cannot hold) says so.
        if "component" not in doc.get("applies_to", ["component"]):
            continue
        assert doc["kind"] in RUNNERS, f"{name}: no component runner for kind {doc['kind']!r}"


def test_the_component_imports_nothing(engine: Engine) -> None:
    imports = list(engine.component.type.imports(engine.engine))
    assert imports == [], f"{COMPONENT.name} imports {imports}"
    exports = set(engine.component.type.exports(engine.engine))
    interfaces = (
        "types",
        "hints",
        "keys",
        "backoff",
        "policy",
        "parts",
        "host",
        "server",
    )
    assert exports == {f"stoic:engine/{i}@0.1.0" for i in interfaces}


def test_host_rules(engine: Engine) -> None:
    doc = load("host.json", "host")
    facts = plain(engine.call("host", "host-policy"))
    assert dict(facts["error_codes"]) == doc["error_codes"]
    assert facts["unknown_error_class"] == doc["unknown_error_class"]
    assert facts["key_header"] == doc["key_header"]
    assert facts["key_form"] == doc["key_form"]
    assert facts["default_operation"] == doc["default_operation"]
    for table, rule in (("excerpt", "wants-excerpt"), ("validate", "validates-status")):
        for status in doc[table]["yes"]:
            assert engine.call("host", rule, status) is True, (table, status)
        for status in doc[table]["no"]:
            assert engine.call("host", rule, status) is False, (table, status)
    for plan in doc["http_plans"]:
        r = plan["request"]
        request = record(
            method=r["method"],
            host=r["host"],
            path=r["path"],
            caller_key=r["caller_key"],
            server_deduplicates=r["server_deduplicates"],
            auto_keys=r["auto_keys"],
        )
        assert plain(engine.call("host", "http-plan", request)) == plan["expect"], plan["name"]


def test_the_statuses_whose_headers_a_policy_reads(engine: Engine) -> None:
    doc = load("host.json", "host")
    for case in doc["reads_hints"]:
        config = json.dumps({**case["config"], "seed": 1})
        policy = engine.call("policy", "[static]policy.create", config)

        def reads(status: int, policy: object = policy) -> object:
            return engine.call("policy", "[method]policy.reads-hints", policy, status)

        for status in case["yes"]:
            assert reads(status) is True, (case["name"], status)
        for status in case["no"]:
            assert reads(status) is False, (case["name"], status)


def test_the_python_example_runs() -> None:
    """component/examples/retry_loop.py, as its README section shows it."""
    example = COMPONENT.parents[2] / "component/examples/retry_loop.py"
    done = subprocess.run(
        [sys.executable, str(example), str(COMPONENT)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    assert lines[-1] == "done after 3 attempts", done.stdout
    assert len(lines) == 3, done.stdout
    assert all("503, retry in" in line for line in lines[:2]), done.stdout
