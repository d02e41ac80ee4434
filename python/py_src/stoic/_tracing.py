"""Which policies ``stoic.opentelemetry`` traces, for the HTTP integrations
to mark each resend on the caller's span without importing OpenTelemetry."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable

from ._stoic import Call, Policy

__all__ = ["mark_resend", "trace_resends"]

#: For each traced policy: what sets ``http.request.resend_count`` (the
#: resends so far) on the span current when an attempt starts.
_markers: weakref.WeakKeyDictionary[Policy, Callable[[int], None]] = weakref.WeakKeyDictionary()


def trace_resends(policy: Policy, marker: Callable[[int], None] | None) -> None:
    """Starts (or with None, stops) marking ``policy``'s HTTP resends."""
    if marker is None:
        _markers.pop(policy, None)
    else:
        _markers[policy] = marker


def mark_resend(policy: Policy, call: Call) -> None:
    """Before an HTTP attempt: a retry marks its resend count. A marker
    that raises never fails the request."""
    if call.retries and _markers:
        marker = _markers.get(policy)
        if marker is not None:
            # Telemetry never fails the call.
            with contextlib.suppress(Exception):
                marker(call.retries)
