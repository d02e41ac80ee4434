"""Hooks and sinks never fail a call.

A call's result is its function's (or the engine's decision), whatever a
hook does. ``on_retry=``, ``on_give_up=``, a policy's ``records=`` sink,
a ``policy.listen`` listener and a fleet's ``on_error`` only watch: one
that raises is reported once per hook object, as a ``HookWarning``
through ``warnings``, and the call goes on as if it had returned. Only an
``Exception`` is caught: an interrupt or a cancellation a hook raises
still ends the call.

``validate=`` and ``classify=`` are not hooks: they judge the attempt, and
the call cannot go on without their answer, so their exceptions reach the
caller as themselves.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import warnings
import weakref
from typing import Any

__all__ = ["HookWarning", "hook_failed", "hook_returned"]


class HookWarning(UserWarning):
    """A hook or sink failed; the call went on without it. ``hook`` is the
    hook's name as you gave it (``on_retry=``, ``records=``), ``error`` what
    it raised (None when it returned something it should not have)."""

    def __init__(self, message: str, hook: str = "", error: BaseException | None = None) -> None:
        super().__init__(message)
        self.hook = hook
        self.error = error


# The hooks already reported: weakly where the hook allows it (functions,
# bound methods, loggers), by id otherwise (a builtin such as ``print``,
# which lives as long as the process anyway).
_reported: weakref.WeakSet[Any] = weakref.WeakSet()
_reported_ids: set[int] = set()
_lock = threading.Lock()


def _first_time(hook: object) -> bool:
    """Whether ``hook`` is reported now for the first time."""
    with _lock:
        try:
            if hook in _reported:
                return False
            _reported.add(hook)
        except TypeError:  # not weakly referenceable
            if id(hook) in _reported_ids:
                return False
            _reported_ids.add(id(hook))
    return True


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _outside() -> int:
    """The ``stacklevel`` of the first frame outside stoic, so that the
    warning names the caller's line, not stoic's."""
    level, frame = 2, sys._getframe(2)  # 2: the caller of the reporting function
    while frame.f_code.co_filename.startswith(_PACKAGE) and frame.f_back is not None:
        level, frame = level + 1, frame.f_back
    return level


def _describe(name: str, hook: object) -> str:
    """The hook as the caller gave it: ``on_retry=log_retry``,
    ``policy.listen(Exporter.on_event)``."""
    called = str(getattr(hook, "__qualname__", None) or type(hook).__qualname__)
    return f"{name}{called}" if name.endswith("=") else f"{name}({called})"


def hook_failed(name: str, hook: object, error: Exception) -> None:
    """Reports that ``hook`` (given as ``name``) raised ``error``: once per
    hook; the caller goes on as if it had returned."""
    if not _first_time(hook):
        return
    message = (
        f"stoic: {_describe(name, hook)} raised {type(error).__name__}: {error}; the call "
        "went on without it (hooks and sinks never change a call's result; each is "
        "reported once)"
    )
    warnings.warn(HookWarning(message, name, error), stacklevel=_outside())


def hook_returned(name: str, hook: object, value: object) -> None:
    """Drops what a plain hook should not have returned: a coroutine (an
    ``async`` lambda) is closed, never run, and reported once."""
    if not inspect.isawaitable(value):
        return
    close = getattr(value, "close", None)
    if callable(close):
        close()  # never awaited: closed, so Python does not warn a second time
    if _first_time(hook):
        warnings.warn(
            HookWarning(
                f"stoic: {_describe(name, hook)} returned an awaitable, which was not "
                "awaited: hooks run between a call's steps and must be plain functions",
                name,
            ),
            stacklevel=_outside(),
        )
