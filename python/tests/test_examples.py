"""The examples in examples/py_*.py run and say what they should."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXPECT = {
    "py_decorator.py": "gave up: attempts_exhausted after 3 attempts",
    "py_loop.py": "reply {'status': 'done', 'id': 7}",
    "py_httpx.py": "client got 200",
    "py_prometheus.py": 'stoic_retry_total{scope="inventory"} 2.0',
    "py_requests.py": "client got 200 ok",
    "py_aiohttp.py": "client got 200 ok",
    "py_opentelemetry.py": "span 'check stock': resend_count=2",
}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_example_runs(name: str) -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert EXPECT[name] in out.stdout


def test_every_example_is_checked() -> None:
    assert {p.name for p in EXAMPLES.glob("py_*.py")} == set(EXPECT)
