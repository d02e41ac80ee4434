"""Many threads sharing one policy: nothing is lost, counts add up."""

from __future__ import annotations

import threading

import stoic

THREADS = 8
CALLS = 250


def test_threads_share_one_policy() -> None:
    policy = stoic.Policy(
        breaker=None,
        budget={"ratio": None},
        backoff={"strategy": "none", "base": 0, "cap": 0},
    )
    clock = stoic.VirtualClock()
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def work(n: int) -> None:
        state = {"calls": 0}

        @stoic.retry(policy=policy, clock=clock, scope=f"svc{n % 2}")
        def flaky() -> int:
            state["calls"] += 1
            if state["calls"] % 2 == 1:
                raise ConnectionRefusedError()
            return n

        try:
            barrier.wait()
            for _ in range(CALLS):
                assert flaky() == n
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    total = policy.metrics_total()
    assert total["calls_total"] == THREADS * CALLS
    assert total["attempts_total"] == 2 * THREADS * CALLS
    assert total["retry_total"] == THREADS * CALLS
    assert total["retry_success"] == THREADS * CALLS
    per_scope = policy.metrics()
    assert sum(m["calls_total"] for m in per_scope.values()) == THREADS * CALLS


def test_threads_drive_calls_directly() -> None:
    policy = stoic.Policy(breaker=None, budget={"ratio": None})
    ids: list[int] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(CALLS):
            call = policy.begin(0.0, "op")
            assert call.admitted
            assert call.on_success(0.001)
            with lock:
                ids.append(call.id)

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(ids) == list(range(1, THREADS * CALLS + 1))
