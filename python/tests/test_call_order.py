"""The low-level ``Call`` refuses steps out of order with ``InputError``
``misuse`` (never a made-up decision), and a call dropped without an end
gives back its breaker permit."""

from __future__ import annotations

import gc

import pytest

import stoic


def _policy() -> stoic.Policy:
    trip = {"kind": "consecutive_failures", "threshold": 1}
    return stoic.Policy(seed=1, breaker={"trip": trip, "cooldown": 1.0})


def test_an_outcome_before_any_admission_is_misuse() -> None:
    call = _policy().start(0.0, operation="op", scope="api")
    with pytest.raises(stoic.InputError) as info:
        call.on_success(0.0)
    assert info.value.code == "misuse"
    with pytest.raises(stoic.InputError):
        call.on_status(0.0, 503)


def test_a_second_admission_without_an_outcome_is_misuse() -> None:
    policy = stoic.Policy(seed=1)
    call = policy.start(0.0, operation="op", scope="api")
    assert call.admit(0.0)
    with pytest.raises(stoic.InputError) as info:
        call.admit(0.0)
    assert info.value.code == "misuse"
    with pytest.raises(stoic.InputError):
        policy.before_attempt(0.0, call)
    assert call.on_status(0.0, 503) is not None, "the attempt in flight still reports its outcome"


def test_a_finished_call_refuses_another_outcome_and_repeats_its_end() -> None:
    call = _policy().start(0.0, operation="op")
    assert call.admit(0.0)
    assert call.on_success(0.0)
    with pytest.raises(stoic.InputError) as info:
        call.on_success(1.0)
    assert info.value.code == "misuse", "an outcome after the end has no attempt to belong to"
    assert not call.admit(1.0), "asking again repeats how the call ended"


def test_a_dropped_call_gives_back_the_half_open_probe() -> None:
    policy = _policy()
    failing = policy.start(0.0, operation="op", scope="api")
    assert failing.admit(0.0)
    failing.on_status(0.0, 503)
    assert policy.breaker_state("api") == "open"
    probe = policy.start(2.0, operation="op", scope="api")
    assert probe.admit(2.0), "the cooldown is over: one probe"
    other = policy.start(2.0, operation="op", scope="api")
    assert not other.admit(2.0), "the probe slot is taken"
    del probe
    gc.collect()
    again = policy.start(2.0, operation="op", scope="api")
    assert again.admit(2.0), "the dropped call released its probe"
