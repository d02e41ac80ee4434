"""Property tests (hypothesis) on the pure helpers."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stoic
from stoic import parts

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)


@given(st.text(), st.floats(allow_nan=True, allow_infinity=True))
def test_parse_retry_after_never_raises_on_a_header(value: str, now: float) -> None:
    if math.isfinite(now) and 0 <= now * 1000 <= 2**53 - 1:
        got = stoic.parse_retry_after(value, now)
        assert got is None or (got >= 0 and not math.isnan(got))
    else:
        # Only a clock reading out of range is refused, by name.
        with pytest.raises(stoic.InputError) as caught:
            stoic.parse_retry_after(value, now)
        assert caught.value.code == "out_of_range"


@given(st.text(alphabet="0123456789 .,-+eE:GMTSunMonDec\t", max_size=40), st.integers(0, 2**40))
def test_parse_retry_after_on_near_valid_text(value: str, now: int) -> None:
    got = stoic.parse_retry_after(value, now / 1000)
    assert got is None or got >= 0


@given(JSON)
def test_canonical_json_is_a_fixed_point(value: object) -> None:
    text = stoic.canonical_json(value)
    assert parts.canonical_json_text(text) == text
    # A large float's integer form reads back as an int written as the
    # double's own RFC 8785 form: accepted, and the same text again.
    assert stoic.canonical_json(json.loads(text)) == text


@given(st.dictionaries(st.text(max_size=6), st.integers(-(2**53), 2**53), max_size=6))
def test_canonical_json_ignores_key_order(value: dict[str, int]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert stoic.canonical_json(value) == stoic.canonical_json(reordered)


@given(st.text(min_size=1, max_size=20), st.text(min_size=1, max_size=20), JSON)
def test_idempotency_keys_are_stable(run_id: str, step: str, args: object) -> None:
    key = stoic.idempotency_key(run_id, step, args)
    assert key == stoic.idempotency_key(run_id, step, json.loads(json.dumps(args)))
    assert key == parts.idempotency_key_text(run_id, step, stoic.canonical_json(args))
    # Printable ASCII in three parts, whatever the run id and step hold.
    assert key.isascii()
    assert key.isprintable()
    assert key.count(":") == 2
    if isinstance(args, dict):
        # A model's arguments arrive as JSON text: the same key.
        assert key == stoic.idempotency_key(run_id, step, json.dumps(args))


def test_idempotency_keys_are_stable_across_processes() -> None:
    args = {"amount": 1000, "currency": "usd", "customer": "cus_123"}
    here = stoic.idempotency_key("run-1", "charge", args)
    assert here == "run-1:charge:1db7f5ad36c1243a"  # tests/vectors/idempotency_keys.json
    code = (
        "import stoic;"
        "print(stoic.idempotency_key('run-1','charge',"
        "{'customer':'cus_123','currency':'usd','amount':1000}))"
    )
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.strip() == here


@settings(max_examples=200)
@given(
    st.sampled_from(
        [
            "none",
            "constant",
            "linear",
            "exponential",
            "full_jitter",
            "equal_jitter",
            "decorrelated_jitter",
        ]
    ),
    st.integers(0, 10_000),
    st.integers(0, 60_000),
    st.integers(0, 2**63),
)
def test_backoff_delays_stay_under_the_cap(strategy: str, base: int, extra: int, seed: int) -> None:
    cap = base + extra
    backoff = stoic.Backoff(strategy, base=base / 1000, cap=cap / 1000, seed=seed)
    for retry in range(1, 12):
        assert 0 <= backoff.delay(retry) <= cap / 1000
