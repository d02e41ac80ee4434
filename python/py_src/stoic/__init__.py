"""stoic: retries that decide well.

A sans-IO resilience engine (Rust) decides how to classify each failure,
how long to wait, which idempotency key to carry, and whether the circuit
breaker, the retry budget and the deadline allow another attempt. This
package is its Python host: it reads the clock, sleeps and calls.

- ``@stoic.retry(...)``: a decorator for sync and ``async def`` functions;
- ``for attempt in stoic.retrying(...): with attempt: ...``: a retry loop;
- ``stoic.httpx.RetryTransport`` / ``AsyncRetryTransport``: httpx transports
  (``stoic.httpx2``: the same for httpx2, under the OpenAI and Anthropic SDKs);
- ``stoic.requests.RetryAdapter`` and ``stoic.aiohttp.RetryMiddleware``: the
  same for requests and aiohttp;
- ``stoic.prometheus.StoicCollector`` and ``stoic.redis.FleetSync``: Prometheus
  and a fleet of processes sharing breakers and budgets through Redis;
- ``hedging=`` on ``@stoic.retry`` (``async def``) and ``AsyncRetryTransport``:
  a second copy of a slow call that is safe to repeat, the first answer winning;
- ``stoic.Policy``: the engine itself (shared breakers, budgets, metrics);
- ``stoic.set_testing(True, attempts=1)`` / ``stoic.testing.virtual_time()``:
  no sleeping (and capped attempts) in tests; ``stoic.set_active(False)``:
  no retrying at all.

Durations are float seconds everywhere (the engine's ``base_ms`` is
``base`` here).
"""

# First: what the native module needs from the package, handed over once.
from . import _native  # noqa: F401
from ._classify import Rejected
from ._clock import Clock, SystemClock, VirtualClock, monotonic
from ._decorator import RetryingFunction, retry
from ._errors import ConfigError, ConfigProblem, InputError, RetryError, StoicError
from ._hooks import HookWarning
from ._loop import Attempt, Retrying, retrying
from ._runtime import RetryInfo
from ._statistics import CallStatistics
from ._stoic import (
    CORE_VERSION,
    Backoff,
    Call,
    HedgedCall,
    HedgingConfig,
    Policy,
    canonical_json,
    idempotency_key,
    parse_retry_after,
    random_key,
)
from .testing import set_active, set_testing

__version__ = CORE_VERSION

__all__ = [
    "Attempt",
    "Backoff",
    "Call",
    "CallStatistics",
    "Clock",
    "ConfigError",
    "ConfigProblem",
    "HedgedCall",
    "HedgingConfig",
    "HookWarning",
    "InputError",
    "Policy",
    "Rejected",
    "RetryError",
    "RetryInfo",
    "Retrying",
    "RetryingFunction",
    "StoicError",
    "SystemClock",
    "VirtualClock",
    "__version__",
    "canonical_json",
    "idempotency_key",
    "monotonic",
    "parse_retry_after",
    "random_key",
    "retry",
    "retrying",
    "set_active",
    "set_testing",
]
