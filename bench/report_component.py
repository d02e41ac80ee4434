"""The WebAssembly component's section of bench/RESULTS.md, from
scripts/component-bench.sh's JSON (bench/component/)."""

from __future__ import annotations

from typing import Any

from report_markdown import ns, ratio, table

Json = dict[str, Any]


def component_section(component: Json | None) -> list[str]:
    """The WebAssembly component's decision cost beside the native paths."""
    if not component:
        return []
    py, js = component["python"], component["js"]
    rows = []
    for host, native, native_name, other, other_name in (
        (
            "Python",
            py["native"],
            "native extension (pyo3)",
            py["wasmtime"],
            "component, wasmtime-py",
        ),
        (
            "Node",
            js["bindgen"],
            "npm package (wasm-bindgen)",
            js["jco"],
            "component, jco transpile",
        ),
    ):
        for name, m in ((native_name, native), (other_name, other)):
            rows.append(
                [
                    host,
                    name,
                    ns(m["success_ns"]),
                    ns(m["retry_decision_ns"]),
                    ratio(m["success_ns"] / native["success_ns"]),
                ]
            )
    return [
        "",
        "## The WebAssembly component",
        "",
        f"`target/component/stoic.wasm`: {component['component_bytes']:,} bytes,"
        f" {component['component_gzip']:,} gzipped, no imports. The low-level loop on a policy"
        " with the defaults (start, before-attempt, on-outcome): a call that succeeds at once,"
        " and one retry decision (a call failing once minus one that succeeds), CPU time, median"
        f" of {py['rounds']} alternating rounds (bench/component/). The component pays for its"
        " host's value conversions: wasmtime-py reflects over each function's WIT type on every"
        " call in Python.",
        "",
        *table(["host", "path", "success", "one retry decision", "success / native"], rows),
    ]
