"""The documentation site (mkdocs.yml over docs/) builds with `mkdocs build --strict`: a broken
link, a missing anchor or a page left out of the navigation fails the build, and so this test
(the README's test command and CI run it). The build goes to a temporary folder; nothing is
published. The check is shown to fail on a planted broken link and a planted stray page.
(Not `--quiet`: MkDocs then drops the warnings before strict mode counts them.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build(config: Path, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
                           "-d", str(out)], capture_output=True, text=True, env=env, timeout=300)


def test_the_docs_site_builds_strictly_with_every_page_search_and_the_screenshots(tmp_path):
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "site"
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert (site / page.with_suffix(".html").name).is_file(), page.name
    assert (site / "search" / "search_index.json").stat().st_size > 10_000
    for image in sorted(p for p in (ROOT / "docs" / "img").rglob("*") if p.is_file()):
        assert (site / image.relative_to(ROOT / "docs")).is_file(), image
    assert 'src="img/popup-light.png"' in (site / "index.html").read_text(encoding="utf-8")


def test_a_broken_link_and_a_page_outside_the_navigation_fail_the_build(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    design = tmp_path / "docs" / "design.md"
    design.write_text(design.read_text(encoding="utf-8") + "\nSee [the lost page](lost.md).\n", encoding="utf-8")
    (tmp_path / "docs" / "stray.md").write_text("# Not in the navigation\n", encoding="utf-8")
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "lost.md" in done.stderr and "stray.md" in done.stderr, done.stderr
