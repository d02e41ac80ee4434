"""What every HTTP client integration shares (httpx and httpx2, requests):
the plan of a request (operation, scope, whether it is safe to repeat, its
key), judging a response, and which bodies are read inside the attempt.

The decisions are the core's (``http_plan``, ``wants_excerpt``,
``validates_status``, the policy's ``on_status``); this base only reads
them from the client's request and response objects through the few
accessors each integration supplies, so every client library gets the same
semantics: one ``Idempotency-Key`` per call, the safety rule for requests
that may have been applied, server hints, observations with an excerpt.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, cast

from . import _run_context
from ._classify import classify_result
from ._clock import Clock
from ._errors import ConfigError
from ._runtime import Hook, Settings, report, tell, wrong_type
from ._stoic import (
    NESTED_RETRY_HEADER,
    Call,
    HedgedCall,
    HedgingConfig,
    Policy,
    http_plan,
    is_event_stream,
    key_header_value,
    parse_key_header,
    random_key,
    validates_status,
    wants_excerpt,
)
from ._tracing import mark_resend

#: What a transport's exception says when the call's total deadline cut a
#: body that was still arriving.
LATE_BODY = "the response's body was still arriving when the call's total deadline passed"


class HttpCalls:
    """The shared half of an HTTP integration: plans calls and judges
    responses. Subclasses say how to read their client's responses
    (``_status_of``, ``_headers_of``, ``_text_of``, ``_attach``)."""

    def __init__(
        self,
        *,
        policy: Policy | None,
        validate: Callable[[Any], object] | None,
        key_header: str,
        key_form: str,
        keys: bool,
        server_deduplicates: bool,
        reraise: bool,
        clock: Clock | None,
        records: Any,
        config: dict[str, Any],
        discard: Callable[[Any], object] | None,
        adiscard: Callable[[Any], Awaitable[object]] | None,
        limit: Callable[[Call, tuple[Any, ...]], None],
        on_retry: Hook | None = None,
        on_give_up: Hook | None = None,
        **flags: bool,
    ) -> None:
        check_options(
            keys=keys, server_deduplicates=server_deduplicates, key_header=key_header, **flags
        )
        if key_form not in ("bare", "quoted"):
            raise TypeError(f'key_form= must be "bare" or "quoted", not {key_form!r}')
        self._settings = Settings.build(
            policy=policy,
            config=config,
            records=records,
            operation="",
            scope="",
            idempotent=None,
            key=None,
            on=(),
            classify=None,
            validate=validate,
            reraise=reraise,
            clock=clock,
            caller=type(self).__name__,
            signature=type(self).__init__,
            judge=self._judge,
            discard=discard,
            adiscard=adiscard,
            # The client enforces the per-attempt timeouts itself (``limit``);
            # a resend is marked on the caller's span when traced.
            limit=self._before_attempt(limit),
            preempt=False,
            on_retry=on_retry,
            on_give_up=on_give_up,
        )
        self._key_header = key_header
        self._key_form = key_form
        self._keys = keys
        self._server_deduplicates = server_deduplicates
        self._excerpt = int(self._settings.policy.config["observation"]["max_excerpt_chars"])

    def _before_attempt(
        self, limit: Callable[[Call, tuple[Any, ...]], None]
    ) -> Callable[[Call, tuple[Any, ...]], None]:
        def before(call: Call, args: tuple[Any, ...]) -> None:
            limit(call, args)
            mark_resend(self._settings.policy, call)

        return before

    @property
    def policy(self) -> Policy:
        """The policy whose breakers and budgets this integration uses."""
        return self._settings.policy

    def _plan(
        self,
        clock: Clock,
        method: str,
        host: str,
        path: str,
        headers: MutableMapping[str, Any],
    ) -> Call:
        """Plans the request and starts and admits its call (``_planned``)."""
        return cast(Call, self._planned(clock, method, host, path, headers, None))

    def _planned(
        self,
        clock: Clock,
        method: str,
        host: str,
        path: str,
        headers: MutableMapping[str, Any],
        hedging: HedgingConfig | None,
    ) -> Call | HedgedCall:
        """Plans the request (operation, scope, safety, key: the core's
        HTTP plan), sets the key header when the plan makes one, and starts
        and admits its call; with ``hedging``, starts it hedged instead when
        the engine finds it safe to repeat."""
        existing = headers.get(self._key_header)
        if isinstance(existing, bytes):  # requests keeps header values as given
            existing = existing.decode("latin-1")
        key = parse_key_header(existing) if existing is not None else None
        # Inside a run's tool call, its key is the automatic key (sent, not
        # by itself trusted) and its retries are the run's.
        tool_call = _run_context.current.get()
        operation, scope, safe, auto_key, trust_key = http_plan(
            method,
            host,
            path,
            caller_key=key,
            server_deduplicates=self._server_deduplicates
            or (tool_call is not None and tool_call.server_deduplicates),
            auto_keys=self._keys,
        )
        if tool_call is not None and tool_call.idempotent:
            safe = True  # the caller declared the whole tool call safe to repeat
        if auto_key:
            key = tool_call.next_write_key() if tool_call is not None else random_key()
            headers[self._key_header] = key_header_value(key, self._key_form)
        # Inside a run's tool call the run's quota must bound every resend,
        # which a hedged call cannot join: such a request is not hedged.
        if hedging is not None and tool_call is None:
            try:
                return self._settings.policy.start_hedged(
                    clock.monotonic(),
                    operation,
                    scope=scope,
                    idempotent=safe,
                    key=key if trust_key else None,
                    hedging=hedging,
                )
            except ConfigError as error:
                if error.code != "not_idempotent":
                    raise
                # Not safe to repeat: sent once, as a plain call, never hedged.
        call = self._settings.policy.start(
            clock.monotonic(),
            operation,
            scope=scope,
            idempotent=safe,
            key=key if trust_key else None,
            overrides=self._settings.call_overrides(),
        )
        if tool_call is not None:
            call.join_run(tool_call.quota)
        # A layer above (a model SDK) that retried this request itself says
        # so: the multiplication becomes a `nested_retries` event.
        marked = headers.get(NESTED_RETRY_HEADER)
        if marked is not None:
            if isinstance(marked, bytes):
                marked = marked.decode("latin-1")
            call.note_retries_above(clock.monotonic(), str(marked))
        call.admit(clock.monotonic())
        return call

    def _needs_body(self, status: int, stream: bool, content_type: str | None = None) -> bool:
        """Whether a response's body is read inside its attempt: always,
        unless streaming; when streaming, still for the validator and for
        the excerpt an error observation quotes. A stream of events
        (``text/event-stream``, the model APIs' streamed completions) is
        streaming whatever was asked: buffering it would hold the first
        token until the last, and cap the completion by the read timeout."""
        if content_type and is_event_stream(content_type):
            return wants_excerpt(status)
        if not stream:
            return True
        return wants_excerpt(status) or (
            self._settings.validate is not None and validates_status(status)
        )

    def _judge(self, call: Call, clock: Clock, _settings: Settings, response: Any) -> float | None:
        """Reports a response; the delay, or None when the call is over
        (the response is returned, with the decision when it failed)."""
        status = self._status_of(response)
        validate = self._settings.validate
        verdict = (
            classify_result(validate(response), response)
            if validate is not None and validates_status(status)
            else None
        )
        if verdict is not None:
            delay = report(call, clock, verdict, verdict[2])
        else:
            # Read inside the attempt whenever an excerpt is wanted.
            detail = self._text_of(response)[: self._excerpt] if wants_excerpt(status) else None
            # Headers are gathered only for a status the policy may retry.
            reads = self._settings.policy.reads_hints(status)
            delay = call.on_status(
                clock.monotonic(),
                status,
                self._headers_of(response) if reads else None,
                detail=detail,
                wall_now=clock.wall(),
            )
        if delay is None:
            # The decision of a call that failed; None on a success, so the
            # attribute is always there to read.
            failed = not call.succeeded
            self._attach(response, call.decision if failed else None)
            if failed:
                tell("on_give_up", self._settings.on_give_up, call, None, response)
        return delay

    def _judge_copy(
        self, call: HedgedCall, clock: Clock, copy: int, response: Any
    ) -> dict[str, Any]:
        """Reports copy ``copy``'s response of a hedged call (as ``_judge``
        does an attempt's); the engine's next step."""
        status = self._status_of(response)
        validate = self._settings.validate
        verdict = (
            classify_result(validate(response), response)
            if validate is not None and validates_status(status)
            else None
        )
        now = clock.monotonic()
        if verdict is not None:
            step = call.on_rejected(now, copy, verdict[1], verdict[2])
        else:
            detail = self._text_of(response)[: self._excerpt] if wants_excerpt(status) else None
            reads = self._settings.policy.reads_hints(status)
            headers = self._headers_of(response) if reads else None
            step = call.on_status(now, copy, status, headers, detail=detail, wall_now=clock.wall())
        if step["kind"] == "give_up":
            # This response is the last one: returned with the decision.
            self._attach(response, call.decision)
            tell("on_give_up", self._settings.on_give_up, call, None, response)  # type: ignore[arg-type]
        elif step["kind"] == "done":
            self._attach(response, None)
        return step

    # What each client library's response looks like.

    def _status_of(self, response: Any) -> int:
        raise NotImplementedError

    def _headers_of(self, response: Any) -> list[tuple[str, str]]:
        raise NotImplementedError

    def _text_of(self, response: Any) -> str:
        raise NotImplementedError

    def _attach(self, response: Any, decision: dict[str, Any] | None) -> None:
        """Keeps the engine's final decision with a failed response."""
        raise NotImplementedError


def check_options(**given: Any) -> None:
    """Refuses a wrong option when the integration is built, naming it."""
    for name, value in given.items():
        expected = str if name == "key_header" else bool
        if not isinstance(value, expected):
            raise wrong_type(name, f"a {expected.__name__}", value)


def deadline_of(call: Call) -> float | None:
    """When ``call``'s total deadline passes, on ``time.monotonic()`` (None:
    it has none): what reading a body is bounded by."""
    remaining = call.remaining
    return None if remaining is None else time.monotonic() + remaining


def time_left(deadline: float) -> float:
    """The time left before ``deadline`` (``time.monotonic()``), at least a
    millisecond: a timeout of 0 would mean "do not wait" to a socket."""
    return max(deadline - time.monotonic(), 0.001)


def tighter(current: float | None, limit: float | None) -> float | None:
    """The stricter of a caller's timeout and the engine's (None: none)."""
    if limit is None:
        return current
    return limit if current is None else min(current, limit)
