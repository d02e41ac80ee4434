"""Arbitrary values at every function and constructor of the native module.

Whatever crosses the boundary (nested, cyclic, huge, NaN, negative, lone
surrogates, bytes, objects, a megabyte of text), the answer is a value or a
typed error: ``TypeError`` for a value of the wrong type, or a
``StoicError`` (``ConfigError``, ``InputError``) carrying a ``code``. Never
a crash, a hang, or another exception. One gap is allowed and named:
``OverflowError`` for a Python int beyond a plain numeric parameter's
machine type (pyo3's own conversion, before the binding sees the value).
``STOIC_FUZZ_EXAMPLES`` sets the cases per target (``make fuzz`` runs more).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stoic
from stoic import _stoic

EXAMPLES = int(os.environ.get("STOIC_FUZZ_EXAMPLES", "100"))


def _cyclic() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items


class _Deep(list[Any]):
    """A list nested thousands deep, with a repr short enough to report."""

    def __repr__(self) -> str:
        return f"<list nested {self.levels} deep>"

    def __init__(self, levels: int) -> None:
        value: list[Any] = []
        for _ in range(levels - 1):
            value = [value]
        super().__init__([value])
        self.levels = levels


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    # Any code point, lone surrogates too.
    | st.text(alphabet=st.characters(codec=None, categories=None), max_size=30)
    | st.binary(max_size=20)
    | st.sampled_from(
        [
            "",
            "full_jitter",
            "exponential",
            "consecutive_failures",
            "GET",
            "POST",
            "503",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            '{"a": 1}',
            "[1,2]",
            "x" * 1_000_000,
            "\ud800",
            -1,
            0,
            2**53 + 1,
            float("nan"),
        ]
    )
    | st.builds(object)
    | st.just(_cyclic())
    | st.builds(_Deep, st.just(5000))
)

VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(
            st.sampled_from(["base", "cap", "strategy", "seed", "max_attempts", "kind", "x"])
            | st.text(max_size=6),
            children,
            max_size=4,
        )
    ),
    max_leaves=8,
)

KEYWORDS = st.dictionaries(
    st.sampled_from(
        [
            "max_attempts",
            "backoff",
            "timeouts",
            "breaker",
            "budget",
            "classify",
            "seed",
            "strategy",
            "base",
            "cap",
            "ttl",
            "trip",
            "cooldown",
            "ratio",
            "version",
            "records",
            "bogus",
        ]
    ),
    VALUES,
    max_size=3,
)


def _targets() -> list[tuple[str, Callable[..., Any]]]:
    names = [n for n in _stoic.__all__ if callable(getattr(_stoic, n))]
    # Types whose constructor is not public (handed out by the engine) are skipped.
    skip = {"Call", "CallOverrides", "Permit", "RetryTicket"}
    return [(n, getattr(_stoic, n)) for n in sorted(names) if n not in skip]


def _check(outcome: BaseException | None) -> None:
    if outcome is None or isinstance(outcome, (TypeError, OverflowError)):
        return
    if isinstance(outcome, stoic.StoicError):
        assert getattr(outcome, "code", None), f"{type(outcome).__name__} without a code: {outcome}"
        return
    raise AssertionError(f"untyped error {type(outcome).__name__}: {outcome!r}") from outcome


def _fuzz(call: Callable[[list[Any], dict[str, Any]], object], max_args: int = 4) -> None:
    """Runs ``call(args, kwargs)`` on generated arguments; judges each outcome."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(st.lists(VALUES, max_size=max_args), KEYWORDS)
    def run(args: list[Any], kwargs: dict[str, Any]) -> None:
        outcome: BaseException | None = None
        try:
            call(args, kwargs)
        except Exception as exc:  # judged by _check
            outcome = exc
        _check(outcome)

    run()


@pytest.mark.parametrize(("name", "target"), _targets(), ids=[n for n, _ in _targets()])
def test_any_value_gets_an_answer_or_a_typed_error(name: str, target: Callable[..., Any]) -> None:
    _fuzz(lambda args, kwargs: target(*args, **kwargs))


POLICY_METHODS = [
    "before_attempt",
    "on_outcome",
    "cancel",
    "set_wall_clock",
    "breaker_state",
    "budget_status",
    "restore",
    "overrides",
    "start",
    "begin",
]


@pytest.mark.parametrize("method", POLICY_METHODS)
def test_policy_methods_take_any_value(method: str) -> None:
    policy = stoic.Policy(seed=1)
    _fuzz(lambda args, kwargs: getattr(policy, method)(*args, **kwargs))


CALL_METHODS = ["admit", "on_success", "on_status", "on_network_error", "on_rejected", "on_raised"]


@pytest.mark.parametrize("method", CALL_METHODS)
def test_call_methods_take_any_value(method: str) -> None:
    policy = stoic.Policy(seed=1)

    def on_a_fresh_call(args: list[Any], kwargs: dict[str, Any]) -> None:
        call = policy.begin(0.0, "op")
        try:
            getattr(call, method)(*args, **kwargs)
        finally:
            call.cancel(0.0)

    _fuzz(on_a_fresh_call, max_args=5)
