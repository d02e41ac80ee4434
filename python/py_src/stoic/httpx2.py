"""httpx2 transports that retry as the engine decides: what goes under the
OpenAI and Anthropic SDKs, which take ``httpx2`` clients.

::

    client = openai.OpenAI(
        max_retries=0,  # stoic retries: the SDK's own retries would multiply them
        http_client=httpx2.Client(transport=stoic.httpx2.RetryTransport()),
    )

The same transports as ``stoic.httpx`` (``_httpx_family.py`` says what
they do), for ``httpx2``.
"""

from __future__ import annotations

import httpx2

from ._httpx_family import AsyncTransport, SyncTransport

__all__ = ["AsyncRetryTransport", "RetryTransport"]


class RetryTransport(
    SyncTransport[httpx2.BaseTransport, httpx2.Request, httpx2.Response],
    httpx2.BaseTransport,
    lib=httpx2,
):
    """A retrying ``httpx2.BaseTransport`` around ``transport`` (default
    ``httpx2.HTTPTransport()``). Config keywords build a private policy;
    ``policy=`` shares one."""


class AsyncRetryTransport(
    AsyncTransport[httpx2.AsyncBaseTransport, httpx2.Request, httpx2.Response],
    httpx2.AsyncBaseTransport,
    lib=httpx2,
):
    """The asyncio (and trio) twin of ``RetryTransport``, around
    ``httpx2.AsyncHTTPTransport()`` by default."""
