"""Delivering the engine's events to a callback or to ``logging``.

Off by default: a log line costs more than the decision it describes. A
policy built with ``records=`` (a callable taking the event dict, a
``logging.Logger``, or ``"logging"`` for the ``stoic`` logger) gets its
queued events delivered whenever a call ends or sleeps. A sink that raises
never fails the call: it is reported once (``_hooks``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ._hooks import hook_failed
from ._stoic import Policy

__all__ = ["deliver"]

# Whether any policy ever had a listener is the native module's
# ``stoic._stoic.listening`` (``Policy.listen`` sets it): until then a call
# with no ``records=`` skips delivery without asking the engine.

_ALERT_LEVELS = {"ok": logging.INFO, "warning": logging.WARNING, "critical": logging.ERROR}


def _log(logger: logging.Logger, event: dict[str, Any]) -> None:
    level, message = _line(event)
    logger.log(level, "%s", message, extra={"stoic": event})


def _structured(logger: Any, event: dict[str, Any]) -> None:
    """A structlog logger: a short message at the event's level, with the
    event's fields as key-values; a log record's are those of "Implementing
    Smart Retry Logic for Transient Errors", as its one-line JSON spells
    them (``delay_ms``, ``total_duration_ms``)."""
    level, message = _line(event)
    method = {logging.ERROR: "error", logging.WARNING: "warning"}.get(level, "info")
    if event.get("kind") == "log":
        message, fields = "retry decision", json.loads(str(event.get("line", "{}")))
    else:
        fields = event
    getattr(logger, method)(message, **fields)


def _line(event: dict[str, Any]) -> tuple[int, str]:
    """The level and the one-line message of an event."""
    kind = event.get("kind")
    if kind == "log":
        level, message = logging.INFO, str(event.get("line", ""))
    elif kind == "breaker_transition":
        level = logging.WARNING if event.get("to") == "open" else logging.INFO
        message = (
            f"circuit breaker {event.get('scope')!r}: {event.get('from')} -> "
            f"{event.get('to')} ({event.get('reason')})"
        )
    elif kind == "budget_exhausted":
        level = logging.WARNING
        message = f"{event.get('message')} ({event.get('scope')!r}, {event.get('budget')})"
    elif kind == "alert_changed":
        level = _ALERT_LEVELS.get(str(event.get("to")), logging.WARNING)
        message = (
            f"alert {event.get('rule')} in {event.get('scope')!r}: {event.get('from')} -> "
            f"{event.get('to')} (value {event.get('value')}, threshold {event.get('threshold')})"
        )
    elif kind == "nested_retries":
        level = logging.WARNING
        message = (
            f"{event.get('operation')} ({event.get('scope')!r}) arrived as retry "
            f"{event.get('retries_above')} of a layer above: {event.get('message')}"
        )
    elif kind == "fleet_health":
        level = logging.WARNING if event.get("to") == "stale" else logging.INFO
        message = f"fleet view: {event.get('from')} -> {event.get('to')}"
    else:
        level, message = logging.INFO, repr(event)
    return level, message


def deliver(policy: Policy, sink: Any) -> None:
    """Drains ``policy``'s events into ``sink`` (its ``records=``, or None)
    and the listeners added with ``policy.listen``. With neither, events
    stay queued for ``policy.events()``."""
    if not policy.pending_events:
        return
    listeners = policy.listeners
    if sink is None and not listeners:
        return
    if sink == "logging":
        sink = logging.getLogger("stoic")
    # A sink or listener never fails the call that delivers (nor loses the
    # other events): one that raises is reported once and skipped.
    for event in policy.events():
        if sink is not None:
            try:
                if isinstance(sink, logging.Logger):
                    _log(sink, event)
                elif callable(sink):
                    sink(event)
                else:  # a structlog logger (the policy checked its shape)
                    _structured(sink, event)
            except Exception as error:
                hook_failed("records=", sink, error)
        for listener in listeners:
            try:
                listener(event)
            except Exception as error:
                hook_failed("policy.listen", listener, error)
