"""error.reason: the machine-readable part of an error the extension branches on
(docs/protocol.md, "Error codes"); the UI never matches a message."""

import pytest

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
