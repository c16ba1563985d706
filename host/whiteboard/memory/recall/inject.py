"""The injection block of design §5, and stripping it from captured turns.

Captured user turns are stripped before anything is stored or extracted, so
memories never feed on themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = "[Whiteboard context · {n} {noun}]"
FOOTER = "(Background about me. Answer the question directly; use it only where relevant.)"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# From a line of three dashes opening a Whiteboard block to its closing dashes (or the end).
# Blank lines may sit between the dashes and the header: some sites render paragraphs so.
# The newlines before a block go too, but in strip_blocks: a leading `\n*` here was tried
# from every newline of a run, and 60,000 newlines took 16 s (issue 20).
_BLOCK = re.compile(r"^---[ \t]*\n(?:[ \t]*\n)*\[Whiteboard (?:context|selection|background)[^\n]*\]"
                    r".*?(?:^---[ \t]*$|\Z)\n?", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class BlockLine:
    type: str
    month: int  # 1-12
    text: str


def format_line(line: BlockLine) -> str:
    return f"- [{line.type}·{_MONTHS[line.month - 1]}] {' '.join(line.text.split())}"


def format_block(lines: list[BlockLine]) -> str:
    if not lines:
        return ""
    noun = "memory" if len(lines) == 1 else "memories"
    body = "\n".join(format_line(line) for line in lines)
    return f"---\n{HEADER.format(n=len(lines), noun=noun)}\n{body}\n{FOOTER}\n---"


def strip_blocks(text: str) -> str:
    """The text with every Whiteboard block removed (context, selection or background)."""
    kept, end = [], 0
    for block in _BLOCK.finditer(text):
        kept.append(text[end:block.start()].rstrip("\n"))
        end = block.end()
    kept.append(text[end:])
    return "".join(kept).rstrip()
