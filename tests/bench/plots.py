"""The benchmarks' figures: every result in tests/bench/results/ (tests/bench/results.py) drawn
as PNG and SVG into docs/img/bench/, each carrying the date and the machine it was measured on.
Run: python tests/bench/run.py plots (run.py draws them after any benchmark run too).
matplotlib is the `bench` extra's alone: pip install -e '.[bench]'."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.results import results_dir

OUT = Path(__file__).resolve().parents[2] / "docs" / "img" / "bench"


def provenance(result: dict) -> str:
    m = result["machine"]
    memory = f", {m['memory_gb']} GB" if m.get("memory_gb") else ""
    load = m.get("load") or []
    return (f"measured {result['date']} · {m['cpu']}, {m['cores']} cores{memory}, {m['system']}, "
            f"Python {m['python']}" + (f", load average {load[0]} when recorded" if load else ""))


def draw(result: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    # Text stays text in the SVG (searchable, small), and ids are stable from run to run.
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "whiteboard"})
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.2), layout="constrained")
    series = result["series"]
    if result["kind"] == "bars":
        categories = result["categories"]
        width = 0.8 / len(series)
        for i, (name, values) in enumerate(series.items()):
            xs = [c + (i - (len(series) - 1) / 2) * width for c in range(len(categories))]
            bold = name == result.get("highlight")
            ax.bar(xs, values, width, label=name, edgecolor="black" if bold else "none", linewidth=1.2 if bold else 0)
        ax.set_xticks(range(len(categories)), categories, rotation=20 if len(categories) > 4 else 0, ha="right"
                      if len(categories) > 4 else "center")
    else:
        for name, points in series.items():
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
        ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    if result.get("target") is not None:
        ax.axhline(result["target"], color="crimson", linestyle="--", linewidth=1, label=f"target {result['target']}")
    ax.set_ylabel(result["unit"])
    fig.suptitle(result["title"])
    caption = provenance(result) + (f"\n{result['note']}" if result.get("note") else "")
    ax.set_title(caption, fontsize=7, color="dimgray")
    ax.grid(axis="y", alpha=0.3)
    fig.legend(loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix in (".png", ".svg"):
        path = out / f"{result['bench']}-{result['figure']}{suffix}"
        # No timestamp or file hash in the SVG: the same result draws the same file again.
        fig.savefig(path, dpi=110, metadata={"Date": None} if suffix == ".svg" else {"Software": None})
        written.append(path)
    plt.close(fig)
    return written


def plot_all(results: Path | None = None, out: Path = OUT) -> list[Path]:
    """Draw every result there is; a benchmark not run yet simply has no figure."""
    written = []
    for path in sorted((results or results_dir()).glob("*.json")):
        written += draw(json.loads(path.read_text(encoding="utf-8")), out)
    return written


def main() -> int:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is missing: pip install -e '.[bench]' (the benchmarks' extra)", file=sys.stderr)
        return 1
    written = plot_all()
    for path in written:
        print(path.relative_to(OUT.parents[2]))
    if not written:
        print(f"no results in {results_dir()}: run a benchmark first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
