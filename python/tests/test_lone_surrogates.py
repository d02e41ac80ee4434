"""A ``str`` holding a lone surrogate (what ``os.fsdecode`` makes of
undecodable bytes) at every text parameter of the native module.

No UTF-8 text can carry one, so each parameter reads it one of two ways
(``python/src/text.rs``): free text and codes lossily (U+FFFD, as
JavaScript strings cross into wasm), and text whose identity matters (a
scope, an operation, a key, text that is hashed or parsed) strictly, as an
``InputError`` with code ``lone_surrogate``. Never pyo3's untyped
``UnicodeEncodeError``: the random boundary fuzz draws these only now and
then, so each parameter is pinned here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import stoic
from stoic import _stoic
from stoic.parts import LogRecord, Metrics, RetryBudget, ServerIdempotency

BAD = "\ud800"


def _policy() -> stoic.Policy:
    return stoic.Policy(seed=1)


STRICT: dict[str, Callable[[], Any]] = {
    "canonical_json_text(text)": lambda: _stoic.canonical_json_text(f'"{BAD}"'),
    "idempotency_key(run_id)": lambda: _stoic.idempotency_key(BAD, "step", {}),
    "idempotency_key(step)": lambda: _stoic.idempotency_key("run", BAD, {}),
    "idempotency_key_text(args_text)": lambda: _stoic.idempotency_key_text(
        "run", "step", f'"{BAD}"'
    ),
    "key_header_value(key)": lambda: _stoic.key_header_value(BAD),
    "request_fingerprint(body)": lambda: _stoic.request_fingerprint(f'"{BAD}"'),
    "http_plan(caller_key)": lambda: _stoic.http_plan(
        "POST", "api.example", "/", caller_key=BAD, server_deduplicates=False, auto_keys=False
    ),
    "ServerIdempotency.decide(key)": lambda: ServerIdempotency().decide(0.0, BAD, "f"),
    "ServerIdempotency.decide(fingerprint)": lambda: ServerIdempotency().decide(0.0, "k", BAD),
    "ServerIdempotency.in_flight(fingerprint)": lambda: ServerIdempotency.in_flight(BAD, 0.0),
    "Policy.from_json(text)": lambda: _stoic.Policy.from_json('{"seed": 1, "x": "' + BAD + '"}'),
    "Policy.start(operation)": lambda: _policy().start(0.0, BAD),
    "Policy.start(scope)": lambda: _policy().start(0.0, "op", scope=BAD),
    "Policy.start(key)": lambda: _policy().start(0.0, "op", key=BAD),
    "Policy.begin(operation)": lambda: _policy().begin(0.0, BAD),
    "Policy.begin(scope)": lambda: _policy().begin(0.0, "op", scope=BAD),
    "Policy.begin(key)": lambda: _policy().begin(0.0, "op", key=BAD),
    "Policy.breaker_state(scope)": lambda: _policy().breaker_state(BAD),
    "Policy.budget_status(scope)": lambda: _policy().budget_status(0.0, BAD),
    "Policy.restore(text)": lambda: _policy().restore(BAD),
    "Policy.fleet_apply(replies)": lambda: _policy().fleet_apply(0.0, [BAD]),
}


@pytest.mark.parametrize("call", STRICT.values(), ids=STRICT.keys())
def test_text_whose_identity_matters_refuses_a_lone_surrogate(call: Callable[[], Any]) -> None:
    with pytest.raises(stoic.InputError) as caught:
        call()
    assert caught.value.code == "lone_surrogate"
    assert "unpaired surrogate" in str(caught.value)


def _call() -> Any:
    return _policy().begin(0.0, "op")


def _record(**given: Any) -> LogRecord:
    """A log record, with ``given`` in place of the plain defaults."""
    fields: dict[str, Any] = {
        "wall": 0.0,
        "operation": "op",
        "attempt": 1,
        "max_attempts": 3,
        "delay": 0.0,
        "error": None,
        "strategy": "exponential",
        "outcome": "success",
        "total_duration": 0.0,
    }
    return LogRecord(**{**fields, **given})


LOSSY_CODES: dict[str, Callable[[], Any]] = {
    "RetryBudget.try_retry(cost)": lambda: RetryBudget().try_retry(0.0, BAD),
    "Call.on_network_error(kind)": lambda: _call().on_network_error(0.1, BAD),
    "Call.on_rejected(cls)": lambda: _call().on_rejected(0.1, BAD),
    "Call.on_raised(cls)": lambda: _call().on_raised(0.1, BAD),
    "key_header_value(form)": lambda: _stoic.key_header_value("k", BAD),
    "Metrics.on_call_finished(outcome)": lambda: Metrics().on_call_finished(0.0, 0, BAD, 0.0),
    "LogRecord(outcome)": lambda: _record(outcome=BAD),
}


@pytest.mark.parametrize("call", LOSSY_CODES.values(), ids=LOSSY_CODES.keys())
def test_a_code_with_a_lone_surrogate_is_an_unknown_code(call: Callable[[], Any]) -> None:
    # Read lossily, the code is U+FFFD: the usual typed error for a code
    # that is none of the known ones.
    with pytest.raises(stoic.StoicError) as caught:
        call()
    assert caught.value.code == "invalid_value"
    assert "\ufffd" in str(caught.value)


def test_each_lone_surrogate_becomes_one_replacement_as_in_javascript() -> None:
    # TextEncoder gives one U+FFFD per lone surrogate; so does the binding,
    # and it keeps a real U+FFFD and characters beyond the BMP as they are.
    text = f"a{BAD}b\ufffd\U0001f600{BAD}\udfff!"
    record = _record(operation=text)
    assert record.as_dict()["operation"] == "a\ufffdb\ufffd\U0001f600\ufffd\ufffd!"


def test_free_text_with_a_lone_surrogate_is_kept_with_a_replacement() -> None:
    record = _record(
        operation=f"op{BAD}",
        error=(f"code{BAD}", f"message{BAD}"),
        strategy=f"exponential{BAD}",
    )
    assert "op\ufffd" in record.json_line()
    assert "message\ufffd" in record.json_line()
    plan = _stoic.http_plan(
        f"GET{BAD}",
        f"api{BAD}",
        f"/{BAD}",
        caller_key=None,
        server_deduplicates=False,
        auto_keys=False,
    )
    assert "api\ufffd" in plan[1]
    assert not Metrics().set_breaker_state(BAD)
    call = _policy().start(0.0, "op", method=f"GET{BAD}")
    assert call.operation == "op"


def test_policy_on_outcome_reads_its_codes_lossily() -> None:
    policy = _policy()
    for field in ("network", "rejected", "raised"):
        call = policy.start(0.0, "op")
        policy.before_attempt(0.0, call)
        with pytest.raises(stoic.StoicError) as caught:
            policy.on_outcome(0.1, call, **{field: BAD})
        assert caught.value.code == "invalid_value"
