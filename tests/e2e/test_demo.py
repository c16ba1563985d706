"""`whiteboard demo --headless --screenshot`: the newcomer's one command, run for real."""

import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from e2e import harness


def png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_demo_runs_an_injected_send_and_takes_screenshots():
    # A short TMPDIR: Chromium's singleton socket path must stay under the 108-byte limit.
    with tempfile.TemporaryDirectory(prefix="wb-demo-") as tmp:
        run_demo(Path(tmp))


def run_demo(tmp_path):
    shot, popup = tmp_path / "send.png", tmp_path / "popup.png"
    env = harness.prepare_profile(tmp_path / "env", register=False)[1]  # HOME, TMPDIR inside tmp_path
    result = subprocess.run(
        [sys.executable, "-c", "from whiteboard.cli import main; main()", "demo", "--headless",
         "--screenshot", str(shot), "--popup-screenshot", str(popup), "--browser", harness.chromium_path()],
        capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "  | [Whiteboard selection · 1 passage]" in result.stdout
    assert "  | Can you say that in one sentence for a beginner?" in result.stdout
    assert png_size(shot) == (1280, 860)
    assert png_size(popup)[0] == 780  # 390 CSS px at scale 2


def test_demo_refuses_a_screenshot_without_headless(tmp_path):
    result = subprocess.run([sys.executable, "-c", "from whiteboard.cli import main; main()", "demo",
                             "--screenshot", str(tmp_path / "x.png")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--headless" in result.stderr
