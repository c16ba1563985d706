"""Rebuild the trimmed page fixtures from the real saved pages in ../shared/data/dom.

    python tests/e2e/pages/make_pages.py [DOM_DIR]

Only the pages listed in LICENCES are copied: MIT pages as they are, MPL-2.0 pages with
the licence notice at their top; AGPL-3.0 pages (dct__) stay out (the hand-written wb__
and obs__ pages restate the facts they show, see README.md; miss__ is written for the
tests). Trimming removes what would run or fetch
(scripts, <link>s, iframes, <noscript>) and empties inline SVG drawings; every element,
attribute and text node the adapters look at is kept byte for byte, so selectors behave
exactly as on the saved page.
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
# The saved pages copied, with each one's licence (../shared/data/dom/README.md). Pages from
# repositories without a licence file were copied before this list existed; no new one is.
LICENCES = {
    "acb__chatgpt_2026-04-13": "MIT", "acb__claude_2026-04-13": "MIT", "acb__gemini_2026-04-13": "MIT",
    "acb__grok_2026-04-13": "MIT", "acb__perplexity_2026-04-13": "MIT",
    "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03": "MIT",
    "rse__chatgpt-dom-1question-ans-pair_2026-03": "MIT", "rse__chatgpt-dom-2question-ans-pairs_2026-03": "MIT",
    "rse__chatgpt-dom-5question-ans-pairs_2026-03": "MIT", "rse__chatgpt-dom_2025-06-30": "MIT",
    "rse__claude-codeblock-dom_2025-08": "MIT", "rse__claude-codeblock-larger-dom_2025-08": "MIT",
    "rse__claude-single-user-response-with-artifact-dom_2025-08": "MIT",
    "rse__gemini-dom_2025-06-30": "MIT", "rse__gemini-scrollback-loading-dom_2025-08": "MIT",
    "rse__grok-dom-5question-ans-pairs_2026-03": "MIT", "rse__copilot-dom-2question-ans-pairs_2026-03": "MIT",
    "rse__copilot-chat-dom_2025-08": "MIT",
    "orc__chatgpt-completed_2026-09__idx": "MIT", "orc__chatgpt-streaming_2026-09__idx": "MIT",
    "cv__gemini-chat_2026-05-21": "MPL-2.0", "cv__deepseek-chat_2026-05-21": "MPL-2.0",
    "cv__perplexity-chat_2026-05-21": "MPL-2.0",
    "gte__chatgpt_project_page_2025-12-23": "none given", "tl__chatgpt_ssr_2026-07-19": "none given",
}
MPL_NOTICE = ("<!-- This Source Code Form is subject to the terms of the Mozilla Public License, v. 2.0. If a copy "
              "of the MPL was not distributed with this file, You can obtain one at https://mozilla.org/MPL/2.0/. "
              "Origin: Covai-Labs/ai-chat-exporter tests/fixtures (see README.md); trimmed by make_pages.py. -->\n")
_SVG = re.compile(r"(<svg\b[^>]*>).*?(</svg\s*>)", re.S | re.I)


def trim(html: str) -> str:
    for pattern in _DROP:
        html = pattern.sub("", html)
    return _SVG.sub(r"\1\2", html)


def main(source: Path) -> None:
    for name, licence in sorted(LICENCES.items()):
        page = source / f"{name}.html"
        out = HERE / page.name
        text = trim(page.read_text(encoding="utf-8"))
        out.write_text(MPL_NOTICE + text if licence == "MPL-2.0" else text, encoding="utf-8")
        print(f"{page.name}: {page.stat().st_size} -> {out.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE)
