"""Runs host.json: the core's host policy as the binding exposes it, and the
runtime's translation of an exception carrying each errno name
(core/tests/vectors_host.rs and npm/testlib/run-host.js run the same file)."""

from __future__ import annotations

import errno
from typing import Any

import pytest

import stoic
from conftest import load
from stoic import _stoic
from stoic._classify import classify_exception

DOC = load("host.json", "host")


def test_the_binding_exposes_the_core_tables() -> None:
    host = _stoic.host_policy()
    assert host["error_codes"] == DOC["error_codes"]
    assert host["unknown_error_class"] == DOC["unknown_error_class"]
    assert host["key_header"] == DOC["key_header"]
    assert host["key_form"] == DOC["key_form"]
    assert host["default_operation"] == DOC["default_operation"]
    for table, rule in (("excerpt", _stoic.wants_excerpt), ("validate", _stoic.validates_status)):
        assert all(rule(s) for s in DOC[table]["yes"]), table
        assert not any(rule(s) for s in DOC[table]["no"]), table


@pytest.mark.parametrize("case", DOC["reads_hints"], ids=lambda c: str(c["name"]))
def test_the_statuses_whose_headers_a_policy_reads(case: dict[str, Any]) -> None:
    policy = stoic.Policy(**case["config"])
    assert all(policy.reads_hints(s) for s in case["yes"]), case["name"]
    assert not any(policy.reads_hints(s) for s in case["no"]), case["name"]


@pytest.mark.parametrize("name", sorted(DOC["error_codes"]))
def test_an_oserror_with_each_errno_name_maps_to_its_kind(name: str) -> None:
    number = getattr(errno, name, None)
    if number is None:
        # Node/undici names (UND_ERR_*, EAI_AGAIN) have no errno on this system.
        assert name.startswith(("UND_ERR_", "EAI_")) or name not in errno.__dict__
        return
    outcome = classify_exception(OSError(number, "x"), (), None)
    assert outcome == ("network", DOC["error_codes"][name], None)


def test_an_unknown_exception_is_a_raised_error_of_the_core_class() -> None:
    outcome = classify_exception(KeyError("k"), (), None)
    assert outcome == ("raised", DOC["unknown_error_class"], None)


@pytest.mark.parametrize("case", DOC["http_plans"], ids=lambda c: str(c["name"]))
def test_http_plans(case: dict[str, object]) -> None:
    r = case["request"]
    assert isinstance(r, dict)
    operation, scope, safe, auto_key, trust_key = _stoic.http_plan(
        r["method"],
        r["host"],
        r["path"],
        caller_key=r["caller_key"],
        server_deduplicates=r["server_deduplicates"],
        auto_keys=r["auto_keys"],
    )
    got = {
        "operation": operation,
        "scope": scope,
        "safe_to_repeat": safe,
        "auto_key": auto_key,
        "trust_key": trust_key,
    }
    assert got == case["expect"]


def test_the_binding_exposes_the_library_tables_and_defaults() -> None:
    host = _stoic.host_policy()
    got = [
        {
            "library": lib["library"],
            "modules": list(lib["modules"]),
            "classes": [list(pair) for pair in lib["classes"]],
            "chain": [list(pair) for pair in lib["chain"]],
        }
        for lib in host["libraries"]
    ]
    assert got == DOC["python_libraries"]
    assert host["http_defaults"] == DOC["http_defaults"]
    assert all(_stoic.is_failure_status(s) for s in DOC["failure_status"]["yes"])
    assert not any(_stoic.is_failure_status(s) for s in DOC["failure_status"]["no"])


def _library_cases() -> list[tuple[str, str, str]]:
    return [
        (module, name, meaning)
        for lib in DOC["python_libraries"]
        for module in lib["modules"]
        for name, meaning in lib["classes"]
        if meaning != "status"
    ]


@pytest.mark.parametrize(("module", "name", "meaning"), _library_cases())
def test_each_library_exception_means_what_its_table_says(
    module: str, name: str, meaning: str
) -> None:
    lib = pytest.importorskip(module)
    cls = getattr(lib, name, None)
    if cls is None:
        pytest.skip(f"{module} {getattr(lib, '__version__', '')} has no {name}")
    # Bare instances: what an exception is matters, not what it was built with.
    exc = cls.__new__(cls)
    outcome = classify_exception(exc, (), None)
    expected = {"connect": "connect_refused", "chain": "unknown"}.get(meaning, meaning)
    assert outcome == ("network", expected, None)


@pytest.mark.parametrize("status", DOC["failure_status"]["no"])
def test_an_exception_carrying_a_success_or_redirect_is_the_callers_own(status: int) -> None:
    class SdkError(Exception):
        status_code = status
        headers: dict[str, str] = {}  # noqa: RUF012

    outcome = classify_exception(SdkError("x"), (), None)
    assert outcome == ("raised", DOC["unknown_error_class"], None)


@pytest.mark.parametrize("status", DOC["failure_status"]["yes"])
def test_an_exception_carrying_a_failure_is_that_status(status: int) -> None:
    class SdkError(Exception):
        status_code = status
        headers: dict[str, str] = {}  # noqa: RUF012

    assert classify_exception(SdkError("x"), (), None) == ("status", status, [])
