"""docs/protocol.md lists every message the host understands, each with an example."""

from pathlib import Path

from whiteboard.actions import load_all
from whiteboard.protocol.errors import ERROR_CODES
from whiteboard.protocol.messages import REQUESTS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def test_every_message_type_has_a_section_with_an_example():
    for type_name in REQUESTS:
        heading = f"### `{type_name}`"
        assert heading in DOC, f"docs/protocol.md has no section for {type_name}"
        section = DOC.split(heading, 1)[1].split("\n### ", 1)[0]
        assert f'"type": "{type_name}"' in section, f"no example request for {type_name}"


def test_every_error_code_is_documented():
    for code in ERROR_CODES:
        assert f"`{code}`" in DOC


def test_every_message_has_a_handler():
    handlers = load_all()
    assert set(handlers) == set(REQUESTS)
