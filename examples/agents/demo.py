"""``make agent-demo``: one agent run per framework against the orders
server, with stoic and with the frameworks' defaults, offline.

For each language (Python: pydantic-ai, ``agent_pydantic_ai.py``;
JavaScript: the AI SDK, ``agent_ai_sdk.mjs``) and each way of writing the
tools (``stoic``, ``defaults``) it starts a fresh orders server on 127.0.0.1
with the script's faults (the 1st POST meets a 503, the 5th loses its
answer after the order is stored), runs the scripted model's agent against
it, and prints what the model was handed at each step and what the server
holds, read from its store. A table per language ends it. ``--json PATH``
writes everything printed as data (the end-to-end suite reads it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agent_pydantic_ai import run_agent  # noqa: E402
from orders.server import OrdersServer  # noqa: E402
from scripted import MAY_HAVE_BEEN_APPLIED, SCRIPT, scripted_faults, server_facts  # noqa: E402

LANGUAGES = {
    "py": ("Python", "FunctionModel as the model"),
    "js": ("JavaScript", "generateText, MockLanguageModelV4 as the model"),
}
VARIANTS = {
    "stoic": (
        "with stoic",
        "the tools run through the run's adapter; stoic's HTTP layer sends each call's key",
    ),
    "defaults": (
        "defaults",
        "the tools as usually written: a random Idempotency-Key per request, errors raised",
    ),
}
WIDTH = 100


def run_py(url: str, variant: str) -> dict[str, Any]:
    return asyncio.run(run_agent(url, variant))


def run_js(url: str, variant: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        command = ["node", str(HERE / "agent_ai_sdk.mjs"), url, "--variant", variant]
        done = subprocess.run([*command, "--json", str(out)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
        result: dict[str, Any] = json.loads(out.read_text())
        return result


RUNNERS: dict[str, Callable[[str, str], dict[str, Any]]] = {"py": run_py, "js": run_js}


def one_run(language: str, variant: str) -> dict[str, Any]:
    """The agent run, and what the server holds after it."""
    with OrdersServer(scripted_faults()) as server:
        result = RUNNERS[language](server.url, variant)
        result["server"] = server_facts(server)
    return result


# ----------------------------------------------------------------- printing


def _call(line: dict[str, Any]) -> str:
    args = ", ".join(f"{name}={json.dumps(value)}" for name, value in line["args"].items())
    return f"{line['call']}({args})"


def _wrapped(text: str, first: str, indent: int) -> list[str]:
    shown = text if text else '"" (an empty message)'
    lines: list[str] = []
    for i, paragraph in enumerate(shown.splitlines() or [""]):
        lines.extend(
            textwrap.wrap(
                paragraph,
                WIDTH,
                initial_indent=first if i == 0 else " " * indent,
                subsequent_indent=" " * indent,
                break_on_hyphens=False,
            )
        )
    return lines


def print_transcript(transcript: list[dict[str, Any]], out: Callable[[str], None]) -> None:
    for line in transcript:
        if line["who"] == "user":
            out(f"  user  -> model  {line['text']}")
        elif "call" in line:
            out(f"  model -> tool   {_call(line)}")
        elif line["who"] == "tool":
            label = "ok" if line["ok"] else "FAILED"
            head = f"  tool  -> model  {line['tool']} {label} ({line['outcome']}): "
            for text in _wrapped(line["text"], head, 19):
                out(text)
        else:
            out(f"  model (done)    {line['text']}")


def seen(transcript: list[dict[str, Any]], retries_inside: int) -> list[str]:
    """The failures the model was handed, each with what it did next."""
    notes: list[str] = []
    failures = [i for i, line in enumerate(transcript) if line["who"] == "tool" and not line["ok"]]
    if not any("503" in transcript[i]["text"] for i in failures):
        retries = f"{retries_inside} retr{'y' if retries_inside == 1 else 'ies'}"
        notes.append(f"503: never (retried inside the tool call: {retries})")
    for i in failures:
        text = transcript[i]["text"]
        short = f'"{_head(text)}"'
        if "422" in text:
            has = "quantity must be" in text
            short += " + the server's reason" if has else ", without the server's reason"
        if MAY_HAVE_BEEN_APPLIED in text:
            short += f' + "{MAY_HAVE_BEEN_APPLIED}"'
        after = next((line for line in transcript[i + 1 :] if line["who"] == "model"), None)
        if after is None or "call" not in after:
            action = "stopped"
        elif after["call"] == "list_orders":
            action = "checked with list_orders"
        elif after["args"] == _last_call(transcript, i)["args"]:
            action = "the same call again"
        else:
            action = "a corrected call"
        notes.append(f"{short} -> {action}")
    return notes


def _head(text: str) -> str:
    """The start of an answer: its first sentence or line, at most 52 characters."""
    head = re.split(r"\n|\. | \(", text, maxsplit=1)[0]
    return head if len(head) <= 52 else f"{head[:49]}..."


def _last_call(transcript: list[dict[str, Any]], before: int) -> dict[str, Any]:
    return next(line for line in reversed(transcript[:before]) if "call" in line)


def print_run(language: str, variant: str, run: dict[str, Any], out: Callable[[str], None]) -> None:
    name, how = LANGUAGES[language]
    title, what = VARIANTS[variant]
    out(f"=== {name}, {run['framework']} ({how}): {title} ===")
    out(f"    {what}")
    print_transcript(run["transcript"], out)
    server = run["server"]
    out(
        f"  server: {server['requests']} requests ({server['posts']} POST, {server['gets']} GET);"
        f" faults injected: {'; '.join(server['faults']) or 'none'}"
    )
    out(f"          orders: {', '.join(server['orders'])}; duplicates: {server['duplicates']}")
    out("")


def print_tables(results: dict[str, dict[str, dict[str, Any]]], out: Callable[[str], None]) -> None:
    header = f"  {'run':<22}{'requests':>9}{'model turns':>13}{'orders':>8}{'duplicates':>12}"
    for language, runs in results.items():
        framework = next(iter(runs.values()))["framework"]
        out(f"=== {LANGUAGES[language][0]}, {framework}: the same agent run, two ways ===")
        out(header)
        for variant, run in runs.items():
            server = run["server"]
            label = f"{framework.split()[0]} + stoic" if variant == "stoic" else "defaults"
            out(
                f"  {label:<22}{server['requests']:>9}{run['turns']:>13}"
                f"{server['order_count']:>8}{server['duplicates']:>12}"
            )
            for i, note in enumerate(seen(run["transcript"], run["retries_inside"])):
                out(f"  {'    the model saw:' if i == 0 else '':<22} {note}")
        out("")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(LANGUAGES), help="one language (default: both)")
    parser.add_argument("--json", type=Path, help="also write the runs here, as JSON")
    args = parser.parse_args(argv)
    languages = [args.only] if args.only else list(LANGUAGES)

    def out(line: str) -> None:
        print(line, flush=True)

    started = time.monotonic()
    plan = ", ".join(f"POST #{n}: {f}" for n, f in enumerate(SCRIPT["faults_by_post"], 1) if f)
    out(f"The orders server, a fresh one per run, on 127.0.0.1; its faults: {plan}.")
    out("Each run's transcript is the conversation the scripted model was handed.\n")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for language in languages:
        for variant in VARIANTS:
            run = one_run(language, variant)
            results.setdefault(language, {})[variant] = run
            print_run(language, variant, run, out)
    print_tables(results, out)
    out(f"done in {time.monotonic() - started:.1f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
    clean = all(runs["stoic"]["server"]["duplicates"] == 0 for runs in results.values())
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
