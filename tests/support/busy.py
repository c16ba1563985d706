"""One core kept busy by another process (a Python busy loop, as `tests/run.sh --busy`
does for the whole suite): the end-to-end test and the benchmark of typed drafts measure
the machine a user has while something else runs."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def busy_core(on: bool = True, settle: float = 0.5) -> Iterator[subprocess.Popen | None]:
    """Another process spinning on one core while the block runs (nothing when `on` is false);
    `settle` s for it to get going before the block starts."""
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        if burner is not None:
            time.sleep(settle)
        yield burner
    finally:
        if burner is not None:
            burner.kill()
            burner.wait(10)
