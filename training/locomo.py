"""Reading LoCoMo (../shared/data/locomo, CC BY-NC 4.0): a benchmark here, never training data
(training/sources.py). The trainers' measuring scripts and tests/bench read it through this."""

from __future__ import annotations

import re
from pathlib import Path

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo10.json"


def turns_of(sample: dict) -> list[tuple[str, str]]:
    """(dia_id, text as a memory) for every turn, in order."""
    conv = sample["conversation"]
    sessions = sorted((int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k))
    out = []
    for _, key in sessions:
        for turn in conv[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shared an image: {turn['blip_caption']}]"
            out.append((turn["dia_id"], text))
    return out


def evidence_of(qa: dict, known: set[str]) -> set[str]:
    """The turns of `known` a question's evidence names."""
    ids = set()
    for item in qa.get("evidence") or []:
        ids.update(part for part in re.split(r"[;,\s]+", item) if part in known)
    return ids
