"""Fault injection for the orders server: which failure a request meets.

Every fault the seeds describe, chosen per request and reproducibly: the
choice depends only on the plan's seed, the request's idempotency key and
its attempt number for that key, never on the order in which concurrent
requests arrive. So a seed replays the same faults for the same orders.

The faults, by name:

- ``retry_after_seconds``: 429 with ``Retry-After: <seconds>``;
- ``retry_after_date``: 429 with ``Retry-After: <HTTP-date>`` (the response's
  ``Date`` plus the hint, so the client must read the server's clock);
- ``unavailable``: 503 with no hint;
- ``reset``: the connection is reset after the headers, before the body is
  read or anything is applied;
- ``lost_ack``: the order is committed, then the connection is dropped before
  the response (the lost acknowledgement of "Retries, timeouts and doing it twice");
- ``slow``: the order is processed slower than the client's timeout (the key
  stays in flight meanwhile, so a quick retry meets 409 and then a replay);
- ``error_body``: 200 whose body says the request failed (nothing applied).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

FAULTS = (
    "retry_after_seconds",
    "retry_after_date",
    "unavailable",
    "reset",
    "lost_ack",
    "slow",
    "error_body",
)


def _mixed() -> dict[str, float]:
    return dict.fromkeys(FAULTS, 1.0)


@dataclass(frozen=True)
class FaultPlan:
    """How often, and which, faults are injected.

    ``rate`` is the chance that a request with a key meets a fault, for its
    first ``faulty_attempts`` attempts (later attempts go through, so every
    order can succeed within a client's attempt limit). ``outage_requests``
    answers the server's first N requests with 503 whatever they carry;
    ``always`` injects one fault into every request.
    """

    seed: int = 0
    rate: float = 0.0
    weights: dict[str, float] = field(default_factory=_mixed)
    faulty_attempts: int = 2
    outage_requests: int = 0
    always: str | None = None
    retry_after_seconds: int = 1
    slow_seconds: float = 1.5

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FAULTS)
        if self.always is not None:
            unknown |= {self.always} - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; known: {', '.join(FAULTS)}")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"rate must be within 0..1, got {self.rate}")

    def choose(self, key: str | None, attempt: int, request_number: int) -> str | None:
        """The fault for a request (None: serve it normally).

        ``request_number`` counts every request the server has seen, from 1.
        """
        if self.always is not None:
            return self.always
        if request_number <= self.outage_requests:
            return "unavailable"
        if key is None or attempt > self.faulty_attempts or self.rate == 0.0:
            return None
        digest = hashlib.sha256(f"{self.seed}:{key}:{attempt}".encode()).digest()
        draw = random.Random(int.from_bytes(digest[:8], "big"))
        if draw.random() >= self.rate:
            return None
        names = [name for name, weight in self.weights.items() if weight > 0]
        if not names:
            return None
        return draw.choices(names, weights=[self.weights[name] for name in names])[0]


SCENARIOS: dict[str, FaultPlan] = {
    "healthy": FaultPlan(),
    "mixed": FaultPlan(seed=7, rate=0.45),
    "outage": FaultPlan(outage_requests=12),
    "down": FaultPlan(always="unavailable"),
    "hang": FaultPlan(always="slow", slow_seconds=10.0),
}
"""Named plans for the command line (``--scenario``); ``--seed`` and
``--rate`` adjust ``mixed``."""
