"""error.reason: the machine-readable part of an error the extension branches on
(docs/protocol.md, "Error codes"); the UI never matches a message."""

import ast
import importlib
import re
from pathlib import Path

import pytest

import whiteboard
from whiteboard.actions import load_all
from whiteboard.llm.errors import ModelUnavailable, NoModel
from whiteboard.protocol.errors import REASONS, BadRequest, Unavailable, WhiteboardError


def all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from all_subclasses(sub)


@pytest.mark.parametrize("error, reason", [
    (NoModel(), "no_model"),
    (ModelUnavailable("cannot reach the model endpoint at http://127.0.0.1:9"), "model_unavailable"),
])
def test_model_failures_say_why_in_a_reason(error, reason):
    wire = error.to_wire()
    assert wire == {"code": "unavailable", "message": error.message, "reason": reason}


@pytest.mark.parametrize("error", [BadRequest("site: bad"), Unavailable("the settings file cannot be read")])
def test_errors_the_ui_does_not_tell_apart_have_no_reason(error):
    assert "reason" not in error.to_wire()


def test_a_reason_may_be_given_per_raise():
    assert Unavailable("the data directory is read-only", "no_model").to_wire()["reason"] == "no_model"
    assert NoModel().reason == "no_model" and Unavailable("x").reason is None


def test_every_error_class_uses_a_listed_reason():
    # REASONS is the list docs/protocol.md documents (tests/js/wire.test.mjs checks that,
    # and that the extension's Whiteboard.wire.REASON holds only listed reasons).
    used = {cls.reason for cls in all_subclasses(WhiteboardError) if cls.reason}
    assert used <= set(REASONS), used - set(REASONS)
    assert len(set(REASONS)) == len(REASONS)


HOST = Path(whiteboard.__file__).resolve().parent
PROTOCOL_DOC = HOST.parents[1] / "docs" / "protocol.md"


def raised_reasons() -> dict[str, str]:
    """Every reason the host's source gives an error: `reason="x"` or a second positional
    argument to an error class, `reason = "x"` in an error class or on `self`, and what a
    `_reason` helper returns. reason -> where."""
    load_all()  # imports every action, so every error class is a subclass by now...
    importlib.import_module("whiteboard.memory.errors")  # ...but the memory's, loaded on first use
    error_classes = {cls.__name__: cls for cls in [WhiteboardError, *all_subclasses(WhiteboardError)]}
    found = {}

    def strings(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.IfExp):
            return strings(node.body) + strings(node.orelse)
        return []

    for path in HOST.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(HOST).as_posix()
        for node in ast.walk(tree):
            values = []
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in error_classes:
                    values += [v for k in node.keywords if k.arg == "reason" for v in strings(k.value)]
                    # (message, reason) positionally, where the class keeps the base signature
                    if len(node.args) > 1 and error_classes[name].__init__ is WhiteboardError.__init__:
                        values += strings(node.args[1])
            elif isinstance(node, ast.Assign):
                targets = [getattr(t, "id", None) or getattr(t, "attr", None) for t in node.targets]
                if "reason" in targets:
                    values += strings(node.value)
            elif isinstance(node, ast.FunctionDef) and node.name == "_reason":
                values += [v for r in ast.walk(node) if isinstance(r, ast.Return) and r.value for v in strings(r.value)]
            for value in values:
                found.setdefault(value, f"{where}:{node.lineno}")
    return found


def documented_reasons() -> list[str]:
    section = PROTOCOL_DOC.read_text(encoding="utf-8").split("### Reasons", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| [^|]+\| `([a-z_]+)` \|", section, re.MULTILINE)


def test_every_reason_the_host_gives_is_listed():
    found = raised_reasons()
    assert {"no_model", "busy", "key_missing", "read_only", "locked", "newer_vault"} <= set(found)  # the scan sees them
    unlisted = {reason: where for reason, where in found.items() if reason not in REASONS}
    assert not unlisted, f"add these to REASONS and docs/protocol.md: {unlisted}"


def test_the_reasons_table_in_the_protocol_doc_is_reasons():
    assert sorted(documented_reasons()) == sorted(REASONS)
