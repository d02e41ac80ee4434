"""httpx transports that retry as the engine decides.

::

    client = httpx.Client(transport=stoic.httpx.RetryTransport(max_attempts=4))
    async_client = httpx.AsyncClient(transport=stoic.httpx.AsyncRetryTransport())

The transports are the httpx family's (``_httpx_family.py``, which says
what they do), for ``httpx``; ``stoic.httpx2`` has the same for ``httpx2``.
"""

from __future__ import annotations

import httpx

from ._httpx_family import AsyncTransport, SyncTransport

__all__ = ["AsyncRetryTransport", "RetryTransport"]


class RetryTransport(
    SyncTransport[httpx.BaseTransport, httpx.Request, httpx.Response],
    httpx.BaseTransport,
    lib=httpx,
):
    """A retrying ``httpx.BaseTransport`` around ``transport`` (default
    ``httpx.HTTPTransport()``). Config keywords build a private policy;
    ``policy=`` shares one."""


class AsyncRetryTransport(
    AsyncTransport[httpx.AsyncBaseTransport, httpx.Request, httpx.Response],
    httpx.AsyncBaseTransport,
    lib=httpx,
):
    """The asyncio (and trio) twin of ``RetryTransport``, around
    ``httpx.AsyncHTTPTransport()`` by default."""
