"""The injection block of design §5 and its stripping from captured turns."""

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from whiteboard.blocks import strip_blocks
from whiteboard.memory.recall.inject import BlockLine, format_block


def test_block_format_matches_the_design():
    block = format_block([
        BlockLine("preference", 3, "Prefers coding in TypeScript"),
        BlockLine("skill", 2, "Uses Claude Code and Cursor as development tools"),
        BlockLine("objective", 3, "Building a Chrome extension"),
    ])
    assert block == (
        "---\n[Whiteboard context · 3 memories]\n"
        "- [preference·Mar] Prefers coding in TypeScript\n"
        "- [skill·Feb] Uses Claude Code and Cursor as development tools\n"
        "- [objective·Mar] Building a Chrome extension\n"
        "(Background about me. Answer the question directly; use it only where relevant.)\n---"
    )


def test_one_memory_is_singular_and_newlines_in_text_cannot_break_the_block():
    block = format_block([BlockLine("context", 12, "Lives in\nLisbon\n---")])
    assert "[Whiteboard context · 1 memory]" in block
    assert "- [context·Dec] Lives in Lisbon ---" in block
    assert strip_blocks("hi\n\n" + block) == "hi"


def test_empty_block_is_empty():
    assert format_block([]) == ""


@pytest.mark.parametrize("sent", [
    "What should I eat?\n\n---\n[Whiteboard context · 1 memory]\n- [preference·Jan] Vegetarian\n(Background.)\n---",
    "What should I eat?\n---\n[Whiteboard selection · 1 passage]\n> quoted\n---\n",
    # A site that renders paragraphs with blank lines between them.
    "What should I eat?\n\n---\n\n[Whiteboard background · earlier in this tab]\n\nstuff\n\n---",
    # Both blocks, and a block the page cut short (no closing dashes).
    "What should I eat?\n---\n[Whiteboard selection · 1 passage]\n> q\n---\n"
    "---\n[Whiteboard context · 2 memories]\n- x",
])
def test_captured_turns_lose_every_whiteboard_block(sent):
    assert strip_blocks(sent) == "What should I eat?"


def test_other_dashed_sections_are_kept():
    text = "Notes\n---\nnot a Whiteboard block\n---"
    assert strip_blocks(text) == text


# The pattern before issue 20: quadratic on a run of newlines (its leading `\n*` was tried
# from each of them), kept as the reference for what stripping removes.
OLD_BLOCK = re.compile(r"\n*^---[ \t]*\n(?:[ \t]*\n)*\[Whiteboard (?:context|selection|background)[^\n]*\]"
                       r".*?(?:^---[ \t]*$|\Z)\n?", re.MULTILINE | re.DOTALL)
PIECES = ["\n", "\n\n", "---", "---\n", "---  \n", "[Whiteboard context · 2 memories]", "[Whiteboard selection]\n",
          "[Whiteboard background]", "hi", " ", "\t", "x\n", "\n \n", "- [skill·Feb] Uses Rust\n"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_stripping_removes_what_the_old_pattern_removed(text):
    assert strip_blocks(text) == OLD_BLOCK.sub("", text).rstrip()


@pytest.mark.parametrize("text", ["\n" * 1_000_000 + "hi", "[Whiteboard context]" + "\n" * 1_000_000,
                                  "---\n" * 250_000, "hi\n" + "\n---\n[Whiteboard context]" * 40_000])
def test_a_megabyte_of_newlines_and_dashes_is_stripped_at_once(text):
    start = time.process_time()
    strip_blocks(text)
    assert time.process_time() - start < 2.0  # the old pattern: 16 s for 60,000 newlines
