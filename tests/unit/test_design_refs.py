"""Every design-section reference in the repository names a section docs/design.md has.

References read `design §4`, `docs/design.md §4`, `design §2-3` or `design §4, §8`
(docs/design.md, "References"). The old form, naming a design document outside the
repository, must not come back.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "design.md"
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", "build", "dist", "site"}
SUFFIXES = {".py", ".js", ".mjs", ".md", ".sh", ".ps1", ".html", ".css", ".json", ".toml", ".txt", ""}

# "design §4", "docs/design.md §2-3", "design §4, §8" (case-sensitive: the old form is upper case).
REFERENCE = re.compile(r"\b(?:docs/)?design(?:\.md)? §(\d+(?:-\d+)?(?:, §\d+(?:-\d+)?)*)")
# Built from parts so this file does not hold the form it forbids.
OLD_FORMS = re.compile("DESIGN" + r"(?:\.md)? §")
HEADING = re.compile(r'^<a id="s(\d+)"></a>\n## (\d+)\. \S', re.MULTILINE)


def design_sections(text: str) -> list[int]:
    sections = []
    for anchor, number in HEADING.findall(text):
        assert anchor == number, f"section {number} has the anchor s{anchor}"
        sections.append(int(number))
    return sections


def referenced(spec: str) -> list[int]:
    numbers = []
    for part in spec.split(", "):
        first, _, last = part.lstrip("§").partition("-")
        numbers += range(int(first), int(last or first) + 1)
    return numbers


def repository_files():
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if SKIP_DIRS.intersection(parts) or any(p.endswith(".egg-info") for p in parts) or not path.is_file():
            continue
        if path.suffix in SUFFIXES and path.stat().st_size < 2_000_000:
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue


def test_design_sections_are_numbered_in_order_with_stable_anchors():
    sections = design_sections(DESIGN.read_text(encoding="utf-8"))
    assert sections == list(range(1, len(sections) + 1)), sections
    assert len(sections) >= 9  # 1-9 keep the numbering older references used


def test_every_design_reference_names_a_section_design_md_has():
    sections = set(design_sections(DESIGN.read_text(encoding="utf-8")))
    bad, found = [], 0
    for path, text in repository_files():
        for match in REFERENCE.finditer(text):
            found += 1
            missing = [n for n in referenced(match.group(1)) if n not in sections]
            if missing:
                line = text.count("\n", 0, match.start()) + 1
                bad.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)} (no section {missing})")
    assert not bad, "\n".join(bad)
    assert found > 50  # the scan sees the references (code, tests, docs)


def test_no_reference_to_the_design_document_outside_the_repository():
    old = []
    for path, text in repository_files():
        for match in OLD_FORMS.finditer(text):
            old.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}")
    assert not old, "rewrite as `design §n` (docs/design.md): " + ", ".join(old)


def test_the_reference_pattern_reads_every_form():
    forms = {"design §4": [4], "docs/design.md §2-3": [2, 3], "design §4, §8": [4, 8], "design §10": [10]}
    for form, numbers in forms.items():
        assert referenced(REFERENCE.search(form).group(1)) == numbers
    assert OLD_FORMS.search("see " + "DESIGN" + " §4") and not REFERENCE.search("DESIGN" + " §4")
