"""Memory settings shared by every browser's host and the CLI: the token cap of pinned
memories, the confidence under which an extracted fact waits as a suggestion, and whether
drafts may be sent to the configured model while the user types, to be rewritten into the
kinds of fact they may need (off by default). Kept in config_dir()/memory.json (atomic
write, 0600); numbers and one switch only."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ...config import config_dir
from ...files import atomic_write, read_json, unwritable
from ...protocol.bounds import MAX_PINNED_TOKENS, MIN_SUGGEST_BELOW
from ...protocol.errors import BadRequest, Unavailable

SETTINGS_FILE = "memory.json"
PINNED_TOKENS = 120  # default: a few short standing instructions
# Extracted facts at or above this confidence are kept; below it (down to the extraction
# floor, MIN_SUGGEST_BELOW) they wait as suggestions the user accepts or discards on the memory page.
SUGGEST_BELOW = 0.7


@dataclass(frozen=True)
class MemorySettings:
    pinned_tokens: int = PINNED_TOKENS  # 0: pinned memories are not sent
    suggest_below: float = SUGGEST_BELOW  # 1.0: every extracted fact waits for the user
    # Drafts go to the configured model as the user types (memory/meaning/rewrite.py): the
    # user's own opt-in, apart from configuring the model; off unless turned on.
    rewrite_drafts: bool = False


def check_pinned_tokens(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PINNED_TOKENS:
        raise BadRequest(f"pinned_tokens: must be a whole number from 0 to {MAX_PINNED_TOKENS}")
    return value


def check_suggest_below(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not MIN_SUGGEST_BELOW <= value <= 1.0:
        raise BadRequest(f"suggest_below: must be a number from {MIN_SUGGEST_BELOW} to 1")
    return float(value)


def check_rewrite_drafts(value: bool) -> bool:
    if not isinstance(value, bool):
        raise BadRequest("rewrite_drafts: must be true or false")
    return value


class MemorySettingsStore:
    def __init__(self, directory: Path | None = None):
        self.path = (directory or config_dir()) / SETTINGS_FILE

    def load(self) -> MemorySettings:
        raw = read_json(self.path, f"the memory settings file {self.path} cannot be read; fix or delete it")
        if raw is None:
            return MemorySettings()
        try:
            return MemorySettings(pinned_tokens=check_pinned_tokens(raw.get("pinned_tokens", PINNED_TOKENS)),
                                  suggest_below=check_suggest_below(raw.get("suggest_below", SUGGEST_BELOW)),
                                  rewrite_drafts=check_rewrite_drafts(raw.get("rewrite_drafts", False)))
        except (AttributeError, BadRequest):
            raise Unavailable(f"the memory settings file {self.path} is malformed; fix or delete it") from None

    def update(self, pinned_tokens: int | None = None, suggest_below: float | None = None,
               rewrite_drafts: bool | None = None) -> MemorySettings:
        settings = self.load()
        if pinned_tokens is not None or suggest_below is not None or rewrite_drafts is not None:
            settings = MemorySettings(
                pinned_tokens=settings.pinned_tokens if pinned_tokens is None else check_pinned_tokens(pinned_tokens),
                suggest_below=settings.suggest_below if suggest_below is None else check_suggest_below(suggest_below),
                rewrite_drafts=settings.rewrite_drafts if rewrite_drafts is None
                else check_rewrite_drafts(rewrite_drafts))
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                atomic_write(self.path, json.dumps(asdict(settings), indent=2), 0o600)
            except OSError as exc:
                raise unwritable(exc, self.path) from None
        return settings
