"""Rebuild the trimmed page fixtures from the real saved pages in ../shared/data/dom.

    python tests/e2e/pages/make_pages.py [DOM_DIR]

Trimming removes what would run or fetch (scripts, <link>s, iframes, <noscript>) and
empties inline SVG drawings; every element, attribute and text node the adapters look
at is kept byte for byte, so selectors behave exactly as on the saved page. The obs__ and
miss__ pages are written by hand (README.md), not made here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE.parents[3] / "shared" / "data" / "dom"

_DROP = [
    re.compile(r"<script\b[^>]*>.*?</script\s*>", re.S | re.I),
    re.compile(r"<noscript\b[^>]*>.*?</noscript\s*>", re.S | re.I),
    re.compile(r"<iframe\b[^>]*>.*?</iframe\s*>", re.S | re.I),
    re.compile(r"<link\b[^>]*>", re.I),
]
# AGPL-3.0 captures stay out of the repository (their facts went into the obs__ pages, README.md).
_LEFT_OUT = ("dct__",)
_SVG = re.compile(r"(<svg\b[^>]*>).*?(</svg\s*>)", re.S | re.I)


def trim(html: str) -> str:
    for pattern in _DROP:
        html = pattern.sub("", html)
    return _SVG.sub(r"\1\2", html)


def main(source: Path) -> None:
    for page in sorted(source.glob("*.html")):
        if page.name.startswith(_LEFT_OUT):
            continue
        out = HERE / page.name
        out.write_text(trim(page.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"{page.name}: {page.stat().st_size} -> {out.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE)
