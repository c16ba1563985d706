"""What an extractor proposes before dedupe decides ADD / UPDATE / NOOP."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Candidate:
    type: str
    text: str
    confidence: float
    tags: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
