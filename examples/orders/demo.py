"""``make demo``: the orders server under mixed faults, and both clients.

Starts the orders server on 127.0.0.1 (an ephemeral port, SQLite in
memory, the ``mixed`` fault plan), runs the Python client and then the
JavaScript client against it, each printing its decisions and its summary,
then prints what the server holds and stops it. The server's record is the
verdict: every valid order exactly once, however the network failed.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from orders.faults import SCENARIOS  # noqa: E402
from orders.server import OrdersServer  # noqa: E402

CLIENTS = {
    "py": [sys.executable, "-m", "orders.client"],
    "js": ["node", str(HERE / "client.mjs")],
}


def main() -> int:
    plan = SCENARIOS["mixed"]
    started = time.monotonic()
    with OrdersServer(plan) as server:
        print(f"orders server on {server.url}: SQLite in memory, faults 'mixed'")
        print(
            f"  seed {plan.seed}: each order's first {plan.faulty_attempts} attempts"
            f" meet a fault at rate {plan.rate}"
        )
        for name, command in CLIENTS.items():
            print(f"\n=== {name} client ===", flush=True)
            done = subprocess.run([*command, server.url], cwd=HERE.parent, check=False)
            if done.returncode != 0:
                print(f"the {name} client failed (exit {done.returncode})", file=sys.stderr)
                return done.returncode
        rows = server.store.requests()
        print("\n=== what the server recorded ===")
        ok = True
        for name in CLIENTS:
            held = server.summary(name)
            print(f"  {name}: {held['count']} orders, {held['duplicates']} duplicates")
            ok = ok and held["duplicates"] == 0
        faults = sorted({row.fault for row in rows if row.fault})
        replays = sum(1 for row in rows if row.answer == "replayed")
        print(f"  {len(rows)} requests; faults injected: {', '.join(faults)}")
        print(f"  {replays} repeats answered by replaying the stored response")
    print(f"\ndone in {time.monotonic() - started:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
