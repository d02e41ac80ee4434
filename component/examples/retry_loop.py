"""The stoic component in Python through wasmtime: a retry loop the host
drives. The component decides; this script keeps the clock, sleeps and
"calls the server" (a stand-in that answers 503 twice, then 200).

    python component/examples/retry_loop.py [target/component/stoic.wasm]
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from wasmtime import Engine, Store
from wasmtime.component import Component, Func, Linker, Record, Variant

path = sys.argv[1] if len(sys.argv) > 1 else "target/component/stoic.wasm"
engine = Engine()
store = Store(engine)
# Nothing to link: the component imports nothing.
instance = Linker(engine).instantiate(store, Component.from_file(engine, path))


def func(interface: str, name: str) -> Func:
    """An exported function: `name` inside the interface's instance."""
    outer = instance.get_export_index(store, f"stoic:engine/{interface}@0.1.0")
    index = instance.get_export_index(store, name, outer)
    found = None if index is None else instance.get_func(store, index)
    if found is None:
        raise LookupError(f"{interface}#{name}")
    return found


def ok(value: Any) -> Any:
    """A result's `ok` value; raises on `err`. wasmtime-py hands a result
    back untagged when its two cases differ in Python type (a resource or a
    variant against an error record): the error record *is* the value. When
    both cases are records it is a `Variant` tagged `ok` or `err`."""
    if isinstance(value, Variant) and value.tag in ("ok", "err"):
        if value.tag == "err":
            raise ValueError(vars(value.payload))
        return value.payload
    if isinstance(value, Record) and hasattr(value, "code") and hasattr(value, "message"):
        raise ValueError(f"{value.code}: {value.message}")
    return value


def record(**fields: object) -> Record:
    r = Record()
    for key, value in fields.items():
        setattr(r, key.replace("_", "-"), value)
    return r


create = func("policy", "[static]policy.create")
start = func("policy", "[method]policy.start")
before_attempt = func("policy", "[method]policy.before-attempt")
on_outcome = func("policy", "[method]policy.on-outcome")

# The host draws the jitter seed; the config is the core's JSON.
seed = int.from_bytes(os.urandom(6), "big")
config = {"seed": seed, "backoff": {"strategy": "full_jitter", "base_ms": 20, "cap_ms": 200}}
policy = ok(create(store, json.dumps(config)))


def now_ms() -> int:
    return time.monotonic_ns() // 1_000_000


answers = iter([503, 503, 200])
spec = record(
    operation="get_order",
    scope="api.example.com",
    idempotent=None,
    method="GET",
    idempotency_key=None,
    max_attempts=None,
    backoff_json=None,
)
call = ok(start(store, policy, now_ms(), spec))
while True:
    admission = ok(before_attempt(store, policy, now_ms(), call))
    if admission.tag == "reject":
        print("stopped:", admission.payload.reason)
        break
    status = next(answers)  # the host's HTTP request goes here
    kind = Variant("success") if status < 300 else Variant("status", status)
    outcome = record(kind=kind, headers=[], wall_now_unix_ms=None, detail=None)
    decision = ok(on_outcome(store, policy, now_ms(), call, outcome))
    if decision.tag == "retry":
        delay = getattr(decision.payload, "delay-ms")
        print(f"attempt {decision.payload.attempt}: {status}, retry in {delay} ms")
        time.sleep(delay / 1000)
    elif decision.tag == "done":
        print(f"done after {decision.payload.attempts} attempts")
        break
    else:
        print("gave up:", decision.payload.reason, "-", decision.payload.observation)
        break
