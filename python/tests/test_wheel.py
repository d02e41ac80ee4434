"""A wheel built with ``maturin build`` installs into a fresh venv and
imports (the abi3 wheel of the released package)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]


def test_wheel_installs_into_a_fresh_venv(tmp_path: Path) -> None:
    maturin = Path(sys.executable).with_name("maturin")
    out = tmp_path / "wheels"
    subprocess.run(
        [str(maturin), "build", "--quiet", "--out", str(out)],
        cwd=PYTHON_DIR,
        check=True,
        env=os.environ.copy(),
    )
    (wheel,) = out.glob("stoic-*-cp310-abi3-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)],
        check=True,
    )
    code = (
        "import stoic, stoic.parts, stoic.testing;"
        "p = stoic.Policy(max_attempts=2);"
        "c = p.begin(0.0, 'op'); assert c.admitted and c.on_success(0.1);"
        "print(stoic.__version__, p.config['max_attempts'])"
    )
    result = subprocess.run(
        [str(python), "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path
    )
    assert result.stdout.split()[1] == "2"
