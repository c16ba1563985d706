"""Privacy filter throughput (issue 12 item 2). Run: python tests/bench/run.py privacy

- MB/s on ordinary chat text: LoCoMo's dialogue turns joined to 1 MB
- the worst case over every adversarial 1 MB input of tests/support/hostile_text.py
  (target: any 1 MB input in < 200 ms)
- the same on the alternative measured for docs/privacy.md, google-re2 running the old patterns,
  when it is installed (`pip install google-re2`; not a dependency)
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.hostile_text import audit_inputs, hostile_inputs  # noqa: E402

from whiteboard.privacy import REDACTED, redact  # noqa: E402

MB = 1_000_000
LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo10.json"


def chat_text(size: int = MB) -> str:
    turns = []
    for sample in json.loads(LOCOMO.read_text()):
        conversation = sample["conversation"]
        for key, session in conversation.items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"{t['speaker']}: {t['text']}" for t in session]
    text = "\n".join(turns)
    return (text * (size // len(text) + 1))[:size]


def best_of(run: Callable[[str], object], text: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run(text)
        best = min(best, time.perf_counter() - start)
    return best


def worst_case(run: Callable[[str], object], cases: list[tuple[str, str]]) -> tuple[str, float, int]:
    """(name, seconds, cases over 200 ms): one pass over all, the 10 slowest re-timed best of 3."""
    timed = sorted(((best_of(run, text, 1), name, text) for name, text in cases), reverse=True)
    retimed = sorted(((best_of(run, text, 3), name) for _, name, text in timed[:10]), reverse=True)
    seconds, name = retimed[0]
    over = sum(1 for s, _, _ in timed[10:] if s > 0.2) + sum(1 for s, _ in retimed if s > 0.2)
    return name, seconds, over


def re2_redact() -> Callable[[str], object] | None:
    """The old patterns (tests/support/privacy_reference.py) on google-re2, which has no lookahead:
    long_token's letter/digit test moves into Python, as in whiteboard.privacy."""
    try:
        import re2
    except ImportError:
        return None
    from support import privacy_reference

    private = re2.compile(r"(?is)<private>.*?(?:</private>|\z)")
    patterns = [(kind, re2.compile(("(?s)" if kind == "private_key" else "") + p.pattern.replace(r"\Z", r"\z")))
                for kind, p in privacy_reference._PATTERNS if kind != "long_token"]
    long_token = re2.compile(r"\b[A-Za-z0-9_\-+/]{32,}={0,2}")

    def token(m) -> str:
        t = m.group()
        return REDACTED if any(c.isdigit() for c in t) and any(c.isalpha() for c in t) else t

    def run(text: str) -> str:
        text = private.sub("", text)
        for kind, pattern in patterns:
            repl = (lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}") if kind == "assignment" else REDACTED
            text = pattern.sub(repl, text)
        return long_token.sub(token, text)
    return run


def main() -> None:
    ordinary = chat_text()
    cases = list(audit_inputs(MB)) + list(hostile_inputs(MB))
    rows = []
    for label, run in (("re (whiteboard.privacy)", redact), ("google-re2, old patterns", re2_redact())):
        if run is None:
            print(f"{label}: not installed, skipped")
            continue
        chat_s = best_of(run, ordinary, 5)
        name, worst_s, over = worst_case(run, cases)
        rows.append((label, f"{1 / chat_s:.1f} MB/s ({chat_s * 1000:.0f} ms)", f"{worst_s * 1000:.0f} ms ({name})",
                     f"{over} of {len(cases)}"))
    print("| privacy filter | ordinary chat text, 1 MB | worst adversarial 1 MB | inputs over 200 ms |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
