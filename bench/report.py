"""Collects the results of ``make bench`` and writes bench/RESULTS.md.

Standard library only. Subcommands (``scripts/bench.sh`` calls them in order):

- ``start DIR``: note the start time and the load average (DIR/run.json);
- ``rust DIR``: read criterion's estimates of this run into DIR/rust.json;
- ``end DIR``: note the end time and the load average;
- ``write DIR OUT``: write the Markdown report OUT from DIR/*.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from report_component import component_section
from report_fleet import fleet_section
from report_markdown import ns, ratio, table

ROOT = Path(__file__).resolve().parent.parent
Json = dict[str, Any]


def load(path: Path) -> Json | None:
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as f:
        data: Json = json.load(f)
    return data


def save(path: Path, data: Json) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text(encoding="utf-8").strip()
    except OSError:
        return "unknown"


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def cmd_start(out: Path) -> None:
    save(out / "run.json", {"start": now(), "start_epoch": time.time(), "loadavg_start": loadavg()})


def cmd_end(out: Path) -> None:
    run = load(out / "run.json") or {}
    run["end"] = now()
    run["loadavg_end"] = loadavg()
    if "start_epoch" in run:
        run["elapsed_s"] = round(time.time() - float(run["start_epoch"]))
    run["knobs"] = {
        k: os.environ[k]
        for k in ("ROUNDS", "N", "CRITERION_SECONDS", "BENCH_CLOCK")
        if k in os.environ
    }
    save(out / "run.json", run)


def cmd_rust(out: Path, criterion: Path) -> None:
    """Every criterion benchmark whose estimates were written during this run."""
    run = load(out / "run.json") or {}
    since = float(run.get("start_epoch", 0.0))
    cases: dict[str, Json] = {}
    for estimates in sorted(criterion.glob("**/new/estimates.json")):
        if estimates.stat().st_mtime < since:
            continue
        meta = load(estimates.parent / "benchmark.json") or {}
        name = str(meta.get("full_id") or estimates.parent.parent.name)
        est = load(estimates) or {}
        cases[name] = {
            key: {
                "point_ns": est[key]["point_estimate"],
                "lower_ns": est[key]["confidence_interval"]["lower_bound"],
                "upper_ns": est[key]["confidence_interval"]["upper_bound"],
            }
            for key in ("median", "slope", "mean")
            if est.get(key)
        }
    save(out / "rust.json", {"cases": cases})


# ---------------------------------------------------------------- report


def command_output(*argv: str) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip()


def machine() -> list[str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        meminfo = Path("/proc/meminfo").read_text(encoding="utf-8")
        found = re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.MULTILINE)
        if found:
            mem = f"{int(found.group(1)) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return [
        f"CPU: {cpu}",
        f"cores (nproc): {os.cpu_count()}",
        f"memory: {mem}",
        f"OS: {platform.system()} {platform.release()} ({platform.machine()})",
    ]


def stoic_version() -> str:
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    found = re.search(r'^\[workspace\.package\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
    return found.group(1) if found else "unknown"


def clock_text(data: Json) -> str:
    if data.get("clock", "wall") == "cpu":
        return "timed in the process's CPU time (so other processes' load is not counted)"
    return "timed in wall-clock time"


def case_tables(data: Json) -> list[str]:
    """Per case: stoic and each peer's median, then the ratios."""
    libs = list(next(iter(data["cases"].values()))["median_ns"])
    peers = libs[1:]
    header = [
        "case",
        *[f"{lib} (median)" for lib in libs],
        *[f"{p} / stoic" for p in peers],
    ]
    rows = []
    for name, case in data["cases"].items():
        rows.append(
            [
                name,
                *[ns(case["median_ns"][lib]) for lib in libs],
                *[
                    f"**{ratio(case['ratio_median'][p])}** ({ratio(case['ratio_of_medians'][p])})"
                    for p in peers
                ],
            ]
        )
    return table(header, rows)


#: The headline ratios of a report: {(language, case, peer): ratio text}.
Headline = dict[tuple[str, str, str], str]


def previous_headline(path: Path) -> tuple[str | None, Headline]:
    """The date and the headline ratios of the RESULTS.md about to be
    replaced, read from its Markdown (a peer's column is keyed by its name,
    so a new peer version still lines up); nothing when there is none."""
    if not path.is_file():
        return None, {}
    date: str | None = None
    cells: Headline = {}
    lang, in_headline = "", False
    header: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if date is None and line.startswith("- date: "):
            date = line.removeprefix("- date: ").split(" to ")[0]
        if line.startswith("## "):
            in_headline = line.startswith("## Headline")
            continue
        if not in_headline:
            continue
        if not line.startswith("|"):
            header = []
            if line.endswith(":"):
                lang = line[:-1]
            continue
        columns = [c.strip() for c in line.strip().strip("|").split("|")]
        if not header:
            header = columns
        elif not set(columns[0]) <= {"-", " "}:
            for column, cell in zip(header[1:], columns[1:], strict=False):
                bold = re.findall(r"\*\*([^*]+)\*\*", cell)
                cells[(lang, columns[0], column.split(" ")[0])] = bold[-1] if bold else cell
    return date, cells


def headline(lang: str, data: Json, previous: Headline) -> list[str]:
    """One row per case, one column per peer: the median per-round ratio,
    after the previous report's when it had one (``previous -> now``)."""
    peers = list(next(iter(data["cases"].values()))["ratio_median"])
    header = ["case", *[f"{p} {data['versions'].get(p, '?')} / stoic" for p in peers]]
    rows = []
    for name, case in data["cases"].items():
        row = [name]
        for p in peers:
            now = ratio(case["ratio_median"][p])
            before = previous.get((lang, name, p))
            row.append(f"{before} → **{now}**" if before else f"**{now}**")
            print(f"{lang}, {name}, {p} / stoic: {before or 'none'} -> {now}")
        rows.append(row)
    return [f"{lang}:", "", *table(header, rows), ""]


def fetch_section(js: Json) -> list[str]:
    """The fetch wrappers: each one's time over a bare fetch, and peer / stoic."""
    f = js.get("fetch")
    if not f:
        return []
    over = f["overhead"]
    peers = list(over["ratio_median"])
    rows = [
        [
            lib,
            ns(f["per_request_median_ns"][lib]),
            ns(over["median_ns"][lib]),
            ""
            if lib == "stoic"
            else f"**{ratio(over['ratio_median'][lib])}** ({ratio(over['ratio_of_medians'][lib])})",
        ]
        for lib in ["stoic", *peers]
    ]
    return [
        "### Fetch wrapper",
        "",
        f"{f['rounds']} paired rounds of {f['n']:,} GETs that succeed first time, against a Node"
        " `http` server on 127.0.0.1 in another process (so the client's CPU time is the"
        " client's alone); every contender reads the body. stoic: `createFetch` with a"
        " policy (breaker, budget, attempt timeout); ky: `ky.create({ retry: { limit: 4 } })`,"
        " its default 10 s timeout. A bare `fetch` of the same URL took"
        f" {ns(f['bare_fetch_median_ns'])} per request; overhead is a wrapper's time minus that,"
        " in the same round.",
        "",
        *table(
            ["contender", "per request (median)", "over a bare fetch", "peer / stoic"],
            rows,
        ),
        "",
    ]


def size_table(js: Json) -> list[str]:
    size = js["size"]
    stoic = size["stoic"]
    rows = [
        [
            f"stoic {js['versions'].get('stoic', '?')}",
            f"{stoic['entry_min']:,}",
            f"{stoic['entry_gzip']:,}",
            f"{stoic['wasm_gzip']:,} ({stoic['wasm_raw']:,} raw)",
            f"**{stoic['total_gzip']:,}**",
            f"{stoic['retry_only_total_gzip']:,}",
            "1",
        ]
    ]
    for peer, s in size.items():
        if peer == "stoic":
            continue
        rows.append(
            [
                f"{peer} {js['versions'].get(peer, '?')}",
                f"{s['entry_min']:,}",
                f"{s['entry_gzip']:,}",
                "",
                f"**{s['entry_gzip']:,}**",
                f"{s['retry_only_gzip']:,}",
                f"{stoic['total_gzip'] / s['entry_gzip']:.0f}x",
            ]
        )
    header = [
        "package",
        "entry, minified",
        "entry, gzip",
        "wasm, gzip",
        "total, gzip",
        "retry only, gzip (stoic: with the wasm)",
        "stoic total / this",
    ]
    return table(header, rows)


def toolchain_section(sizes: Json | None) -> list[str]:
    """What each toolchain's build of the same app ships (npm/test/toolchains.test.js)."""
    if not sizes:
        return []
    rows = [[tool, f"{size:,}"] for tool, size in sizes.items()]
    return [
        "",
        "### What each toolchain ships",
        "",
        "The same app (`npm/toolchains/app`: `createFetch` + `retry`), built from the packed"
        " tarball by each tool with its production defaults (Vite, webpack, Parcel, esbuild,"
        " Rollup, wrangler); gzip -9 of every .js and .wasm"
        " file the build emitted (the inline builds carry the module as base64).",
        "",
        *table(["build", "gzip bytes"], rows),
    ]


def coldstart_section(cold: Json | None) -> list[str]:
    """Import + first decision in a fresh process or browser context (bench/js/coldstart.mjs)."""
    if not cold:
        return []
    rows = []
    for where, libs in cold["median_ms"].items():
        base = libs.get("p-retry", {}).get("total")
        for lib, m in libs.items():
            vs = f"{m['total'] / base:.1f}x" if base else ""
            rows.append(
                [where, lib, f"{m['import']:.1f}", f"{m['first']:.1f}", f"**{m['total']:.1f}**", vs]
            )
    where = f"Node {cold['node']}" + (f", Chromium {cold['chromium']}" if cold["chromium"] else "")
    return [
        "",
        "### Cold start",
        "",
        f"Import + the first `retry()` of a function that succeeds, in a fresh Node process and"
        f" a fresh headless Chromium context (no caches), median of {cold['rounds']} interleaved"
        f" rounds ({where}). stoic: its node and browser entries (the browser one fetches and"
        " compiles the .wasm); the peers bundled into one file for the browser.",
        "",
        *table(
            ["runtime", "library", "import ms", "first call ms", "total ms", "total / p-retry"],
            rows,
        ),
    ]


def targets_section(js: Json, engine: Json | None) -> list[str]:
    """The browser-sized engine's targets: the figures at filing, this run's, the goal."""
    size = js["size"]["stoic"]
    success = js["cases"]["success first time (overhead per call)"]
    decision = js["cases"]["one retry decision (the above minus success)"]
    cockatiel = f"cockatiel {js['versions'].get('cockatiel', '?')}"
    # stoic / cockatiel: the inverse of the headline's peer / stoic ratio.
    overhead = 1 / success["ratio_median"]["cockatiel"]
    rows = [
        [
            "browser app importing `retry` + `createFetch` (esbuild minified JS + wasm, gzip -9)",
            "~262 KB",
            f"**{size['retry_fetch_app_gzip'] / 1000:.1f} KB**",
            "<= 40 KB",
            "<= 25 KB",
        ],
        [
            "largest `.wasm` in the package, gzipped",
            "256 KB",
            f"**{size.get('full_wasm_gzip', size['wasm_gzip']) / 1000:.1f} KB**",
            "<= 80 KB",
            "<= 50 KB",
        ],
        [
            f"JS success overhead of `retry()` vs {cockatiel}, same run",
            "2.4x",
            f"**{overhead:.2f}x**",
            "<= 1.5x",
            "<= 1x",
        ],
        [
            "one retry decision (JS), `retry()` rounds",
            "~1 us",
            f"**{ns(decision['median_ns']['stoic'])}**",
            "< 1 us",
            "< 0.5 us",
        ],
    ]
    floor = js.get("floor")
    if floor:
        rows.insert(
            3,
            [
                "the floor under that ratio: two clock readings a call needs (its start and end),"
                f" nothing else, vs {cockatiel}'s whole success overhead",
                "",
                f"**{floor['ratio_to_cockatiel']:.2f}x** ({ns(floor['clock_reads_ns'])})",
                "",
                "",
            ],
        )
    if engine:
        hot = engine["hot_path"]
        rows.append(
            [
                "one retry decision (JS), the engine alone (`bench/js/engine.mjs`, CPU time)",
                "",
                f"**{ns(hot['retry_decision_ns'])}** (success {ns(hot['success_ns'])})",
                "< 1 us",
                "< 0.5 us",
            ]
        )
    return [
        "### Browser-sized engine: the targets",
        "",
        "What a web app ships and pays per call, against the goals set for the browser build"
        ' ("at filing": the figures when the goals were set, measured by an earlier run).'
        " The `retry()` rows come from the paired rounds above and are as noisy as they are;"
        " the engine-alone row times the same numeric crossings `retry()` makes, without"
        " promises, and is the steadier figure for comparing builds.",
        "",
        *table(["what", "at filing", "this run", "goal", "stretch"], rows),
        "",
    ]


def cmd_write(out: Path, target: Path) -> None:
    run = load(out / "run.json") or {}
    previous_date, previous = previous_headline(target)
    rust, py, js = (load(out / f"{lang}.json") for lang in ("rust", "python", "js"))
    versions = [
        f"stoic {stoic_version()} (this checkout: the Rust crates, the Python wheel and the npm"
        " package built from it)",
        command_output("rustc", "--version"),
        f"Node {js['versions']['node']}" if js else f"Node {command_output('node', '--version')}",
        f"Python {py['versions']['python']}" if py else "Python: not run",
    ]
    if py:
        peers = [f"{k} {v}" for k, v in py["versions"].items() if k not in ("python", "stoic")]
        versions.append("Python peers (PyPI, pinned): " + ", ".join(peers))
    if js:
        peers = [f"{k} {v}" for k, v in js["versions"].items() if k not in ("node", "stoic")]
        versions.append("JS peers and bundler (npm, pinned): " + ", ".join(peers))
    lines = [
        "# Benchmark results",
        "",
        "Generated by `make bench` (`scripts/bench.sh`, then `bench/report.py`); do not edit by",
        "hand. The figures come from whatever machine last ran the command, under whatever else",
        "it was running: absolute times are noisy, so the headline figures are ratios between",
        "libraries measured in the same paired rounds (every round times every library, in an",
        "order that rotates and reverses from round to round; a ratio is taken per round and the",
        "median over rounds is reported; times are the benchmark process's CPU time, not wall",
        "time, unless a knob says otherwise). Method and cases: `bench/README.md`, the harnesses'",
        "header comments (`bench/python/bench_overhead.py`, `bench/js/bench.mjs`).",
        "",
        "## This run",
        "",
        f"- date: {run.get('start', '?')} to {run.get('end', '?')}"
        + (f" ({run['elapsed_s']} s)" if "elapsed_s" in run else ""),
        f"- load average (/proc/loadavg) at start: `{run.get('loadavg_start', '?')}`;"
        f" at end: `{run.get('loadavg_end', '?')}`",
        *[f"- {line}" for line in machine()],
        "- knobs: "
        + (", ".join(f"{k}={v}" for k, v in run.get("knobs", {}).items()) or "defaults"),
        "",
        "Versions:",
        "",
        *[f"- {v}" for v in versions],
        "",
        "## Headline: peer / stoic, median of the per-round ratios",
        "",
        "Above 1, the peer costs more than stoic (stoic is faster); below 1, stoic costs more.",
        "What is compared is the time a library adds to a call: the call's time minus the same",
        "call without a retry library, in the same round.",
        "",
    ]
    if previous:
        lines += [
            f"Each ratio follows the previous report's (its run of {previous_date or '?'}):"
            " previous → **this run**, so a drop shows.",
            "",
        ]
    if py:
        lines += headline("Python", py, previous)
    if js:
        lines += headline("JavaScript", js, previous)
        fetch = js.get("fetch")
        if fetch:
            for peer, value in fetch["overhead"]["ratio_median"].items():
                lines += [
                    f"Fetch wrapper, a GET that succeeds: {peer}"
                    f" {js['versions'].get(peer, '?')} / stoic **{ratio(value)}**.",
                    "",
                ]
    lines += [
        "A retry decision is the difference of two overheads measured in the same round, so it",
        "is the noisiest figure: where a peer's success overhead varies by more than stoic's",
        "whole decision, its ratio can swing widely (even below zero); the row above it, the",
        "whole overhead of a call that fails once, is the steadier comparison.",
        "",
    ]
    if js:
        s = js["size"]["stoic"]
        peers = [v["entry_gzip"] for k, v in js["size"].items() if k != "stoic"]
        lines += [
            f"Bundle size (gzip): stoic, wasm + glue + runtime, {s['total_gzip']:,} bytes; the"
            f" peers' whole entries {min(peers):,} to {max(peers):,} bytes"
            f" ({s['total_gzip'] / max(peers):.0f}x to {s['total_gzip'] / min(peers):.0f}x"
            " smaller than stoic).",
            "",
        ]
    lines += ["## Rust core (criterion)", ""]
    if rust and rust["cases"]:
        lines += [
            "No peer runs the same sans-IO decision path in Rust, so these are absolute times",
            "of stoic-core alone (criterion's estimates, with their 95 % confidence intervals).",
            "Criterion times wall-clock time, so the machine's load shows in them (a mean well",
            "above the median is the sign): compare them between runs on the same quiet machine.",
            "",
        ]
        rows = []
        for name, est in rust["cases"].items():
            med = est.get("median") or {}
            slope = est.get("slope") or est.get("mean") or {}
            rows.append(
                [
                    name,
                    f"{slope.get('point_ns', 0):.1f} ns"
                    f" [{slope.get('lower_ns', 0):.1f}, {slope.get('upper_ns', 0):.1f}]",
                    f"{med.get('point_ns', 0):.1f} ns",
                ]
            )
        lines += table(["case", "estimate [95 % CI]", "median"], rows)
    else:
        lines.append("Not run.")
    lines += ["", "## Python", ""]
    if py:
        lines += [
            f"{py['rounds']} paired rounds of {py['n_success']:,} calls ({py['n_retry']:,} for"
            f" the one-retry path), {clock_text(py)}. Times: median over rounds of the library's"
            " time minus the bare"
            " call's. Ratios: median of the per-round ratios peer / stoic (in brackets: ratio of"
            ' the medians). "Fails once": the function raises ConnectionError once and then'
            " returns, sleeping stubbed; a retry decision is that minus the success path, so it"
            " includes raising and catching the exception.",
            "",
            *case_tables(py),
            "",
            f"stoic's engine alone (the binding's calls, no decorator): begin + on_success"
            f" {ns(py['engine_alone_ns']['success'])}; one retry decision (report + admit)"
            f" {ns(py['engine_alone_ns']['retry_decision'])}.",
        ]
    else:
        lines.append("Not run.")
    lines += ["", "## JavaScript", ""]
    if js:
        lines += [
            f"{js['rounds']} paired rounds of {js['n_success']:,} calls ({js['n_retry']:,} for"
            f" the one-retry path), all async, {clock_text(js)}. Times: median over rounds of the"
            " library's time"
            " minus a hand-written loop making the same awaits. Ratios: median of the per-round"
            " ratios peer / stoic (in brackets: ratio of the medians). Sleeping is stubbed on the"
            " retry path (stoic: its `sleep` option; the peers: setTimeout fires on the next"
            " microtask while they run).",
            "",
            *case_tables(js),
            "",
            *fetch_section(js),
            *targets_section(js, load(out / "engine.json")),
            "### Bundle size",
            "",
            js["size_note"],
            "",
            *size_table(js),
            *coldstart_section(load(out / "coldstart.json")),
            *toolchain_section(load(out / "toolchains.json")),
            *component_section(load(out / "component.json")),
        ]
    else:
        lines.append("Not run.")
    lines += fleet_section(py, load(out / "engine.json"))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("start", "end", "rust", "write"):
        p = sub.add_parser(name)
        p.add_argument("dir", type=Path)
        if name == "write":
            p.add_argument("out", type=Path)
        if name == "rust":
            p.add_argument("--criterion", type=Path, default=ROOT / "target" / "criterion")
    args = parser.parse_args()
    if args.command == "start":
        cmd_start(args.dir)
    elif args.command == "end":
        cmd_end(args.dir)
    elif args.command == "rust":
        cmd_rust(args.dir, args.criterion)
    else:
        cmd_write(args.dir, args.out)


if __name__ == "__main__":
    main()
