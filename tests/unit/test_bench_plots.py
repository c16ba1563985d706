"""The benchmarks' results and figures (tests/bench/results.py, plots.py): a result keeps the
numbers with the date and machine, refuses a malformed figure, and is drawn as PNG and SVG
carrying both. Drawing needs matplotlib, the `bench` extra's, not the tests': without it
that one test is skipped and says so."""

from __future__ import annotations

import json

import pytest

from bench import results
from bench.plots import provenance


def test_a_result_keeps_the_numbers_the_date_and_the_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("WB_BENCH_RESULTS", str(tmp_path))
    path = results.record("send", "per-site", "bars", "Enter -> sent", "ms", {"p50": [4.4, 9.9], "p95": [7.7, 13.8]},
                          categories=["ChatGPT old", "Claude"], target=50)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert path == tmp_path / "send-per-site.json"
    assert saved["series"] == {"p50": [4.4, 9.9], "p95": [7.7, 13.8]} and saved["target"] == 50
    assert saved["machine"]["cores"] >= 1 and saved["machine"]["cpu"] and len(saved["machine"]["load"]) == 3
    assert saved["date"][:2] == "20" and saved["date"].endswith("UTC")
    caption = provenance(saved)
    assert saved["date"] in caption and f"{saved['machine']['cores']} cores" in caption


def test_a_malformed_figure_is_refused_and_nothing_written(tmp_path, monkeypatch):
    monkeypatch.setenv("WB_BENCH_RESULTS", str(tmp_path))
    with pytest.raises(ValueError, match="one value per category"):
        results.record("send", "x", "bars", "t", "ms", {"p50": [1.0]}, categories=["a", "b"])
    with pytest.raises(ValueError, match="kind"):
        results.record("send", "x", "pie", "t", "ms", {})
    assert list(tmp_path.iterdir()) == []


def test_every_result_is_drawn_as_png_and_svg_with_its_date_and_machine(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="matplotlib is the bench extra's (pip install -e '.[bench]')")
    from bench.plots import plot_all

    monkeypatch.setenv("WB_BENCH_RESULTS", str(tmp_path / "results"))
    results.record("indexer", "rate", "lines", "first index", "memories/s",
                   {"endpoint": [[1000, 134.0], [10000, 340.0]]})
    results.record("import", "rate", "lines", "import", "memories/s", {"CLI": [[1000, 900.0]]})
    saved = json.loads((tmp_path / "results" / "import-rate.json").read_text(encoding="utf-8"))
    written = plot_all(out=tmp_path / "img")
    assert sorted(p.name for p in written) == ["import-rate.png", "import-rate.svg", "indexer-rate.png",
                                               "indexer-rate.svg"]
    assert (tmp_path / "img" / "import-rate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "img" / "import-rate.svg").read_text(encoding="utf-8")
    assert f"{saved['machine']['cores']} cores" in svg and saved["date"] in svg  # text kept as text in the SVG
