"""Testing mode: virtual time, no sleeping."""

from __future__ import annotations

import time

import pytest

import stoic
from stoic import testing


def test_set_testing_swaps_the_clock() -> None:
    clock = stoic.set_testing(True)
    try:
        assert testing.is_testing()
        assert isinstance(clock, stoic.VirtualClock)
        started = time.monotonic()

        @stoic.retry(max_attempts=3)
        def always() -> None:
            raise ConnectionRefusedError()

        with pytest.raises(stoic.RetryError) as info:
            always()
        assert info.value.reason == "attempts_exhausted"
        assert len(clock.sleeps) == 2
        assert time.monotonic() - started < 1.0  # the default backoff is seconds
    finally:
        stoic.set_testing(False)
    assert not testing.is_testing()
    assert isinstance(testing.current_clock(), stoic.SystemClock)


def test_virtual_time_restores_the_previous_clock() -> None:
    before = testing.current_clock()
    with testing.virtual_time(stoic.VirtualClock(start=100.0)) as clock:
        assert testing.current_clock() is clock
        assert clock.monotonic() == 100.0
        clock.sleep(1.5)
        assert clock.monotonic() == 101.5
        assert clock.wall() > 1_700_000_000
    assert testing.current_clock() is before


def test_deadlines_pass_in_virtual_time() -> None:
    with testing.virtual_time() as clock:

        @stoic.retry(timeouts={"total": 5}, backoff={"strategy": "constant", "base": 2, "cap": 2})
        def down() -> None:
            raise ConnectionRefusedError()

        with pytest.raises(stoic.RetryError) as info:
            down()
        assert info.value.reason == "deadline_exceeded"
        assert clock.sleeps == [2.0, 2.0]
