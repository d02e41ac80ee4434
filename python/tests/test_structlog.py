"""records= with a real structlog logger: each event at its level, with its
fields as key-values; a log record with the fields of "Implementing Smart
Retry Logic for Transient Errors"."""

from __future__ import annotations

import pytest
import structlog
from structlog.testing import capture_logs

import stoic


def test_events_reach_a_structlog_logger_as_key_values(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(
        records=structlog.get_logger(),
        breaker={"trip": {"kind": "consecutive_failures", "threshold": 2}},
        backoff={"base": 0.01, "cap": 0.01},
        max_attempts=2,
    )

    @stoic.retry(policy=policy, scope="payments")
    def charge() -> None:
        raise ConnectionRefusedError()

    with capture_logs() as logs, pytest.raises(stoic.RetryError):
        charge()
    decisions = [e for e in logs if e["event"] == "retry decision"]
    assert decisions
    first = decisions[0]
    # Seed 001's fields, as the one-line JSON spells them.
    assert {"timestamp", "operation", "attempt", "delay_ms", "error", "strategy"} <= set(first)
    assert (first["outcome"], first["attempt"], first["log_level"]) == ("retry", "1 of 2", "info")
    opened = [e for e in logs if e.get("kind") == "breaker_transition"]
    assert [(e["to"], e["log_level"]) for e in opened] == [("open", "warning")]
    assert opened[0]["scope"] == "payments"


def test_a_sink_of_no_known_shape_is_refused() -> None:
    with pytest.raises(TypeError, match="a structlog logger"):
        stoic.Policy(records=object())
