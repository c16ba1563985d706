"""Whiteboard's blocks in a sent message (design §5 framing), and stripping them again.

A block opens with a `---` line and a `[Whiteboard <kind> ...]` header and closes with
`---`. Three kinds go after a draft: `selection` and `background` (actions/chat.py) and
`context`, the long-term memories (memory/recall/inject.py). Every captured user turn and
every draft is stripped of them before anything is recorded, extracted or recalled, so
nothing Whiteboard injected is ever kept as the user's words.
"""

from __future__ import annotations

import re

KINDS = ("context", "selection", "background")

# From a line of three dashes opening a Whiteboard block to its closing dashes (or the end).
# Blank lines may sit between the dashes and the header: some sites render paragraphs so.
# The newlines before a block go too, but in strip_blocks: a leading `\n*` here was tried
# from every newline of a run, and 60,000 newlines took 16 s (issue 20).
_BLOCK = re.compile(rf"^---[ \t]*\n(?:[ \t]*\n)*\[Whiteboard (?:{'|'.join(KINDS)})[^\n]*\]"
                    r".*?(?:^---[ \t]*$|\Z)\n?", re.MULTILINE | re.DOTALL)
# A body line of three dashes would end the block early for strip_blocks: never emit one.
_FENCE_LINE = re.compile(r"^-{3,}[ \t]*$", re.MULTILINE)


def fence(header: str, body: str) -> str:
    """A block: `header` is its `[Whiteboard <kind> ...]` line; a dashes-only body line is
    written `- - -` so that it cannot close the block early."""
    return f"---\n{header}\n{_FENCE_LINE.sub('- - -', body)}\n---"


def strip_blocks(text: str) -> str:
    """The text with every Whiteboard block removed (context, selection or background)."""
    kept, end = [], 0
    for block in _BLOCK.finditer(text):
        kept.append(text[end:block.start()].rstrip("\n"))
        end = block.end()
    kept.append(text[end:])
    return "".join(kept).rstrip()
