"""One command for every benchmark: python tests/bench/run.py [name ...]

Runs each tests/bench/bench_*.py (or the named ones) in turn and prints its table.
Benchmarks are not part of the test suite: they measure, they do not pass or fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(names: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if names:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in names]
    failed = 0
    for script in scripts:
        print(f"\n## {script.stem}\n", flush=True)
        failed += subprocess.run([sys.executable, str(script)], cwd=HERE.parents[1]).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
