"""A real vault, key and settings written by Whiteboard 0.1.0 (tests/data/vault-0.1.0, made
by its make.py against the 0.1.0 checkout), copied into a test's own dirs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "vault-0.1.0"


def expected_0_1_0() -> dict:
    """What the 0.1.0 host answered about the fixture (memory.get per memory, suggestions,
    settings, sites, llm.settings.get), the fake API key, and the vault's plain columns."""
    return json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))


def copy_0_1_0(config: Path, data: Path) -> None:
    """The fixture's config and data files into these dirs, with the modes 0.1.0 gave them
    (git keeps neither 0600 nor 0700): dirs 0700, files 0600."""
    for source, target in ((FIXTURE / "config", config), (FIXTURE / "data", data)):
        target.mkdir(parents=True, exist_ok=True)
        target.chmod(0o700)
        for path in source.iterdir():
            shutil.copyfile(path, target / path.name)
            (target / path.name).chmod(0o600)
