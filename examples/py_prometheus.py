"""Prometheus with stoic's collector: a flaky inventory call retried twice,
then a scrape of prometheus_client's own /metrics endpoint on 127.0.0.1.

Run: .venv/bin/python examples/py_prometheus.py
"""

from __future__ import annotations

import urllib.request

from prometheus_client import CollectorRegistry, start_http_server

import stoic
from stoic.prometheus import StoicCollector

policy = stoic.Policy(backoff={"base": 0.01, "cap": 0.05})
failures = [ConnectionResetError("reset"), TimeoutError("slow")]


@stoic.retry(policy=policy, scope="inventory")
def stock(item: str) -> int:
    if failures:
        raise failures.pop(0)
    return 7


def main() -> None:
    registry = CollectorRegistry()
    registry.register(StoicCollector(policy))
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    try:
        print(f"stock: {stock('tea')}")
        url = f"http://127.0.0.1:{server.server_address[1]}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
        for line in text.splitlines():
            if line.startswith(("stoic_retry_total", "stoic_retry_duration_seconds_count")):
                print(line)
    finally:
        server.shutdown()
        thread.join()


if __name__ == "__main__":
    main()
