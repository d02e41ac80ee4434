"""The Policy and Call API: config in seconds, errors, state, misuse."""

from __future__ import annotations

import datetime
import json
import pickle
import time

import pytest

import stoic
from stoic import _stoic


def test_defaults_are_the_cores_in_seconds() -> None:
    config = stoic.Policy().config
    assert config["max_attempts"] == 5
    assert config["backoff"] == {
        "strategy": "full_jitter",
        "base": 1.0,
        "cap": 30.0,
        "multiplier": 2.0,
    }
    assert config["timeouts"] == {"connect": 5.0, "read": 30.0, "total": 120.0}
    assert isinstance(config["seed"], int)
    assert stoic.Policy().config["seed"] != config["seed"]  # OS randomness


def test_config_round_trips_through_keywords() -> None:
    policy = stoic.Policy(backoff={"base": 0.25, "cap": 10}, timeouts={"total": None}, seed=7)
    again = stoic.Policy(**policy.config)
    assert again.config == policy.config
    assert policy.config["backoff"]["base"] == 0.25
    assert policy.config["timeouts"]["total"] is None


@pytest.mark.parametrize(
    ("config", "code", "field"),
    [
        ({"max_attempts": 0}, "out_of_range", "max_attempts"),
        ({"backoff": {"base": "1s"}}, "wrong_type", "backoff.base"),
        ({"backoff": {"base": 5, "cap": 1}}, "inconsistent", "backoff.cap"),
        ({"backoff": {"base_ms": 5}}, "unknown_field", "backoff.base_ms"),
        ({"timeouts": {"raed": 1}}, "unknown_field", "timeouts.raed"),
        ({"max_atempts": 3}, "unknown_field", "max_atempts"),
        ({"breaker": {"cooldown": -1}}, "out_of_range", "breaker.cooldown"),
        ({"budget": {"ratio": {"window": float("nan")}}}, "out_of_range", "budget.ratio.window"),
        ({"backoff": {"strategy": "fibonacci"}}, "invalid_value", "backoff.strategy"),
        ({"classify": {"status": {"404": "sometimes"}}}, "invalid_value", "classify.status.404"),
        ({"version": 2}, "unsupported_version", "version"),
        ({"backoff": {"base": {1, 2}}}, "wrong_type", "backoff.base"),
    ],
)
def test_config_errors_name_the_python_field(config: dict, code: str, field: str) -> None:
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy(**config)
    error = info.value
    assert (error.code, error.field) == (code, field)
    assert isinstance(error, ValueError)
    assert isinstance(error, stoic.StoicError)
    if field == "timeouts.raed":  # serde's list of known fields, in the Python spelling
        assert "`read`" in error.message


def test_errors_pickle() -> None:
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy(max_attempts=0)
    back = pickle.loads(pickle.dumps(info.value))
    assert (back.code, back.field) == ("out_of_range", "max_attempts")
    retry_error = stoic.RetryError({"reason": "circuit_open", "attempts": 0, "observation": "x"})
    assert pickle.loads(pickle.dumps(retry_error)).reason == "circuit_open"


def test_from_json_takes_the_wire_spelling() -> None:
    policy = stoic.Policy.from_json(json.dumps({"backoff": {"base_ms": 250, "cap_ms": 1000}}))
    assert policy.config["backoff"]["base"] == 0.25
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy.from_json('{"seed": 1, "backoff": {"base_ms": "x"}}')
    assert info.value.field == "backoff.base_ms"
    with pytest.raises(stoic.ConfigError) as info:
        stoic.Policy.from_json("{")
    assert info.value.code == "invalid_json"


def test_call_flow_and_decisions() -> None:
    policy = stoic.Policy(seed=1, backoff={"strategy": "constant", "base": 0.5, "cap": 1})
    call = policy.begin(10.0, "charge", "payments", None, "order-9")
    assert call.admitted
    assert call.timeout == 30.0
    assert call.connect_timeout == 5.0
    assert call.idempotency_key == "order-9"
    assert call.on_network_error(10.1, "read_timeout", "slow") == 0.5
    assert call.decision is not None
    assert call.decision["kind"] == "retry"
    assert call.next_attempt_at == pytest.approx(10.6)
    assert call.admit(10.6)
    assert call.on_status(10.7, 404, {"content-type": "text/plain"}, detail="no such order") is None
    assert call.reason == "not_retryable"
    assert call.observation is not None
    assert "no such order" in call.observation
    assert call.finished
    assert not call.succeeded
    with pytest.raises(ValueError, match="unknown network error kind"):
        policy.begin(0.0).on_network_error(0.0, "gremlins")


def test_the_policys_status_table_decides_whose_headers_are_read() -> None:
    # The binding converts a response's headers only when the policy may
    # retry its status: a table that makes 200 transient still gets the
    # server's Retry-After, and a 503 made deterministic gives up at once.
    policy = stoic.Policy(seed=1, classify={"status": {"200": "transient", "503": "deterministic"}})
    assert policy.reads_hints(200)
    assert policy.reads_hints(429)
    assert not policy.reads_hints(503)
    assert not policy.reads_hints(404)
    assert stoic.Policy().reads_hints(503)
    assert not stoic.Policy().reads_hints(200)
    assert not stoic.Policy(hints={"respect": False}).reads_hints(503)
    call = policy.begin(0.0, "get")
    assert call.on_status(0.1, 200, {"retry-after": "3"}) == 3.0
    assert call.admit(3.1)
    assert call.on_status(3.2, 201, {"retry-after": "3"}) is None
    assert call.succeeded
    refused = policy.begin(4.0, "get")
    assert refused.on_status(4.1, 503, {"retry-after": "1"}) is None
    assert refused.reason == "not_retryable"


def test_a_call_belongs_to_its_policy() -> None:
    a, b = stoic.Policy(), stoic.Policy()
    call = a.start(0.0)
    with pytest.raises(ValueError, match="another policy"):
        b.before_attempt(0.0, call)


def test_snapshot_restore_keeps_an_open_breaker() -> None:
    config = {"max_attempts": 1, "budget": {"ratio": None}, "seed": 3}
    policy = stoic.Policy(**config)
    for i in range(5):
        call = policy.begin(float(i), "get", "api")
        call.on_status(float(i), 503)
    assert policy.breaker_state("api") == "open"
    assert policy.next_timeout() == pytest.approx(64.0)
    state = policy.snapshot()
    fresh = stoic.Policy(**config)
    assert fresh.restore(state) == {"restored": 1, "reset": []}
    assert fresh.breaker_state("api") == "open"
    rejected = fresh.begin(10.0, "get", "api")
    assert not rejected.admitted
    assert rejected.reason == "circuit_open"
    with pytest.raises(stoic.InputError) as bad:
        fresh.restore('{"version": 99, "latest": 0, "scopes": {}}')
    assert bad.value.code == "invalid_snapshot"


def test_log_timestamps_are_real_time_without_a_pairing() -> None:
    # The policy pairs stoic.monotonic() with time.time() when it is built.
    before = time.time()
    policy = stoic.Policy.from_json('{"seed": 1, "log_records": true}')
    call = policy.begin(stoic.monotonic(), "op")
    call.on_success(stoic.monotonic())
    stamp = json.loads(policy.events()[0]["line"])["timestamp"]
    when = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    assert before - 1.0 <= when <= time.time() + 1.0


def test_events_metrics_and_budget_status() -> None:
    policy = stoic.Policy(seed=1, log_records=True)
    policy.set_wall_clock(0.0, 1_750_000_000.0)
    call = policy.begin(0.0, "op")
    call.on_success(0.25)
    events = policy.events()
    assert [e["kind"] for e in events] == ["log"]
    assert json.loads(events[0]["line"])["timestamp"] == "2025-06-15T15:06:40.250Z"
    assert events[0]["record"]["total_duration"] == 0.25
    assert policy.metrics()["op"]["calls_total"] == 1  # scoped by its operation
    status = policy.budget_status(1.0, "op")
    assert status is not None
    assert status["ratio"] is not None
    assert policy.pending_events == 0
    policy.drain()
    assert policy.draining
    assert policy.begin(2.0).reason == "shutting_down"


def test_the_runtimes_clock_is_monotonic_on_the_unix_scale() -> None:
    # Snapshots carry instants; on the Unix scale they mean the same moment in
    # another process (or in JavaScript), whatever each host's uptime.
    first = stoic.monotonic()
    assert abs(first - time.time()) < 5.0
    assert stoic.monotonic() >= first


def test_restore_takes_the_snapshot_text_or_that_json_parsed() -> None:
    policy = stoic.Policy(seed=1)
    for _ in range(5):
        call = policy.begin(10.0, "get", "api")
        call.on_status(10.0, 503)
    parsed = json.loads(policy.snapshot())
    fresh = stoic.Policy(seed=1)
    assert fresh.restore(parsed)["restored"] >= 1
    assert fresh.breaker_state("api") == "open"
    cyclic: dict[str, object] = {}
    cyclic["self"] = cyclic
    with pytest.raises(stoic.InputError) as caught:
        fresh.restore(cyclic)
    assert caught.value.code == "invalid_snapshot"


def test_header_text_with_a_lone_surrogate_is_garbage_not_an_error() -> None:
    # Header values are read lossily, as JavaScript strings cross into
    # wasm: a lone surrogate is ignored, never an untyped UnicodeEncodeError.
    assert _stoic.parse_key_header("\ud800") is None
    assert _stoic.parse_retry_after("\ud800", 0.0) is None
    assert _stoic.parse_http_date("\ud800") is None
    assert _stoic.is_idempotent_method("GET\ud800") is False
    call = stoic.Policy(seed=1).begin(0.0, "get")
    assert call.on_status(0.1, 503, {"retry-after\ud800": "1", "x": "\udfff"}) is not None


@pytest.mark.parametrize(
    ("keyword", "value", "code"),
    [
        ("on_retry", print, "unknown_field"),
        ("on_give_up", print, "unknown_field"),
        ("scope", "api", "unknown_field"),
        ("key", "k-1", "unknown_field"),
        ("classify", lambda e: "transient", "wrong_type"),
    ],
)
def test_a_calls_keyword_given_to_a_policy_says_where_it_goes(
    keyword: str, value: object, code: str
) -> None:
    with pytest.raises(stoic.ConfigError) as caught:
        stoic.Policy(**{keyword: value})
    assert (caught.value.code, caught.value.field) == (code, keyword)
    assert f"pass {keyword}= to @stoic.retry(...)" in str(caught.value)


def test_classify_as_data_is_still_the_policys_status_table() -> None:
    policy = stoic.Policy(seed=1, classify={"status": {418: "transient"}})
    assert policy.config["classify"]["status"]["418"] == "transient"
