"""The memories' block of design §5 (`[Whiteboard context ...]`), one line per memory.

Its framing, and stripping every Whiteboard block from captured turns (so memories
never feed on themselves), are whiteboard/blocks.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...blocks import fence

HEADER = "[Whiteboard context · {n} {noun}]"
FOOTER = "(Background about me. Answer the question directly; use it only where relevant.)"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


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
    return fence(HEADER.format(n=len(lines), noun=noun), f"{body}\n{FOOTER}")

