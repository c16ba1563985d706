"""The test folders are packages under tests/, which pytest puts on sys.path (pyproject's
`pythonpath`): `support`, `e2e.harness` and the benchmarks import by name, and no file
edits sys.path to find them."""

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_folder_with_python_files_is_a_package():
    folders = {p.parent for p in TESTS.rglob("*.py") if "node_modules" not in p.parts} - {TESTS}
    assert sorted(str(f.relative_to(TESTS)) for f in folders if not (f / "__init__.py").exists()) == []


def test_nothing_edits_sys_path():
    offenders = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
                 if "node_modules" not in p.parts and "sys.path.insert" in p.read_text(encoding="utf-8")
                 and p != Path(__file__).resolve()]
    assert offenders == []
