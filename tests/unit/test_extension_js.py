"""The extension's JavaScript under the README's test command: node's test runner on
tests/js (wire helpers, sites table, manifest, selector tables) and ESLint with
tools/eslint/eslint.config.mjs. tests/run.sh installs ESLint into tools/eslint/node_modules
(git-ignored); a missing node or ESLint fails these tests, it never skips them."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ESLINT = ROOT / "tools" / "eslint" / "node_modules" / ".bin" / "eslint"


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def node() -> str:
    found = shutil.which("node")
    assert found, "node (20 or later) is needed for the extension's JavaScript tests: install nodejs"
    return found


def test_node_unit_tests_pass():
    done = run([node(), "--test", "tests/js/"])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout


def test_eslint_passes():
    node()
    assert ESLINT.exists(), "ESLint is not installed: run `npm ci --prefix tools/eslint` (tests/run.sh does)"
    done = run([str(ESLINT), "-c", "tools/eslint/eslint.config.mjs", "--max-warnings", "0", "extension", "tools", "tests/js",
                "tests/e2e/example_site"])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
