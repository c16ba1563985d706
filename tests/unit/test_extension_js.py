"""The extension's JavaScript under the README's test command: node's test runner on
tests/js (wire helpers, sites table, manifest, selector tables) and ESLint with
tools/eslint/eslint.config.mjs, and Firefox's add-on linter (`web-ext lint`). tests/run.sh installs
ESLint into tools/eslint/node_modules and web-ext into tools/web-ext/node_modules (git-ignored);
a missing node, ESLint or web-ext fails these tests, it never skips them."""

import json
import shutil
import subprocess
from pathlib import Path

from whiteboard.actions.chat import _render_selections
from whiteboard.blocks import fence, strip_blocks
from whiteboard.memory.recall.inject import BlockLine, format_block

ROOT = Path(__file__).resolve().parents[2]
ESLINT = ROOT / "tools" / "eslint" / "node_modules" / ".bin" / "eslint"
WEB_EXT = ROOT / "tools" / "web-ext" / "node_modules" / ".bin" / "web-ext"
# The one warning the shared manifest earns on purpose: Chrome's `service_worker` beside
# Firefox's `scripts` (Firefox ignores the former; `whiteboard extension pack` leaves it out of
# Firefox's zip).
EXPECTED_WEB_EXT_WARNINGS = {"BACKGROUND_SERVICE_WORKER_IGNORED"}


def run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, input=stdin)


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
    done = run([str(ESLINT), "-c", "tools/eslint/eslint.config.mjs", "--max-warnings", "0",
                "extension", "tools", "tests/js", "tests/e2e/example_site"])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def web_ext_lint(source: Path) -> dict:
    node()
    assert WEB_EXT.exists(), "web-ext is not installed: run `npm ci --prefix tools/web-ext` (tests/run.sh does)"
    done = run([str(WEB_EXT), "lint", "--source-dir", str(source), "--no-input", "--output", "json"])
    return json.loads(done.stdout)


def test_web_ext_lint_passes():
    report = web_ext_lint(ROOT / "extension")
    problems = report["errors"] + [w for w in report["warnings"] if w["code"] not in EXPECTED_WEB_EXT_WARNINGS]
    assert not problems, json.dumps(problems, indent=1)[:6000]


def test_web_ext_lint_fails_on_what_firefox_would_refuse(tmp_path):
    copy = shutil.copytree(ROOT / "extension", tmp_path / "extension")
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["browser_specific_settings"]["gecko"]["id"] = "not an id"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert web_ext_lint(copy)["errors"], "web-ext lint let a malformed add-on id through"


def test_the_page_and_the_host_agree_on_which_drafts_carry_a_block():
    """The send interceptor lets a draft through untouched when it already carries a block;
    it must take exactly the drafts the host would strip a block from (memory/recall/inject.py),
    checked on the blocks the host really writes."""
    blocks = [_render_selections(["Kyoto has 1,600 temples."]), _render_selections(["a", "b <b>c</b>"]),
              format_block([BlockLine("preference", 3, "Prefers TypeScript")]),
              fence("[Whiteboard background · earlier in this tab]", "We planned a trip.")]
    drafts = [f"Summarise this\n\n{b}" for b in blocks] + [
        blocks[0].replace("---\n", "---\n\n", 1),  # a site that reads paragraphs back with blank lines
        "Plain question", "--- \nnot a block", "text --- [Whiteboard selection · 1 passage]",
        "---\n[Whiteboard notes · mine]\n---", "x\n----\n[Whiteboard context · 1 memory]\n---"]
    done = run([node(), "tests/js/is-prepared.mjs"], stdin=json.dumps(drafts))
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout)
    host = [strip_blocks(d) != d.rstrip() for d in drafts]
    assert page == host
    assert host[:5] == [True] * 5 and not any(host[5:])
