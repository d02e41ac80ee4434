"""The fleet-attached hot path's section of bench/RESULTS.md: what a call
pays when its policy is attached to a fleet (``stoic.redis`` /
``stoic/redis``), the engine alone, beside the same policy unattached."""

from __future__ import annotations

from typing import Any

from report_markdown import ns, table

Json = dict[str, Any]


def fleet_section(py: Json | None, engine: Json | None) -> list[str]:
    """One row per language that measured both: success and one retry
    decision, without and with a fleet attached."""
    rows = []
    attached = (py or {}).get("fleet_attached_ns")
    if attached:
        plain, fleet = attached["plain"], attached["fleet"]
        rows.append(
            [
                "Python (the native extension, `bench/python`)",
                ns(plain["success"]),
                ns(fleet["success"]),
                ns(plain["retry_decision"]),
                ns(fleet["retry_decision"]),
            ]
        )
    if engine and "hot_path_fleet" in engine:
        plain, fleet = engine["hot_path"], engine["hot_path_fleet"]
        rows.append(
            [
                "JavaScript (the wasm module's numeric crossings, `bench/js/engine.mjs`)",
                ns(plain["success_ns"]),
                ns(fleet["success_ns"]),
                ns(plain["retry_decision_ns"]),
                ns(fleet["retry_decision_ns"]),
            ]
        )
    if not rows:
        return []
    return [
        "",
        "## A fleet attached: the hot path",
        "",
        "The engine alone with its documented defaults (breaker, ratio budget, metrics), on a"
        " policy attached to a fleet (one export, no store: what a call pays for the counting;"
        " the exchange itself runs in the background) and on one that is not, in the same"
        " process, CPU time, medians over rounds.",
        "",
        *table(
            [
                "engine",
                "success",
                "success, fleet attached",
                "one retry decision",
                "one retry decision, fleet attached",
            ],
            rows,
        ),
    ]
