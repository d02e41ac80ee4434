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
from dataclasses import dataclass
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


class RedisServer:
    """A redis-server of the run's own on a free port of 127.0.0.1, with no
    persistence: ``stop()`` kills it and ``start()`` brings up an empty one on
    the same port (the outage runs: a store lost, then restarted without its
    data)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            cwd=self.folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(200):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not listen on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@dataclass
class Store:
    """Where the workers meet: ``url``, and ``server`` when the run owns it
    (``None`` under REDIS_URL, where no outage can be staged)."""

    url: str
    server: RedisServer | None


@contextmanager
def redis_store() -> Iterator[Store]:
    """REDIS_URL, or a redis-server of its own for the run."""
    given = os.environ.get("REDIS_URL")
    if given:
        yield Store(given, None)
        return
    if shutil.which("redis-server") is None:
        raise SystemExit(
            "redis-server is missing: scripts/redis-tools.sh installs it, or set REDIS_URL"
        )
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(folder)
        server.start()
        try:
            yield Store(server.url, server)
        finally:
            server.stop()


class Failing(BaseHTTPRequestHandler):
    """503 to every request but ``/ok`` (200, not counted), counted and timed."""

    count = 0
    times: ClassVar[list[float]] = []
    lock = threading.Lock()

    def do_GET(self) -> None:
        ok = self.path.endswith("/ok")
        if not ok:
            with Failing.lock:
                Failing.count += 1
                Failing.times.append(time.monotonic())
        self.send_response(200 if ok else 503)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def stage_outage(server: RedisServer, started: float, outage: tuple[float, float]) -> None:
    """Kills the store ``outage[0]`` seconds into the run and brings up an
    empty one ``outage[1]`` seconds in."""
    down, up = outage
    time.sleep(max(0.0, started + down - time.monotonic()))
    server.stop()
    time.sleep(max(0.0, started + up - time.monotonic()))
    server.start()


def run(
    seconds: float,
    share: bool,
    store: Store,
    pause: float = 0.05,
    config: str = "config.json",
    interval: float = 0.2,
    roles: tuple[str, str, str, str] = ("caller",) * 4,
    outage: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """One run of the four workers (Python, Python, Node, Node, in the roles
    given): calls, requests, amplification, the server's requests per second
    over the run's second half, and the store's work per process. With
    ``outage``, the store is killed and restarted empty during the run, and
    ``outage_requests`` counts what the server heard while it was down."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Failing.count = 0
    Failing.times = []
    url = f"http://127.0.0.1:{server.server_address[1]}/always-503"
    common = ["--url", url, "--redis", store.url, "--seconds", str(seconds)]
    common += ["--pause", str(pause), "--interval", str(interval)]
    common += ["--config", str(HERE / config)]
    if share:
        common.append("--share")
    programs = [
        [sys.executable, str(HERE / "worker.py")],
        [sys.executable, str(HERE / "worker.py")],
        ["node", str(HERE / "worker.mjs")],
        ["node", str(HERE / "worker.mjs")],
    ]
    commands_run = [
        [*program, *common, "--role", role] for program, role in zip(programs, roles, strict=True)
    ]
    stats_client = redis.Redis.from_url(store.url)
    stats_client.config_resetstat()
    workers = [
        subprocess.Popen(c, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for c in commands_run
    ]
    # Each worker says "ready" once attached (and, as an observer, once its
    # scope is in use), then waits: the run starts for all four at once.
    for command, worker in zip(commands_run, workers, strict=True):
        assert worker.stdout is not None
        line = worker.stdout.readline().strip()
        if line != "ready":
            for started_worker in workers:
                started_worker.kill()
            raise RuntimeError(f"a worker did not start ({command[1]}): {line!r}")
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    started = time.monotonic()
    stager = None
    if outage is not None:
        if store.server is None:
            raise ValueError("an outage needs the run's own redis-server (REDIS_URL is set)")
        stager = threading.Thread(target=stage_outage, args=(store.server, started, outage))
        stager.start()
    reports = []
    for command, worker in zip(commands_run, workers, strict=True):
        out, _ = worker.communicate(timeout=seconds + 60)
        if worker.returncode != 0:
            raise RuntimeError(f"a worker failed ({command[1]}): {out}")
        reports.append(json.loads(out.strip().splitlines()[-1]))
    if stager is not None:
        stager.join()
    server.shutdown()
    # What the store served: the round trips the workers made (TIME, the
    # script, loading it) and every command, the script's own included.
    stats = stats_client.info("commandstats")
    trips = sum(
        int(v["calls"])
        for k, v in stats.items()
        if k.split("|")[0] in TRIPS and isinstance(v, dict)
    )
    commands = sum(int(v["calls"]) for v in stats.values() if isinstance(v, dict))
    per_process = seconds * len(commands_run)
    calls = sum(r["calls"] for r in reports)
    # The second half of the run, while every worker is still calling
    # (they start together, on the "go" line), is the steady state.
    half = started + seconds / 2
    late = [t for t in Failing.times if half <= t <= started + seconds]
    down, up = (started + outage[0], started + outage[1]) if outage else (0.0, 0.0)
    return {
        "outage_requests": sum(1 for t in Failing.times if down <= t < up),
        "share": share,
        "workers": reports,
        "calls": calls,
        "requests": Failing.count,
        "amplification": Failing.count / calls if calls else 0.0,
        "late_requests_per_second": len(late) / (seconds / 2),
        "store_round_trips_per_second_per_process": trips / per_process,
        "store_commands_per_second_per_process": commands / per_process,
    }


def exchange_after(exchanges: list[list[float]], at_ms: float) -> list[float] | None:
    """The first exchange that worked and began at or after ``at_ms``."""
    return next((e for e in exchanges if e[0] >= at_ms and e[2]), None)


def seen_by_next_exchange(watcher: dict[str, Any], pushed_ms: float) -> bool:
    """Whether ``watcher``'s breaker showed open by the end of the exchange
    that brought the trip: its first exchange to begin once the trip was in
    the store (at ``pushed_ms``). Its scope is in use by then: a watcher
    makes its one good call before it says "ready", and the caller starts
    only on the "go" line after that. An earlier exchange that overlapped
    the push may have brought the trip already; that counts too. Each
    exchange records the breaker's state as it ends, on the exchange's own
    thread, so the answer does not depend on how promptly a loaded machine
    runs the watch loop."""
    bringer = exchange_after(watcher["exchanges"], pushed_ms)
    opened_by = next((e for e in watcher["exchanges"] if e[3]), None)
    if bringer is None or opened_by is None:
        return False
    return bool(opened_by[0] <= bringer[0])


def propagation(store: Store, interval: float, seconds: float = 4.0) -> dict[str, Any]:
    """Time to fleet-wide open: one Python worker calls the failing server
    until its breaker trips; the other three (Python, Node, Node) make one
    good call and then only watch their breakers. For each watcher: how long
    after the caller's breaker opened its own showed open (wall clock, ms),
    and whether that was by the watcher's first exchange to begin after the
    caller's push of the trip had reached the store (``in_one_exchange``)."""
    # The watchers make no failing call: only the fleet can open them.
    result = run(
        seconds,
        share=True,
        store=store,
        config="breaker.json",
        interval=interval,
        roles=("caller", "observer", "observer", "observer"),
    )
    caller, *watchers = result["workers"]
    opened = caller["opened_at_ms"]
    if opened is None:
        raise RuntimeError(f"the caller's breaker never opened: {caller}")
    # The caller's exchange that carried the trip: the first to begin after
    # its breaker opened (the news check sends it within 50 ms).
    push = exchange_after(caller["exchanges"], opened)
    if push is None:
        raise RuntimeError(f"the caller never sent its trip: {caller}")
    delays, in_one = [], []
    for watcher in watchers:
        seen = watcher["opened_at_ms"]
        delays.append(None if seen is None else seen - opened)
        in_one.append(seen_by_next_exchange(watcher, push[1]))
    return {"workers": result["workers"], "delays_ms": delays, "in_one_exchange": in_one}


def main() -> None:
    seconds = float(os.environ.get("FLEET_SECONDS", "10"))
    with redis_store() as store:
        for share in (False, True):
            label = "shared" if share else "not shared"
            print(
                f"fleet run, budget {label}: 2 Python + 2 Node workers, "
                f"{seconds:g} s against an always-503 server (exchanges every 0.2 s)"
            )
            result = run(seconds, share, store)
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
            result = run(seconds, share, store, config="breaker.json")
            probes = result["late_requests_per_second"] * cooldown
            print(f"  requests at the server: {result['requests']} for {result['calls']} calls")
            print(f"probes per cooldown: {probes:.1f}")
        for interval in (0.2, 1.0):
            print(
                f"time to fleet-wide open, exchanges every {interval:g} s: one worker trips,"
                " three watch"
            )
            spread = propagation(store, interval)
            for worker, delay in zip(spread["workers"][1:], spread["delays_ms"], strict=True):
                shown = "never" if delay is None else f"{delay:.0f} ms after the trip"
                print(f"  {worker['language']:7} breaker open {shown}")
            known = [d for d in spread["delays_ms"] if d is not None]
            worst = f"{max(known):.0f} ms" if len(known) == 3 else "not every process"
            print(f"fleet-wide open: {worst}")


if __name__ == "__main__":
    main()
