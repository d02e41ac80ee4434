"""The package's typing against the core, as the native module shows it.

Python's typing declares configs and the engine's results as
``dict[str, Any]`` (``Policy(**config)``, ``Policy.config``,
``Call.decision``, events): there is no TypedDict to drift. What the typing
does declare is checked here against the core:

- every ``Literal[...]`` in ``_stoic.pyi`` (each must have a check below,
  so a new one cannot go unchecked) and the package's ``Class`` literal;
- the typed constructors whose keywords are a config section's fields
  (``Backoff``, ``RunQuota``) and ``LogRecord``'s against its ``as_dict()``;
- the config as the core writes it in Python's spelling: every key it
  writes is one it reads (the core's own ``unknown_field`` list), for
  configs selecting every variant, and the written config reads back
  unchanged.

The core's side comes from the module: its error messages list the codes
and keys it accepts; no list is copied here.
"""

from __future__ import annotations

import ast
import copy
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import stoic
from stoic import _classify, _stoic

STUB = Path(_stoic.__file__).with_name("_stoic.pyi")
TREE = ast.parse(STUB.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the stub


def stub_classes() -> dict[str, ast.ClassDef]:
    return {node.name: node for node in TREE.body if isinstance(node, ast.ClassDef)}


def stub_functions() -> Iterator[tuple[str, ast.FunctionDef]]:
    """Every function of the stub, named `Class.method` or `function`."""
    for node in TREE.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{node.name}.{item.name}", item


def literal_values(annotation: ast.expr | None) -> Iterator[list[str]]:
    """The values of each `Literal[...]` inside an annotation."""
    if annotation is None:
        return
    for node in ast.walk(annotation):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Literal"
        ):
            inner = node.slice
            parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            yield [str(p.value) for p in parts if isinstance(p, ast.Constant)]


def stub_literals() -> dict[str, list[str]]:
    """Each Literal of the stub, by where it is (`Policy.fleet_health`,
    `Policy.fleet_health(now)` for a parameter)."""
    found: dict[str, list[str]] = {}
    for name, func in stub_functions():
        for values in literal_values(func.returns):
            found[name] = values
        arguments = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
        for arg in arguments:
            for values in literal_values(arg.annotation):
                found[f"{name}({arg.arg})"] = values
    return found


def stub_params(class_name: str, method: str = "__new__") -> list[str]:
    """A stub method's parameter names, `self` and `cls` left out."""
    cls = stub_classes().get(class_name)
    assert cls is not None, f"_stoic.pyi declares no class {class_name}"
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name == method:
            args = [*item.args.posonlyargs, *item.args.args, *item.args.kwonlyargs]
            return [a.arg for a in args if a.arg not in ("self", "cls")]
    raise AssertionError(f"_stoic.pyi declares no {class_name}.{method}")


# ---------------------------------------------------------------- the core's lists


def listed(message: str) -> list[str]:
    """The codes or keys a core message lists (`expected one of "a", "b"`,
    ``(expected one of `a`, `b`)``)."""
    match = re.search(r"expected one of ((?:[`\"][^`\"]*[`\"](?:, )?)+)", message)
    assert match, f"no list in the core's message: {message}"
    return re.findall(r"[`\"]([^`\"]*)[`\"]", match.group(1))


def refused(body: Callable[[], object], field: str) -> stoic.ConfigProblem:
    """The core's problem at `field` when `body` raises a ConfigError."""
    with pytest.raises(stoic.ConfigError) as info:
        body()
    for problem in info.value.problems:
        if problem.field == field:
            return problem
    raise AssertionError(f"the core named no problem at {field}: {info.value}")


def core_classes() -> list[str]:
    config = {"classify": {"status": {404: "zz_drift"}}}
    return listed(refused(lambda: stoic.Policy(**config), "classify.status.404").message)


def assert_same(what: str, declared: list[str], core: list[str], source: str) -> None:
    missing = [c for c in core if c not in declared]
    extra = [c for c in declared if c not in core]
    drift = (f" the core has {missing}, not declared;" if missing else "") + (
        f" declared {extra}, which the core does not know;" if extra else ""
    )
    assert not drift, f"{what} drifted from the core ({source}):{drift}"


# ---------------------------------------------------------------- literals


def check_fleet_health(values: list[str]) -> None:
    # The core's list of fleet health codes is not reachable from the module:
    # the code a policy hands out is checked instead.
    health = _stoic.Policy(seed=1).fleet_health(0.0)
    assert health in values, f"Policy.fleet_health returned {health!r}, not in the stub's {values}"


LITERAL_CHECKS: dict[str, Callable[[list[str]], None]] = {
    "Policy.fleet_health": check_fleet_health,
}


def test_every_literal_of_the_stub_is_checked() -> None:
    found = stub_literals()
    unchecked = sorted(set(found) - set(LITERAL_CHECKS))
    assert not unchecked, f"_stoic.pyi has Literals this test does not check: {unchecked}"
    gone = sorted(set(LITERAL_CHECKS) - set(found))
    assert not gone, f"_stoic.pyi no longer declares Literals for {gone}"
    for where, values in found.items():
        LITERAL_CHECKS[where](values)


def test_class_literal_is_every_failure_class() -> None:
    """`stoic.Rejected.cls` takes the classes the core counts as failures:
    every class but those a rejection may not carry."""
    hints = typing.get_type_hints(_classify.Rejected)
    assert hints["cls"] == _classify.Class, "Rejected.cls is no longer typed as Class"
    failures = []
    for cls in core_classes():
        call = _stoic.Policy(seed=1).start(0.0, "op")
        call.admit(0.0)
        try:
            call.on_rejected(0.0, cls)
        except stoic.InputError:
            continue
        failures.append(cls)
    declared = [str(v) for v in typing.get_args(_classify.Class)]
    assert_same("stoic._classify.Class", declared, failures, "the classes a rejection may carry")


# ---------------------------------------------------------------- typed keywords


def resolved(**config: Any) -> dict[str, Any]:
    return dict(_stoic.Policy(**{"seed": 1, **config}).config)


def test_backoff_keywords_are_the_backoff_section() -> None:
    params = stub_params("Backoff")
    section = list(resolved()["backoff"])
    # `seed` is the config's own, beside its sections.
    assert "seed" in resolved(), "the config no longer has a seed"
    assert_same(
        "Backoff(...) keywords in _stoic.pyi",
        [p for p in params if p != "seed"],
        section,
        "the backoff section of Policy().config",
    )
    written = resolved()["backoff"]
    assert _stoic.Backoff(**written, seed=1).strategy == written["strategy"]


def test_run_quota_keyword_is_the_run_cap_section() -> None:
    section = list(resolved(budget={"run_cap": {}})["budget"]["run_cap"])
    assert_same(
        "RunQuota(...) keywords in _stoic.pyi",
        stub_params("RunQuota"),
        section,
        "the run_cap section of Policy().config",
    )


def test_log_record_keywords_are_its_fields() -> None:
    params = stub_params("LogRecord")
    given: dict[str, Any] = {
        "wall": 0.0,
        "operation": "op",
        "attempt": 1,
        "max_attempts": 2,
        "delay": 0.5,
        "error": ("c", "m"),
        "strategy": "none",
        "outcome": "retry",
        "total_duration": 1.0,
    }
    assert sorted(given) == sorted(params), f"LogRecord's keywords changed: {params}"
    written = _stoic.LogRecord(**given).as_dict()
    # The wall clock is written as the timestamp, and `max_attempts` inside
    # `attempt` ("1 of 2"); every other keyword is a field of its own.
    keywords = [p for p in params if p not in ("wall", "max_attempts")] + ["timestamp"]
    assert_same("LogRecord(...) keywords in _stoic.pyi", keywords, list(written), "as_dict()")


# ---------------------------------------------------------------- config


#: Configs that together select every variant: both trip rules, both windows,
#: slow calls on and off, every budget on and off, the breaker off, overrides.
CONFIGS: list[dict[str, Any]] = [
    {},
    {
        "breaker": {
            "trip": {
                "kind": "failure_rate",
                "window": {"kind": "count", "size": 20},
                "failure_rate": 0.5,
                "minimum_throughput": 10,
                "slow_call": {"duration": 1.0, "rate": 0.5},
            }
        },
        "budget": {"run_cap": {}, "token_bucket": {}, "grpc": {}},
        "classify": {"status": {404: "transient"}, "network": {"reset_after_send": "transient"}},
    },
    {
        "breaker": {
            "trip": {
                "kind": "failure_rate",
                "window": {"kind": "time", "duration": 10.0, "buckets": 10},
                "failure_rate": 0.5,
                "minimum_throughput": 10,
            }
        },
        "budget": {"ratio": None, "token_bucket": {"profile": "aws_2026"}},
    },
    {"breaker": None, "timeouts": {"connect": None, "read": None, "total": None}},
]


def objects(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every dict of a config, with its path."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from objects(item, (*path, str(key)))


def set_at(config: dict[str, Any], path: tuple[str, ...], key: str, value: object) -> None:
    node = config
    for part in path:
        node = node[part]
    node[key] = value


@pytest.mark.parametrize("given", CONFIGS, ids=range(len(CONFIGS)))
def test_every_key_the_core_writes_is_one_it_reads(given: dict[str, Any]) -> None:
    config = resolved(**given)
    problems = []
    for path, written in objects(config):
        probe = copy.deepcopy(config)
        set_at(probe, path, "zz_drift", 1)
        field = ".".join((*path, "zz_drift"))
        with pytest.raises(stoic.ConfigError) as info:
            stoic.Policy(**probe)
        problem = next((p for p in info.value.problems if p.field == field), None)
        assert problem is not None, f"the core named no problem at {field}: {info.value}"
        if problem.code == "wrong_type":
            continue  # a map keyed by something else (status codes)
        reads = listed(problem.message)
        where = ".".join(path) or "the config"
        problems += [
            f"{where}.{k}: written, not read (reads {reads})" for k in written if k not in reads
        ]
    assert not problems, "Policy().config drifted from what the core reads:\n" + "\n".join(problems)
    assert resolved(**config) == config, "Policy().config does not read back unchanged"
