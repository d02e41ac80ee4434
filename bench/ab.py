"""The report of ``make bench-ab`` (scripts/bench-ab.sh): stoic at a base
commit against this checkout, from alternating runs of the same harnesses.

The figure per case is a peer's ratio (tenacity / stoic in Python,
cockatiel / stoic in JS, ky / stoic for the fetch wrapper), the median over
the runs of each build. The peer is the same code in both builds' runs, so
``base ratio / new ratio`` is stoic's overhead now relative to the base's,
with the machine's drift between runs cancelled: below 1 is faster.
"""

from __future__ import annotations

import gzip
import json
import statistics
import sys
from pathlib import Path
from typing import Any

#: (language, peer the ratio is taken against)
PEERS = {"py": "tenacity", "js": "cockatiel"}


def _runs(results: Path, lang: str, side: str) -> list[dict[str, Any]]:
    files = sorted(results.glob(f"{lang}-{side}-*.json"))
    if not files:
        sys.exit(f"no {lang}-{side}-*.json in {results}: run scripts/bench-ab.sh")
    return [json.loads(f.read_text(encoding="utf-8")) for f in files]


def _ratios(runs: list[dict[str, Any]], lang: str) -> dict[str, float]:
    """Median over runs of each case's peer / stoic ratio."""
    peer = PEERS[lang]
    per_case: dict[str, list[float]] = {}
    for run in runs:
        for case, summary in run["cases"].items():
            ratio = summary["ratio_median"].get(peer)
            if isinstance(ratio, (int, float)):
                per_case.setdefault(case, []).append(float(ratio))
        fetch = run.get("fetch")
        if lang == "js" and isinstance(fetch, dict):
            ky = fetch["overhead"]["ratio_median"].get("ky")
            if isinstance(ky, (int, float)):
                per_case.setdefault("createFetch GET (ky / stoic)", []).append(float(ky))
    return {case: statistics.median(values) for case, values in per_case.items()}


def _sizes(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        f.name: (len(data := f.read_bytes()), len(gzip.compress(data, 9)))
        for f in sorted(folder.glob("*.wasm"))
    }


def main() -> None:
    results, rev = Path(sys.argv[1]), sys.argv[2]
    base_wasm, new_wasm = Path(sys.argv[3]), Path(sys.argv[4])
    print(f"# stoic at {rev[:12]} (base) against this checkout (new)")
    print("A ratio is the peer's overhead over stoic's (higher: stoic cheaper).")
    print("Change: stoic's overhead new / base - 1 (negative: faster).\n")
    print("| case | base | new | change |")
    print("| --- | --- | --- | --- |")
    worst = 0.0
    for lang, label in (("py", "Python"), ("js", "JS")):
        base = _ratios(_runs(results, lang, "base"), lang)
        new = _ratios(_runs(results, lang, "new"), lang)
        for case in base.keys() & new.keys():
            change = base[case] / new[case] - 1
            if "decision" not in case:  # a difference of two overheads: noisy
                worst = max(worst, change)
            print(
                f"| {label}: {case} ({PEERS[lang] if 'ky' not in case else 'ky'})"
                f" | {base[case]:.2f}x | {new[case]:.2f}x | {change:+.1%} |"
            )
    print(f"\nlargest slowdown outside the retry-decision rows: {worst:+.1%}")
    print("\n| module | base bytes (gzip) | new bytes (gzip) |")
    print("| --- | --- | --- |")
    base_sizes, new_sizes = _sizes(base_wasm), _sizes(new_wasm)
    for name in sorted(base_sizes.keys() | new_sizes.keys()):
        b, n = base_sizes.get(name, (0, 0)), new_sizes.get(name, (0, 0))
        print(f"| {name} | {b[0]:,} ({b[1]:,}) | {n[0]:,} ({n[1]:,}) |")


if __name__ == "__main__":
    main()
