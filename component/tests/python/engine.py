"""The stoic component loaded in wasmtime, as a test host would use it.

`Engine` instantiates `target/component/stoic.wasm` (built by `make
component`) with an empty linker: the component imports nothing, so a
linker with nothing in it is all it needs. `call` looks a function up by
interface and name; `plain` turns the WIT values wasmtime returns (records,
variants, lists) into the dicts and lists the vector files are written in:
kebab-case names become snake_case, and a variant becomes its payload's
fields with the case name under `kind`, as the core's JSON does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wasmtime import Engine as WasmEngine
from wasmtime import Store
from wasmtime.component import Component, Func, Linker, Record, ResultType, Variant

ROOT = Path(__file__).resolve().parents[3]
COMPONENT = ROOT / "target/component/stoic.wasm"
VECTORS = ROOT / "tests/vectors"
PACKAGE = "stoic:engine/{}@0.1.0"


class ComponentError(Exception):
    """An `err` the component returned: `plain` form of the error record."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error


def snake(name: str) -> str:
    return name.replace("-", "_")


def plain(value: Any) -> Any:
    """A WIT value as the vectors spell it."""
    if isinstance(value, Record):
        return {snake(k): plain(v) for k, v in vars(value).items()}
    if isinstance(value, Variant):
        payload = plain(value.payload)
        if isinstance(payload, dict):
            return {"kind": snake(value.tag), **payload}
        return {"kind": snake(value.tag), "value": payload}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def record(**fields: Any) -> Record:
    """A WIT record from keyword arguments (snake_case becomes kebab-case)."""
    out = Record()
    for key, value in fields.items():
        setattr(out, key.replace("_", "-"), value)
    return out


class Engine:
    """One instance of the component in its own store."""

    def __init__(self, path: Path = COMPONENT) -> None:
        self.engine = WasmEngine()
        self.store = Store(self.engine)
        self.component = Component.from_file(self.engine, str(path))
        self.instance = Linker(self.engine).instantiate(self.store, self.component)
        self.funcs: dict[tuple[str, str], Func] = {}

    def func(self, interface: str, name: str) -> Func:
        key = (interface, name)
        if key not in self.funcs:
            store, instance = self.store, self.instance
            outer = instance.get_export_index(store, PACKAGE.format(interface))
            index = instance.get_export_index(store, name, outer)
            if outer is None or index is None:
                raise LookupError(f"{interface}#{name} is not exported")
            found = instance.get_func(store, index)
            assert found is not None
            self.funcs[key] = found
        return self.funcs[key]

    def call(self, interface: str, name: str, *args: Any) -> Any:
        """Calls a function; an `err` result raises `ComponentError`."""
        func = self.func(interface, name)
        result_type = func.type(self.store).result
        value = func(self.store, *args)
        if isinstance(result_type, ResultType):
            return unwrap(result_type, value)
        return value


def unwrap(result_type: ResultType, value: Any) -> Any:
    """The `ok` value of a result, raising on `err`.

    wasmtime-py returns a result untagged when its two types cannot be
    confused (a string or a resource against an error record) and as a
    `Variant` tagged `ok`/`err` otherwise."""
    if isinstance(value, Variant) and value.tag in ("ok", "err"):
        if value.tag == "err":
            raise ComponentError(plain(value.payload))
        return value.payload
    err_is_record = result_type.err is not None
    if err_is_record and isinstance(value, Record) and hasattr(value, "code"):
        ok = result_type.ok
        if ok is None or type(ok).__name__ != "RecordType":
            raise ComponentError(plain(value))
    return value


def load(name: str, kind: str) -> Any:
    doc = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    assert doc["kind"] == kind, name
    return doc


def vector_docs() -> list[tuple[str, Any]]:
    return [
        (p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(VECTORS.glob("*.json"))
    ]
