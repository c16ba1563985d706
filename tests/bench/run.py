"""One command for every benchmark: python tests/bench/run.py [name ...] [-- bench arguments]

`run.py plots` only draws the figures again from the recorded results (tests/bench/plots.py);
after any benchmark run they are drawn too.

Runs each tests/bench/bench_*.py (or the named ones) in turn and prints its table; what
follows `--` goes to each (e.g. `run.py memory -- models`, `run.py send -- --sends 20`).
Each runs as the module bench.bench_<name> with tests/ on PYTHONPATH, as pytest puts it
on sys.path, so `support` and `e2e.harness` import the same way in both.
Benchmarks are not part of the test suite: they measure, they do not pass or fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent


def main(argv: list[str]) -> int:
    names, args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    scripts = sorted(HERE.glob("bench_*.py"))
    if names:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in names]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    failed = 0
    for script in scripts:
        print(f"\n## {script.stem}\n", flush=True)
        failed += subprocess.run([sys.executable, "-m", f"bench.{script.stem}", *args], cwd=TESTS.parent,
                                 env=env).returncode != 0
    # The figures of docs/benchmarks.md, from every result recorded so far (tests/bench/plots.py).
    if scripts or "plots" in names:
        print("\n## plots\n", flush=True)
        failed += subprocess.run([sys.executable, "-m", "bench.plots"], cwd=TESTS.parent, env=env).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
