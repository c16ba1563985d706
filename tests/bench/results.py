"""What a benchmark measured, kept for the plots (tests/bench/plots.py): one JSON file per
figure in tests/bench/results/ (or $WB_BENCH_RESULTS), holding the numbers as the benchmark
printed them, the date and the machine. Numbers only: never a text of the data measured on.

A figure is one of two kinds:
- "bars": `categories` (the x axis) and `series` (name -> one value per category), with an
  optional `target` line (e.g. p95 < 50 ms) and a `highlight`ed series;
- "lines": `series` (name -> [[x, y], ...]).
A benchmark that records a figure of either kind is plotted by `run.py plots`, nothing else
to change (the import benchmark's rates, say)."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def results_dir() -> Path:
    return Path(os.environ.get("WB_BENCH_RESULTS") or RESULTS)


def machine() -> dict:
    """Where the numbers came from: CPU, cores, memory, the load average as the result is recorded."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import psutil

        memory_gb = round(psutil.virtual_memory().total / 2**30)
    except ImportError:
        memory_gb = None
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory_gb, "system": platform.system(),
            "python": platform.python_version(), "load": [round(x, 1) for x in os.getloadavg()]}


def record(bench: str, figure: str, kind: str, title: str, unit: str, series: dict, *,
           categories: list[str] | None = None, target: float | None = None, highlight: str | None = None,
           note: str = "") -> Path:
    """Write tests/bench/results/<bench>-<figure>.json (the previous run's is replaced)."""
    if kind not in ("bars", "lines"):
        raise ValueError(f"unknown figure kind {kind!r}")
    if kind == "bars" and any(len(v) != len(categories or ()) for v in series.values()):
        raise ValueError("a bar series needs one value per category")
    path = results_dir() / f"{bench}-{figure}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"bench": bench, "figure": figure, "kind": kind, "title": title, "unit": unit,
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                "categories": categories, "series": series, "target": target, "highlight": highlight,
                "note": note}
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
