"""pytest imports test modules by basename (rootdir-relative, no packages): two test files
with the same name in different folders stop the whole run at collection."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_files_share_a_name():
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [n for n, c in names.items() if c > 1] == []
