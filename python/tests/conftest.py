"""Shared helpers: the vector folder and the wire -> Python naming rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import stoic

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"


def load(name: str, kind: str) -> Any:
    doc = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    assert doc["kind"] == kind, name
    for field in ("description", "source", "license"):
        assert isinstance(doc.get(field), str), f"{name} lacks {field}"
        assert doc[field], f"{name} has an empty {field}"
    return doc


def secs(ms: int | float | None) -> float | None:
    """The binding's one conversion: ``ms as f64 / 1000``."""
    return None if ms is None else float(ms) / 1000.0


def _is_time_key(key: str) -> bool:
    return key in ("at", "since", "until") or key.endswith("_at")


def py_form(value: Any) -> Any:
    """A vector's wire value in the Python spelling (independent of the
    binding's implementation, so the suite checks it)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key.endswith("_ms"):
                out[key[:-3]] = secs(item) if isinstance(item, (int, float)) else py_form(item)
            elif _is_time_key(key):
                out[key] = secs(item) if isinstance(item, (int, float)) else py_form(item)
            else:
                out[key] = py_form(item)
        return out
    if isinstance(value, list):
        return [py_form(v) for v in value]
    return value


def py_field(field: str) -> str:
    return ".".join(part[:-3] if part.endswith("_ms") else part for part in field.split("."))


@pytest.fixture
def clock() -> Any:
    with stoic.testing.virtual_time() as virtual:
        yield virtual


@pytest.fixture(scope="session")
def server() -> Any:
    from server import start

    srv = start()
    yield srv
    srv.shutdown()
    srv.server_close()


_tokens = iter(range(1_000_000))


@pytest.fixture
def token() -> str:
    """A fresh path token: each test's server counters start at zero."""
    return f"t{next(_tokens)}"
