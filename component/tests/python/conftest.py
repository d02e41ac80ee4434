"""The component suite: every shared vector file through the component in
wasmtime. `make component` builds it first."""

from __future__ import annotations

import pytest

from engine import COMPONENT, Engine


@pytest.fixture(scope="session")
def engine() -> Engine:
    assert COMPONENT.exists(), f"{COMPONENT} is missing: run `make component`"
    return Engine()
