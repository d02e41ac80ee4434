"""``@stoic.retry``: sync and async, exceptions, results, shared policies."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
from typing import Any

import httpx
import pytest
import requests

import stoic

FAST: dict[str, Any] = {"backoff": {"strategy": "exponential", "base": 0.01, "cap": 0.05}}


class Flaky:
    """Raises ``exc`` the first ``failures`` calls, then returns ``"ok"``."""

    def __init__(self, failures: int, exc: BaseException) -> None:
        self.failures, self.exc, self.calls = failures, exc, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.exc
        return "ok"


def test_defaults_retry_connection_errors(clock: stoic.VirtualClock) -> None:
    flaky = Flaky(2, ConnectionRefusedError())
    assert stoic.retry()(flaky)() == "ok"
    assert flaky.calls == 3
    assert len(clock.sleeps) == 2
    assert all(0 <= s <= 2.0 for s in clock.sleeps)  # full jitter over 1 s, 2 s


@pytest.mark.parametrize(
    "exc",
    [
        TimeoutError(),
        ConnectionResetError(),
        OSError(errno.ECONNREFUSED, "refused"),
        OSError(errno.ENETUNREACH, "unreachable"),
    ],
)
def test_network_exceptions_are_retried(exc: BaseException, clock: stoic.VirtualClock) -> None:
    flaky = Flaky(1, exc)
    assert stoic.retry(**FAST)(flaky)() == "ok"
    assert flaky.calls == 2


def test_exhaustion_raises_retry_error_from_the_last_exception(clock: stoic.VirtualClock) -> None:
    flaky = Flaky(10, ConnectionRefusedError("nope"))
    with pytest.raises(stoic.RetryError) as info:
        stoic.retry(max_attempts=3, **FAST)(flaky)()
    error = info.value
    assert error.reason == "attempts_exhausted"
    assert error.code == error.reason, "code, as on every stoic error"
    assert error.attempts == 3
    assert error.last_outcome == "network_connect_refused"
    assert isinstance(error.__cause__, ConnectionRefusedError)
    assert "every allowed attempt failed" in error.observation
    assert flaky.calls == 3


def test_unknown_exceptions_propagate_untouched(clock: stoic.VirtualClock) -> None:
    flaky = Flaky(1, KeyError("bug"))
    with pytest.raises(KeyError) as info:
        stoic.retry()(flaky)()
    assert flaky.calls == 1
    assert clock.sleeps == []
    assert any(n.startswith("stoic: ") for n in getattr(info.value, "__notes__", []))


def test_on_marks_exceptions_transient(clock: stoic.VirtualClock) -> None:
    flaky = Flaky(2, ValueError("busy"))
    assert stoic.retry(on=ValueError, **FAST)(flaky)() == "ok"
    assert flaky.calls == 3


def test_classify_and_reraise(clock: stoic.VirtualClock) -> None:
    flaky = Flaky(5, ValueError("busy"))
    with pytest.raises(ValueError, match="busy"):
        stoic.retry(classify=lambda e: stoic.Rejected("transient"), max_attempts=2, reraise=True)(
            flaky
        )()
    assert flaky.calls == 2


def test_not_idempotent_stops_ambiguous_failures(clock: stoic.VirtualClock) -> None:
    flaky = Flaky(1, TimeoutError())
    with pytest.raises(TimeoutError):
        stoic.retry(idempotent=False)(flaky)()
    assert flaky.calls == 1
    keyed = Flaky(1, TimeoutError())
    assert stoic.retry(idempotent=False, key="order-7", **FAST)(keyed)() == "ok"


def test_validate_rejects_results(clock: stoic.VirtualClock) -> None:
    results = iter([{"error": "busy"}, {"error": "busy"}, {"ok": True}])

    @stoic.retry(validate=lambda r: "error" not in r, **FAST)
    def fetch() -> dict[str, Any]:
        return next(results)

    assert fetch() == {"ok": True}

    @stoic.retry(validate=lambda r: stoic.Rejected("deterministic", "bad shape"))
    def broken() -> int:
        return 7

    with pytest.raises(stoic.RetryError) as info:
        broken()
    assert info.value.reason == "not_retryable"
    assert info.value.last_result == 7
    assert "bad shape" in info.value.observation


def test_shared_policy_breaker_fails_fast(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(
        max_attempts=1,
        breaker={"trip": {"kind": "consecutive_failures", "threshold": 2}},
        budget={"ratio": None},
    )
    a = Flaky(99, ConnectionRefusedError())
    b = Flaky(0, ConnectionRefusedError())
    for _ in range(2):
        with pytest.raises(stoic.RetryError):
            stoic.retry(policy=policy)(a)()
    with pytest.raises(stoic.RetryError) as info:
        stoic.retry(policy=policy)(b)()
    assert info.value.reason == "circuit_open"
    assert info.value.retry_at == pytest.approx(60.0)
    assert b.calls == 0


def test_a_shared_policy_takes_only_per_call_settings() -> None:
    with pytest.raises(TypeError, match="only max_attempts and backoff"):
        stoic.retry(policy=stoic.Policy(), breaker=None)
    with pytest.raises(TypeError, match="records= belongs to the policy"):
        stoic.retry(policy=stoic.Policy(), records="logging")


def test_httpx_status_errors_use_status_and_hints(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    @stoic.retry(**FAST)
    def get(path: str) -> str:
        response = httpx.get(f"{server.url}{path}")
        response.raise_for_status()
        return response.text

    assert get(f"/status/{token}a?n=2&code=503") == "ok"
    assert get(f"/retry-after/{token}b?n=1&after=3") == "ok"
    assert clock.sleeps[-1] == 3.0
    with pytest.raises(httpx.HTTPStatusError):
        get(f"/status/{token}c?n=-1&code=404")
    assert len(server.seen[f"{token}c"]) == 1


def test_requests_errors_are_classified(server: Any, token: str, clock: stoic.VirtualClock) -> None:
    @stoic.retry(**FAST)
    def get(path: str) -> str:
        response = requests.get(f"{server.url}{path}", timeout=5)
        response.raise_for_status()
        return response.text

    assert get(f"/status/{token}?n=2&code=502") == "ok"
    assert len(server.seen[token]) == 3


def test_records_reach_a_callback_and_logging(
    clock: stoic.VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    events: list[dict[str, Any]] = []
    stoic.retry(records=events.append, operation="charge", **FAST)(
        Flaky(1, ConnectionRefusedError())
    )()
    lines = [json.loads(e["line"]) for e in events if e["kind"] == "log"]
    assert [line["outcome"] for line in lines] == ["retry", "success"]
    assert lines[0]["operation"] == "charge"
    with caplog.at_level(logging.INFO, logger="stoic"):
        stoic.retry(records="logging", **FAST)(Flaky(1, ConnectionRefusedError()))()
    assert any('"outcome":"retry"' in r.getMessage() for r in caplog.records)


def test_async_functions(clock: stoic.VirtualClock) -> None:
    calls = 0

    @stoic.retry(**FAST)
    async def fetch(x: int) -> int:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ConnectionResetError()
        return x * 2

    assert asyncio.run(fetch(21)) == 42
    assert clock.sleeps == [0.01, 0.02]

    @stoic.retry(max_attempts=2, **FAST)
    async def down() -> None:
        raise TimeoutError()

    with pytest.raises(stoic.RetryError) as info:
        asyncio.run(down())
    assert info.value.reason == "attempts_exhausted"


def test_async_cancellation_is_recorded_and_propagates() -> None:
    policy = stoic.Policy()

    @stoic.retry(policy=policy)
    async def wait_forever() -> None:
        await asyncio.Event().wait()

    async def main() -> None:
        task = asyncio.create_task(wait_forever())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    totals = policy.metrics_total()
    assert totals["calls_total"] == 1
    assert totals["gave_up_total"] == 1


def test_wraps_keep_the_function_identity() -> None:
    @stoic.retry()
    def documented(a: int) -> int:
        """Doc."""
        return a

    assert documented.__name__ == "documented"
    assert documented.__doc__ == "Doc."
    assert documented(3) == 3


def _half_open_policy() -> stoic.Policy:
    return stoic.Policy(
        max_attempts=1,
        breaker={
            "trip": {"kind": "consecutive_failures", "threshold": 1},
            "cooldown": 1.0,
            "half_open": {"max_probes": 1, "success_threshold": 1},
        },
        budget={"ratio": None},
    )


@pytest.mark.parametrize("hook", ["validate", "classify"])
def test_a_hook_that_raises_during_the_half_open_probe_does_not_wedge_the_breaker(
    clock: stoic.VirtualClock, hook: str
) -> None:
    policy = _half_open_policy()
    state = {"armed": False, "fail": True}

    def boom(_: object) -> None:
        if state["armed"]:
            raise ValueError("hook bug")

    @stoic.retry(policy=policy, scope="svc", **{hook: boom})
    def work() -> str:
        if state["fail"] or (hook == "classify" and state["armed"]):
            raise ConnectionResetError()
        return "ok"

    with pytest.raises(stoic.RetryError):
        work()
    assert policy.breaker_state("svc") == "open"
    clock.advance(1.5)
    state.update(armed=True, fail=False)
    # The probe's hook raises: the hook's own error reaches the caller...
    with pytest.raises(ValueError, match="hook bug") as info:
        work()
    assert info.value is not None  # the traceback (and its frames) stays alive
    # ...and the probe slot is free again: the next call is the probe.
    state["armed"] = False
    assert work() == "ok"
    assert policy.breaker_state("svc") == "closed"


def _admits(policy: stoic.Policy, scope: str, clock: stoic.VirtualClock) -> bool:
    call = policy.begin(clock.monotonic(), "probe", scope)
    admitted = call.admitted
    call.on_success(clock.monotonic())
    return admitted


def test_a_dropped_call_gives_back_its_probe_slot(clock: stoic.VirtualClock) -> None:
    policy = _half_open_policy()
    call = policy.begin(0.0, "x", "svc")
    call.on_network_error(0.0, "connect_refused")
    assert policy.breaker_state("svc") == "open"
    probe = policy.begin(2.0, "x", "svc")
    assert probe.admitted
    del probe  # a runtime lost it mid-attempt
    assert _admits(policy, "svc", clock.__class__(start=3.0))


def test_unrelated_functions_do_not_share_a_breaker(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(max_attempts=1, budget={"ratio": None})

    @stoic.retry(policy=policy)
    def failing() -> None:
        raise ConnectionRefusedError()

    @stoic.retry(policy=policy)
    def healthy() -> str:
        return "fine"

    for _ in range(6):
        with pytest.raises(stoic.RetryError):
            failing()
    assert healthy() == "fine"


def test_scope_may_be_a_function_of_the_arguments(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(max_attempts=1, budget={"ratio": None})

    @stoic.retry(policy=policy, scope=lambda host: host)
    def fetch(host: str) -> str:
        if host == "down.example":
            raise ConnectionRefusedError()
        return host

    for _ in range(6):
        with pytest.raises(stoic.RetryError):
            fetch("down.example")
    assert policy.breaker_state("down.example") == "open"
    assert fetch("up.example") == "up.example"


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"on": "ValueError"}, "on"),
        ({"scope": 5}, "scope"),
        ({"records": 42}, "records"),
        ({"idempotent": "yes"}, "idempotent"),
        ({"validate": 3}, "validate"),
    ],
)
def test_bad_decorator_arguments_fail_when_the_decorator_is_built(
    kwargs: dict[str, Any], name: str
) -> None:
    with pytest.raises(TypeError, match=f"{name}="):
        stoic.retry(**kwargs)


def test_the_async_decorator_enforces_the_attempt_timeout() -> None:
    calls = 0

    @stoic.retry(max_attempts=2, timeouts={"read": 0.05}, backoff={"base": 0.001, "cap": 0.001})
    async def slow() -> str:
        nonlocal calls
        calls += 1
        await asyncio.sleep(5 if calls == 1 else 0)
        return "fast now"

    assert asyncio.run(slow()) == "fast now"
    assert calls == 2


def test_an_unknown_exception_is_described_as_a_local_error(clock: stoic.VirtualClock) -> None:
    @stoic.retry()
    def buggy() -> None:
        raise KeyError("order_id")

    with pytest.raises(KeyError) as info:
        buggy()
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "a local error was raised: KeyError" in notes
    assert "rejected by validation" not in notes
    assert "Server said" not in notes


def test_nested_decorated_calls_add_one_note(clock: stoic.VirtualClock) -> None:
    @stoic.retry()
    def inner() -> None:
        raise KeyError("missing")

    @stoic.retry()
    def outer() -> None:
        inner()

    with pytest.raises(KeyError) as info:
        outer()
    notes = [n for n in getattr(info.value, "__notes__", []) if n.startswith("stoic:")]
    assert len(notes) == 1, notes


def test_urllib_http_errors_are_judged_by_their_status(
    server: Any, token: str, clock: stoic.VirtualClock
) -> None:
    import urllib.request

    @stoic.retry(backoff={"base": 0.01, "cap": 0.02})
    def get(url: str) -> bytes:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body: bytes = response.read()
                return body
        except urllib.error.HTTPError as error:
            error.close()  # its status and headers stay readable
            raise

    assert get(f"{server.url}/status/{token}?n=2&code=503") == b"ok"
    assert len(server.seen[token]) == 3
    with pytest.raises(urllib.error.HTTPError):
        get(f"{server.url}/status/{token}x?n=-1&code=404")
    assert len(server.seen[f"{token}x"]) == 1


def test_bare_decorator_is_the_same_as_with_parentheses(clock: stoic.VirtualClock) -> None:
    calls = 0

    @stoic.retry
    def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls < 2:
            raise ConnectionRefusedError()
        return "ok"

    assert flaky() == "ok"
    assert calls == 2
    with pytest.raises(TypeError, match="decorates a function"):
        stoic.retry(42)  # type: ignore[call-overload]


def test_circuit_open_says_when_it_may_close(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(max_attempts=1, budget={"ratio": None})

    @stoic.retry(policy=policy, scope="svc")
    def down() -> None:
        raise ConnectionRefusedError()

    for _ in range(5):
        with pytest.raises(stoic.RetryError):
            down()
    with pytest.raises(stoic.RetryError) as info:
        down()
    assert info.value.reason == "circuit_open"
    assert "may let a call through again in 60.000 s" in info.value.observation


def test_a_shared_policy_takes_per_call_attempts_and_backoff(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy(budget={"ratio": None})
    calls = 0

    @stoic.retry(
        policy=policy, scope="svc", max_attempts=2, backoff={"strategy": "constant", "base": 0.5}
    )
    def twice() -> None:
        nonlocal calls
        calls += 1
        raise ConnectionRefusedError()

    with pytest.raises(stoic.RetryError) as info:
        twice()
    assert info.value.reason == "attempts_exhausted"
    assert calls == 2
    assert clock.sleeps == [0.5]
    # The breaker is still the shared policy's: three more failures open it.
    for _ in range(2):
        with pytest.raises(stoic.RetryError):
            twice()
    assert policy.breaker_state("svc") == "open"


def test_per_call_overrides_are_checked_and_limited(clock: stoic.VirtualClock) -> None:
    policy = stoic.Policy()
    with pytest.raises(stoic.ConfigError) as info:
        stoic.retry(policy=policy, max_attempts=0)
    assert info.value.field == "max_attempts"
    with pytest.raises(stoic.ConfigError) as backoff:
        stoic.retry(policy=policy, backoff={"base": 10, "cap": 1})
    assert backoff.value.field.startswith("backoff")
    with pytest.raises(TypeError, match="only max_attempts and backoff"):
        stoic.retry(policy=policy, timeouts={"total": 5})
    # An engine key close to one of the decorator's (records) is still the policy's.
    with pytest.raises(TypeError, match=r"only max_attempts and backoff .* not log_records"):
        stoic.retry(policy=policy, log_records=True)


def test_a_misspelled_keyword_names_the_callers_own_keywords() -> None:
    with pytest.raises(TypeError, match=r"'idempotnt' \(did you mean 'idempotent'\?\)"):
        stoic.retry(idempotnt=False)
    with pytest.raises(TypeError, match=r"'validat' \(did you mean 'validate'\?\)"):
        stoic.retry(validat=lambda r: True)
    with pytest.raises(TypeError, match=r"stoic.retrying\(\) got an unexpected keyword"):
        stoic.retrying(max_atempts=2)
    with pytest.raises(TypeError, match=r"did you mean 'idempotent'"):
        stoic.retry(policy=stoic.Policy(), idempotnt=False)


def test_a_records_sink_that_cannot_take_events_is_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="records= must be None"):
        stoic.Policy(records="logs")
    with pytest.raises(TypeError, match="records= must be None"):
        stoic.retry(records=42)


def test_classify_may_answer_in_the_js_form(clock: stoic.VirtualClock) -> None:
    calls = []

    @stoic.retry(max_attempts=3, classify=lambda e: {"class": "transient", "detail": "busy"})
    def busy() -> str:
        calls.append(1)
        if len(calls) < 2:
            raise LookupError("busy")
        return "done"

    assert busy() == "done"
    assert len(calls) == 2
