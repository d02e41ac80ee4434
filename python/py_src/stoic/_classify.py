"""Exceptions and results to outcomes the engine classifies.

This maps what Python raised onto the engine's vocabulary (a network error
kind, an HTTP status with its headers, or a class the caller chose); the
engine then decides what each means (transient, ambiguous,
deterministic) and what to do. The tables (errno names -> network kinds,
the class of an unknown exception) are the core's host policy, read once
at import: the JS runtime reads the same ones. Unknown exceptions are
reported as raised errors of that class (deterministic): they propagate
unchanged after the engine records them.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Union

from ._errors import InputError
from ._stoic import host_policy, is_failure_status

__all__ = [
    "BodyCut",
    "ClassOutcome",
    "NetworkOutcome",
    "Outcome",
    "Rejected",
    "StatusOutcome",
    "body_cut",
    "classify_exception",
    "classify_result",
    "is_network",
    "mark_cut",
]

Class = Literal["transient", "deterministic", "ambiguous"]


@dataclass(frozen=True)
class Rejected:
    """A validator's verdict that a result is a failure of class ``cls``.

    Return it from ``validate=`` (``None`` or ``True`` accepts the result,
    ``False`` rejects it as transient).
    """

    cls: Class = "transient"
    detail: str = ""


#: What the engine hears, as a tagged tuple: plain tuples cost the hot path
#: nothing (a NamedTuple or a dataclass costs 3-9x to build and read), and
#: mypy narrows the union on the tag (``outcome[0] == "status"``).
NetworkOutcome = tuple[Literal["network"], str, None]
#: A status and the headers it came with (pairs), if any.
StatusOutcome = tuple[Literal["status"], int, list[tuple[Any, Any]] | None]
#: A result the validator rejected, or an exception of the caller's own
#: code, as a class code, with a detail if any.
ClassOutcome = tuple[Literal["rejected", "raised"], str, str | None]
Outcome = NetworkOutcome | StatusOutcome | ClassOutcome
Classifier = Callable[[BaseException], Union[Outcome, "Rejected", str, None]]

#: The core's host policy, read once for the package (``_http`` uses it too).
HOST = host_policy()
#: errno -> network kind, through the core's table of symbolic errno names.
_ERRNO_KINDS: dict[int, str] = {
    number: HOST["error_codes"][name]
    for number, name in errno.errorcode.items()
    if name in HOST["error_codes"]
}
#: The class of an exception nothing here recognises (the core's answer).
UNKNOWN_CLASS: str = HOST["unknown_error_class"]


_BUILTIN_CACHE: dict[tuple[type, Any], Outcome] = {}


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then what it explicitly wraps (``raise ... from``,
    urllib3's ``reason``, exception arguments), without revisiting any. The
    implicit ``__context__`` is not followed: a bug raised while handling a
    network error is still a bug."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        item = todo.pop(0)
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        nested: list[Any] = [
            item.__cause__,
            getattr(item, "reason", None),
            getattr(item, "os_error", None),  # aiohttp's connection errors
        ]
        nested.extend(item.args)
        todo.extend(n for n in nested if isinstance(n, BaseException))


def _builtin(exc: BaseException) -> Outcome | None:
    if isinstance(exc, socket.gaierror):
        return ("network", "dns_failure", None)
    if isinstance(exc, ConnectionRefusedError):
        return ("network", "connect_refused", None)
    # An errno the core's table names wins over the exception's type: Python
    # raises ETIMEDOUT (the kernel's connect timeout) as a TimeoutError.
    if isinstance(exc, OSError) and exc.errno in _ERRNO_KINDS:
        return ("network", _ERRNO_KINDS[exc.errno], None)
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return ("network", "read_timeout", None)
    if isinstance(exc, ConnectionError):
        return ("network", "unknown", None)
    return None


#: The client libraries' exception tables (the core's, read once): each
#: library's modules, its class names in the order they are tested (a
#: subclass before its base) with what each stands for, and the names of
#: the transport errors a ``chain`` entry looks for inside.
_LIBRARIES: tuple[tuple[tuple[str, ...], tuple[tuple[str, str], ...], dict[str, str]], ...] = tuple(
    (tuple(lib["modules"]), tuple(lib["classes"]), dict(lib["chain"])) for lib in HOST["libraries"]
)

#: module name -> (the module object, its table resolved to classes). A
#: module is resolved the first time an exception is classified after it
#: was imported, and again if it is replaced.
_RESOLVED: dict[str, tuple[Any, tuple[tuple[type, str], ...]]] = {}


def _classes(name: str, names: tuple[tuple[str, str], ...]) -> tuple[tuple[type, str], ...]:
    """The table of module ``name`` as classes, or nothing if it is not loaded.
    A name the module does not define (another version) is passed over."""
    module = sys.modules.get(name)
    if module is None:
        return ()
    cached = _RESOLVED.get(name)
    if cached is not None and cached[0] is module:
        return cached[1]
    resolved = []
    for class_name, meaning in names:
        cls = getattr(module, class_name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            resolved.append((cls, meaning))
    table = tuple(resolved)
    _RESOLVED[name] = (module, table)
    return table


def _libraries(exc: BaseException) -> Outcome | None:
    """``exc`` read by the client libraries' tables: the first class it is
    an instance of, in the first loaded module that has one, says what
    happened."""
    for modules, names, chain in _LIBRARIES:
        for module in modules:
            for cls, meaning in _classes(module, names):
                if isinstance(exc, cls):
                    found = _meaning(exc, meaning, chain)
                    if found is not None:
                        return found
                    break
    return None


def _meaning(exc: BaseException, meaning: str, chain: dict[str, str]) -> Outcome | None:
    """What a table's ``meaning`` makes of ``exc``: a network kind's code, or
    ``status``, ``connect``, ``chain`` (core/src/host.rs, ``ErrorMeaning``)."""
    if meaning == "status":
        response = getattr(exc, "response", None)
        if response is not None:
            return _status_outcome(response.status_code, response.headers)
        return _status_outcome(getattr(exc, "status", None), getattr(exc, "headers", None))
    if meaning == "connect":
        # Nothing was sent: a DNS failure if one is inside, else a refusal.
        if any(isinstance(e, socket.gaierror) for e in _chain(exc)):
            return ("network", "dns_failure", None)
        return ("network", "connect_refused", None)
    if meaning == "chain":
        for inner in _chain(exc):
            kind = chain.get(type(inner).__name__)
            if kind is not None:
                return ("network", kind, None)
            found = _builtin(inner) if isinstance(inner, OSError) else None
            if found is not None:
                return found
        return ("network", "unknown", None)
    return ("network", meaning, None)


def _status_outcome(code: object, headers: Any) -> Outcome | None:
    """A status and its headers as an outcome, if ``code`` is an HTTP status."""
    if not (isinstance(code, int) and not isinstance(code, bool) and 100 <= code <= 999):
        return None
    return ("status", code, _header_items(headers))


def _urllib(exc: BaseException) -> Outcome | None:
    """``urllib.error.HTTPError`` (``code``, ``headers``), keeping its
    headers so ``Retry-After`` counts."""
    urllib_error = sys.modules.get("urllib.error")
    if urllib_error is not None and isinstance(exc, urllib_error.HTTPError):
        return _status_outcome(exc.code, exc.headers)
    return None


def _header_items(headers: object) -> list[tuple[Any, Any]] | None:
    """Header pairs from a mapping of headers (httpx's ``Headers``, with its
    repeated headers; ``requests``' and ``email.message``'s; a dict), or
    None for anything else."""
    multi_items = getattr(headers, "multi_items", None)
    if callable(multi_items):
        return list(multi_items())
    items = getattr(headers, "items", None)
    return list(items()) if callable(items) else None


def _carried_status(exc: BaseException) -> Outcome | None:
    """An exception that carries the HTTP answer it stands for, the way the
    model SDKs' errors do (openai's and anthropic's ``APIStatusError``:
    ``status_code`` and ``response``, an httpx2 response): an int
    ``status_code`` (or ``status``) in 100..599 with headers on
    ``exc.response.headers`` or ``exc.headers`` is read as that status with
    those headers, so a 429's ``Retry-After`` or ``retry-after-ms`` is the
    wait and ``x-should-retry: false`` a refusal. A 2xx is not an answer an
    exception stands for (openai's ``APIResponseValidationError``: the
    client could not read a success): ``classify_exception`` passes over it
    (``is_failure_status``), so it is the caller's own error."""
    code = getattr(exc, "status_code", None)
    if code is None:
        code = getattr(exc, "status", None)
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    if not 100 <= code <= 599:
        return None
    try:
        items = _header_items(getattr(getattr(exc, "response", None), "headers", None))
        if items is None:
            items = _header_items(getattr(exc, "headers", None))
    except Exception:  # an attribute of someone else's exception that fails to read
        return None
    if items is None:
        return None
    return ("status", code, items)


#: The attribute a transport sets on an exception that cut a response's body.
_CUT = "_stoic_body_cut"


@dataclass(frozen=True)
class BodyCut:
    """A response whose status and headers arrived, then whose body did not
    (the connection dropped, or the deadline passed, while it was read)."""

    response: Any
    status: int


def mark_cut(exc: BaseException, response: Any, status: int) -> None:
    """Says that ``exc`` cut ``response``'s body: the engine hears
    ``body_cut``, and the ``RetryError`` keeps the response. Kept on the
    exception itself, so it travels with it to whoever reports it."""
    setattr(exc, _CUT, BodyCut(response, status))


def body_cut(exc: BaseException) -> Any:
    """The response whose body ``exc`` cut, if it cut one."""
    cut = getattr(exc, _CUT, None)
    return cut.response if isinstance(cut, BodyCut) else None


def is_network(exc: BaseException) -> bool:
    """Whether ``exc`` is a network failure (a reset, a timeout), as opposed
    to the caller's own error or an undecodable body."""
    return classify_exception(exc, (), None)[0] == "network"


def _matches(exc: BaseException, on: tuple[type[BaseException], ...] | Callable[..., Any]) -> bool:
    if isinstance(on, tuple):
        return isinstance(exc, on)
    return bool(on(exc))


def _from_user(value: Any) -> Outcome | None:
    if value is None:
        return None
    if isinstance(value, Rejected):
        return ("raised", value.cls, value.detail or None)
    if isinstance(value, str):
        return ("raised", value, None)
    if isinstance(value, tuple) and len(value) == 3:
        return value
    if isinstance(value, dict) and isinstance(value.get("class"), str):
        # The JS form, {"class": "transient", "detail": "..."}, means the same.
        detail = value.get("detail")
        return ("raised", value["class"], detail if isinstance(detail, str) else None)
    if isinstance(value, dict) and value.get("kind") == "status":
        # As if the server had answered: an SDK's rate-limit error with its
        # wait, {"kind": "status", "status": 429, "headers": {"retry-after": "3"}}.
        status = value.get("status")
        if isinstance(status, int) and not isinstance(status, bool):
            return ("status", status, value.get("headers"))
    raise TypeError(
        f"a classifier returned {value!r}; expected None, a Rejected, a class code,"
        ' {"class": code} or {"kind": "status", "status": int, "headers": ...}'
    )


def classify_exception(
    exc: BaseException,
    on: tuple[type[BaseException], ...] | Callable[..., Any],
    classify: Classifier | None,
) -> Outcome:
    """What the engine should hear about ``exc``."""
    if classify is not None:
        answer = classify(exc)
        found = _from_user(answer)
        if found is not None:
            if _succeeds(found):
                raise _not_a_failure(exc, answer) from exc
            return found
    if on and _matches(exc, on):
        return ("raised", "transient", None)
    if isinstance(getattr(exc, _CUT, None), BodyCut):
        return ("network", "body_cut", None)
    if type(exc).__module__.startswith("aiohttp"):
        # Before the built-in types: aiohttp's timeouts are TimeoutError
        # subclasses, and a connect timeout (nothing sent) is not a read timeout.
        found = _libraries(exc)
        if found is not None and not _succeeds(found):
            return found
    # Built-in exceptions are classified by type and errno alone: cached, so
    # a retry does not pay for the isinstance ladder every time.
    cache_key = (type(exc), getattr(exc, "errno", None))
    cached = _BUILTIN_CACHE.get(cache_key)
    if cached is not None:
        return cached
    found = _builtin(exc)
    if found is not None:
        if len(_BUILTIN_CACHE) < 512:
            _BUILTIN_CACHE[cache_key] = found
        return found
    for mapper in (_libraries, _urllib, _carried_status):
        found = mapper(exc)
        # An exception carrying a 2xx or 3xx (aiohttp's ContentTypeError on a
        # 200, httpx's raise_for_status on a redirect) is not the server's
        # failure but the caller's own error: it falls through to that.
        if found is not None and not _succeeds(found):
            return found
    # What it wraps: the model SDKs' ``APIConnectionError`` and
    # ``APITimeoutError`` are raised from the httpx2 error, which says what
    # happened (a connect timeout, a read timeout, a reset). Only a network
    # failure counts from inside: a status wrapped by the caller's own
    # exception is the caller's to classify.
    for inner in itertools.islice(_chain(exc), 1, None):
        found = _wrapped(inner)
        if found is not None:
            return found
    return ("raised", UNKNOWN_CLASS, None)


def _succeeds(outcome: Outcome) -> bool:
    """Whether the engine would take ``outcome`` for a success: a class
    ``success``, or a status below 400."""
    kind, value, _ = outcome
    if kind == "status":
        return isinstance(value, int) and not is_failure_status(value)
    return bool(value == "success")


def _not_a_failure(exc: BaseException, answer: object) -> InputError:
    """``classify=`` said a raised exception was a success: refused, since
    the call would end with no value to return (an error is not a result)."""
    return InputError(
        f"classify= returned {answer!r} for {type(exc).__qualname__}: {exc}; a raised "
        "exception cannot be a success (there is no value to return): return "
        '"deterministic" to end the call without retrying it, "transient" to retry it, '
        "or None for the default",
        "not_a_failure",
        "classify",
    )


def _wrapped(inner: BaseException) -> Outcome | None:
    """A network failure ``inner`` stands for, read by the built-in types
    and the network libraries' own errors."""
    found = _builtin(inner)
    if found is not None:
        return found
    found = _libraries(inner)
    return found if found is not None and found[0] == "network" else None


def classify_result(verdict: object, result: object) -> ClassOutcome | None:
    """A validator's verdict on ``result``: None to accept it."""
    if verdict is None or verdict is True:
        return None
    if verdict is False:
        return ("rejected", "transient", f"rejected result: {result!r}"[:300])
    if isinstance(verdict, Rejected):
        if verdict.cls == "success":  # type: ignore[comparison-overlap]
            raise InputError(
                f"validate= returned {verdict!r}: a rejected value cannot be a success; "
                "return None or True to accept it, or reject it as transient, "
                "deterministic or ambiguous",
                "not_a_failure",
                "validate",
            )
        return ("rejected", verdict.cls, verdict.detail or f"rejected result: {result!r}"[:300])
    raise TypeError(f"validate returned {verdict!r}; expected None, a bool or a Rejected")


def exception_detail(exc: BaseException, outcome: Outcome | None = None) -> str | None:
    """The text observations quote for an exception. For an HTTP status
    it is what the server sent: the body of the response the exception
    carries, when it was read (an observation quotes it as the server's
    words, so the exception's own message, which the client wrote, is not
    passed off as them); None without one."""
    if outcome is not None and outcome[0] == "status":
        try:
            body = getattr(getattr(exc, "response", None), "text", None)
        except Exception:  # a streamed body not read
            return None
        return body if isinstance(body, str) and body else None
    text = str(exc)
    name = type(exc).__qualname__
    said = f"{name}: {text}" if text else name
    cut = getattr(exc, _CUT, None)
    return f"HTTP {cut.status}, then {said}" if isinstance(cut, BodyCut) else said


def normalize_on(
    on: type[BaseException] | Iterable[type[BaseException]] | Callable[..., Any] | None,
) -> Any:
    """``on=`` as a tuple of exception types or a predicate."""
    if on is None:
        return ()
    if isinstance(on, type) and issubclass(on, BaseException):
        return (on,)
    if isinstance(on, type):
        raise TypeError(f"on= must name exception types, not {on.__name__}")
    if callable(on) and not isinstance(on, (tuple, list)):
        return on
    if isinstance(on, (str, bytes)) or not isinstance(on, Iterable):
        raise TypeError(f"on= must be an exception type, a list of them or a predicate, not {on!r}")
    types = tuple(on)
    for item in types:
        if not (isinstance(item, type) and issubclass(item, BaseException)):
            raise TypeError(f"on= must name exception types, not {item!r}")
    return types
