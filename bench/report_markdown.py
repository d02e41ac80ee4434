"""Markdown pieces of bench/RESULTS.md: durations, ratios and tables."""

from __future__ import annotations

from collections.abc import Iterable


def ns(value: float) -> str:
    if abs(value) >= 10_000:
        return f"{value / 1000:.1f} us"
    if abs(value) >= 1000:
        return f"{value / 1000:.2f} us"
    return f"{value:.0f} ns"


def ratio(value: float) -> str:
    return f"{value:.2f}x" if value < 10 else f"{value:.1f}x"


def table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines
