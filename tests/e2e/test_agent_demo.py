"""``make agent-demo`` (examples/agents/demo.py) run as it is, and the facts
it shows asserted from its ``--json`` output: what each scripted model was
handed (the framework's own messages) and what each orders server stored.
Facts only: no timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "agents" / "demo.py"
#: The adapter's failed answer, as each framework hands it to the model.
FAILED = {"py": "failed", "js": "error-text"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    out = tmp_path_factory.mktemp("agent-demo") / "runs.json"
    done = subprocess.run(
        [sys.executable, str(DEMO), "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the demo failed:\n{done.stdout}\n{done.stderr}"
    runs: dict[str, Any] = json.loads(out.read_text())
    return runs, done.stdout


def answers(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for line in run["transcript"] if line["who"] == "tool"]


def calls(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for line in run["transcript"] if "call" in line]


def next_call(run: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    lines: list[dict[str, Any]] = run["transcript"]
    after = lines[lines.index(answer) + 1 :]
    return next(line for line in after if "call" in line)


def creates_of(run: dict[str, Any], ref: str) -> list[dict[str, Any]]:
    return [c for c in calls(run) if c["call"] == "create_order" and c["args"]["order_ref"] == ref]


@pytest.mark.parametrize("language", ["py", "js"])
def test_with_stoic(demo: tuple[dict[str, Any], str], language: str) -> None:
    run = demo[0][language]["stoic"]
    server = run["server"]
    # The faults happened: the 1st POST met a 503, the 5th lost its answer.
    assert server["faults"] == ["POST #1 (A-1): unavailable", "POST #5 (C-3): lost_ack"]
    # Each order once: the 503 retried inside (same key), the lost write not repeated.
    assert server["duplicates"] == 0
    assert server["orders"] == ["A-1 (qty 2)", "B-2 (qty 1)", "C-3 (qty 1)"]
    assert server["posts_by_ref"] == {"A-1": 2, "B-2": 2, "C-3": 1}
    assert (server["requests"], server["posts"], server["gets"]) == (6, 5, 1)
    assert run["retries_inside"] == 1
    assert run["turns"] == 6

    handed = answers(run)
    failures = [a for a in handed if not a["ok"]]
    # The transient failure never reached the model.
    assert not any("503" in a["text"] or "Unavailable" in a["text"] for a in handed)
    assert len(failures) == 2
    invalid, lost = failures
    # The 422 reached it as the run's observation, through the framework's
    # failed-tool path (not pydantic-ai's ModelRetry), with the server's reason.
    assert invalid["outcome"] == FAILED[language]
    assert invalid["text"].startswith("HTTP 422 Unprocessable Content")
    assert "quantity must be a positive integer, got 0" in invalid["text"]
    corrected = next_call(run, invalid)
    assert corrected["args"] == {"order_ref": "B-2", "sku": "mug", "quantity": 1}
    # The lost answer: ambiguous, sent once; the model checked before repeating.
    assert lost["outcome"] == FAILED[language]
    assert "may already have been applied" in lost["text"]
    assert "Check whether it took effect" in lost["text"]
    assert next_call(run, lost)["call"] == "list_orders"
    listed = handed[handed.index(lost) + 1]
    assert (listed["tool"], listed["ok"]) == ("list_orders", True)
    assert '"C-3"' in listed["text"]
    assert len(creates_of(run, "C-3")) == 1
    assert run["transcript"][-1] == {"who": "model", "text": "Placed A-1, B-2, C-3."}


@pytest.mark.parametrize("language", ["py", "js"])
def test_with_the_frameworks_defaults(demo: tuple[dict[str, Any], str], language: str) -> None:
    run = demo[0][language]["defaults"]
    server = run["server"]
    assert server["faults"] == ["POST #1 (A-1): unavailable", "POST #5 (C-3): lost_ack"]
    # The lost write, repeated by the model under a fresh random key: a duplicate.
    assert server["duplicates"] == 1
    assert server["orders"] == ["A-1 (qty 2)", "B-2 (qty 1)", "C-3 (qty 1)", "C-3 (qty 1)"]
    assert server["posts_by_ref"] == {"A-1": 2, "B-2": 2, "C-3": 2}
    assert (server["requests"], server["posts"], server["gets"]) == (6, 6, 0)
    assert run["turns"] == 7

    failures = [a for a in answers(run) if not a["ok"]]
    assert len(failures) == 3
    unavailable, invalid, lost = failures
    # The 503 went to the model, which spent a turn calling again.
    assert "503" in unavailable["text"]
    assert next_call(run, unavailable)["args"]["order_ref"] == "A-1"
    # The 422 without the server's reason (raise_for_status / !response.ok).
    assert "422" in invalid["text"]
    assert "quantity must be" not in invalid["text"]
    # Nothing says the lost write may have been applied: called again.
    assert "applied" not in lost["text"]
    assert next_call(run, lost)["call"] == "create_order"
    assert len(creates_of(run, "C-3")) == 2
    assert not any(c["call"] == "list_orders" for c in calls(run))


def test_the_printed_tables(demo: tuple[dict[str, Any], str]) -> None:
    printed = demo[1]
    assert "=== Python, pydantic-ai " in printed
    assert "=== JavaScript, ai " in printed
    assert printed.count("503: never (retried inside the tool call: 1 retry)") == 2
    assert printed.count("-> checked with list_orders") == 2
