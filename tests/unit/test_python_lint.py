"""Ruff over the Python, with pyproject.toml's [tool.ruff] settings, under the README's test
command (ruff comes with the test extras; a missing ruff fails this test, it never skips it)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_passes():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "host", "tests", "tools"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
