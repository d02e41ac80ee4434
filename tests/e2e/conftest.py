"""The end-to-end harness: a real orders server on 127.0.0.1 (in this
process, so tests read its SQLite records directly) and the real demo
clients, Python and JavaScript, run as subprocesses against it.

Every test runs once per client. Assertions are on what the server
recorded, never on what a client believes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))

from orders.faults import FaultPlan  # noqa: E402
from orders.server import OrdersServer  # noqa: E402

CLIENTS = ("py", "js")
RunClient = Callable[..., dict[str, Any]]


def client_command(name: str, url: str, args: list[str]) -> tuple[list[str], Path]:
    """The command that runs the demo client ``name`` (and its folder)."""
    if name == "py":
        return [sys.executable, "-m", "orders.client", url, *args], EXAMPLES
    return ["node", str(EXAMPLES / "orders" / "client.mjs"), url, *args], ROOT


@pytest.fixture(params=CLIENTS)
def client(request: pytest.FixtureRequest) -> str:
    """Which demo client a test drives (each test runs for both)."""
    return str(request.param)


@pytest.fixture
def start_server() -> Iterator[Callable[[FaultPlan], OrdersServer]]:
    """Starts orders servers with a fault plan; stops them after the test."""
    servers: list[OrdersServer] = []

    def start(plan: FaultPlan) -> OrdersServer:
        server = OrdersServer(plan).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def run_client(client: str, tmp_path: Path) -> RunClient:
    """Runs the test's client to the end; returns its JSON summary."""
    runs = iter(range(1, 100))

    def run(url: str, *args: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        out = tmp_path / f"summary-{next(runs)}.json"
        extra = ["--config", json.dumps(config)] if config else []
        command, cwd = client_command(client, url, ["--quiet", "--json", str(out), *extra, *args])
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
        summary: dict[str, Any] = json.loads(out.read_text())
        assert summary["client"] == client
        return summary

    return run
