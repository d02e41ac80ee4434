"""Four processes, two Python and two Node, share one scope through Redis
against an always-503 server on 127.0.0.1, and the same runs with sharing
off, for comparison: `run()` for the test suite, and the command line for
`make fleet-demo`. Two configs: `config.json` (a ratio budget, no breaker:
amplification is the server's requests per call the workers made) and
`breaker.json` (a breaker with a 1 s cooldown: probes per cooldown are the
requests the server saw per cooldown once every breaker had opened).

Starts its own redis-server on a free port unless REDIS_URL is set.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import redis

HERE = Path(__file__).resolve().parent
#: The commands a worker sends the store itself (the rest run in the script).
TRIPS = ("cmdstat_time", "cmdstat_evalsha", "cmdstat_eval", "cmdstat_script")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL, or a redis-server of its own for the run."""
    given = os.environ.get("REDIS_URL")
    if given:
        yield given
        return
    if shutil.which("redis-server") is None:
        raise SystemExit(
            "redis-server is missing: scripts/redis-tools.sh installs it, or set REDIS_URL"
        )
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(200):
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.02)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.kill()
            server.wait()


class Failing(BaseHTTPRequestHandler):
    """503 to every request, counted and timed."""

    count = 0
    times: ClassVar[list[float]] = []
    lock = threading.Lock()

    def do_GET(self) -> None:
        with Failing.lock:
            Failing.count += 1
            Failing.times.append(time.monotonic())
        self.send_response(503)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def run(
    seconds: float,
    share: bool,
    url_of_redis: str,
    pause: float = 0.05,
    config: str = "config.json",
) -> dict[str, Any]:
    """One run of the four workers: calls, requests, amplification, and the
    server's requests per second over the run's second half."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Failing.count = 0
    Failing.times = []
    started = time.monotonic()
    url = f"http://127.0.0.1:{server.server_address[1]}/always-503"
    common = [
        "--url",
        url,
        "--redis",
        url_of_redis,
        "--seconds",
        str(seconds),
        "--pause",
        str(pause),
    ]
    common += ["--config", str(HERE / config)]
    if share:
        common.append("--share")
    commands_run = [
        [sys.executable, str(HERE / "worker.py"), *common],
        [sys.executable, str(HERE / "worker.py"), *common],
        ["node", str(HERE / "worker.mjs"), *common],
        ["node", str(HERE / "worker.mjs"), *common],
    ]
    store = redis.Redis.from_url(url_of_redis)
    store.config_resetstat()
    workers = [subprocess.Popen(c, stdout=subprocess.PIPE, text=True) for c in commands_run]
    reports = []
    for command, worker in zip(commands_run, workers, strict=True):
        out, _ = worker.communicate(timeout=seconds + 60)
        if worker.returncode != 0:
            raise RuntimeError(f"a worker failed ({command[1]}): {out}")
        reports.append(json.loads(out.strip().splitlines()[-1]))
    server.shutdown()
    # What the store served: the round trips the workers made (TIME, the
    # script, loading it) and every command, the script's own included.
    stats = store.info("commandstats")
    trips = sum(
        int(v["calls"])
        for k, v in stats.items()
        if k.split("|")[0] in TRIPS and isinstance(v, dict)
    )
    commands = sum(int(v["calls"]) for v in stats.values() if isinstance(v, dict))
    per_process = seconds * len(commands_run)
    calls = sum(r["calls"] for r in reports)
    # The second half of the run, while every worker is still calling
    # (they start within a second, Node's and Python's imports), is the
    # steady state.
    half = started + seconds / 2
    late = [t for t in Failing.times if half <= t <= started + seconds]
    return {
        "share": share,
        "workers": reports,
        "calls": calls,
        "requests": Failing.count,
        "amplification": Failing.count / calls if calls else 0.0,
        "late_requests_per_second": len(late) / (seconds / 2),
        "store_round_trips_per_second_per_process": trips / per_process,
        "store_commands_per_second_per_process": commands / per_process,
    }


def main() -> None:
    seconds = float(os.environ.get("FLEET_SECONDS", "10"))
    with redis_url() as url:
        for share in (False, True):
            label = "shared" if share else "not shared"
            print(
                f"fleet run, budget {label}: 2 Python + 2 Node workers, "
                f"{seconds:g} s against an always-503 server (exchanges every 0.2 s)"
            )
            result = run(seconds, share, url)
            for worker in result["workers"]:
                print(f"  {worker['language']:7} calls {worker['calls']}")
            print(f"  requests at the server: {result['requests']} for {result['calls']} calls")
            print("  (amplification: requests at the server per call; 1 is no retry at all)")
            print(f"fleet amplification: {result['amplification']:.3f}")
            if share:
                trips = result["store_round_trips_per_second_per_process"]
                ops = result["store_commands_per_second_per_process"]
                print(
                    f"  store: {trips:.1f} round trips and {ops:.1f} commands"
                    " per second per process"
                )
        cooldown = json.loads((HERE / "breaker.json").read_text())["breaker"]["cooldown_ms"] / 1000
        for share in (False, True):
            label = "shared" if share else "not shared"
            print(f"fleet run, breaker {label} (cooldown {cooldown:g} s), {seconds:g} s")
            result = run(seconds, share, url, config="breaker.json")
            probes = result["late_requests_per_second"] * cooldown
            print(f"  requests at the server: {result['requests']} for {result['calls']} calls")
            print(f"probes per cooldown: {probes:.1f}")


if __name__ == "__main__":
    main()
