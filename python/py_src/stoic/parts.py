"""The engine's parts on their own, for hosts that compose them
differently (and for the shared vectors): a circuit breaker, retry
budgets, metrics with alert rules, log records, the metric catalogue
(what exporters publish each metric as), server-side idempotency
decisions, and the lower-level key, header and date helpers.

Each part takes its section of the engine config as keywords, in the same
Python spelling as ``Policy`` (float seconds, ``_ms`` dropped).
"""

from ._stoic import (
    Breaker,
    LogRecord,
    Metrics,
    Permit,
    RetryBudget,
    RetryTicket,
    ServerIdempotency,
    canonical_json_text,
    es6_number,
    format_http_date,
    hint_delay,
    idempotency_key_text,
    is_idempotent_method,
    key_header_value,
    merge_metrics,
    metric_catalogue,
    parse_http_date,
    parse_key_header,
    request_fingerprint,
    server_hint,
)

__all__ = [
    "Breaker",
    "LogRecord",
    "Metrics",
    "Permit",
    "RetryBudget",
    "RetryTicket",
    "ServerIdempotency",
    "canonical_json_text",
    "es6_number",
    "format_http_date",
    "hint_delay",
    "idempotency_key_text",
    "is_idempotent_method",
    "key_header_value",
    "merge_metrics",
    "metric_catalogue",
    "parse_http_date",
    "parse_key_header",
    "request_fingerprint",
    "server_hint",
]
