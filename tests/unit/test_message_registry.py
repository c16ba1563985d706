"""The message table is derived from the request models; start-up refuses anything unmatched."""

from typing import Literal

import pytest

from whiteboard import actions
from whiteboard.actions import action, load_all
from whiteboard.protocol.messages import REQUESTS, Reply, Request, derive_registry


class ExampleReply(Reply):
    done: bool


class Example(Request):
    type: Literal["example.do"]
    reply_model = "ExampleReply"


class ExampleAgain(Request):
    type: Literal["example.do"]
    reply_model = ExampleReply


class NoReply(Request):
    type: Literal["example.orphan"]


class Shared(Request):
    """A base shared by several messages: no single type, so not a message itself."""

    type: Literal["example.a", "example.b"]


def test_every_entry_is_its_request_model_and_the_reply_that_model_names():
    assert len(REQUESTS) >= 31
    for type_name, (request, reply) in REQUESTS.items():
        assert request.message_type() == type_name
        assert request.reply_model is reply and issubclass(reply, Reply)


def test_a_reply_is_named_by_class_or_by_name_in_the_module():
    table = derive_registry([Example, Shared])
    assert table == {"example.do": (Example, ExampleReply)}
    assert Example.reply_model is ExampleReply  # resolved once


def test_a_type_defined_twice_is_refused():
    with pytest.raises(RuntimeError, match="defined twice"):
        derive_registry([Example, ExampleAgain])


def test_a_request_without_a_reply_is_refused():
    with pytest.raises(RuntimeError, match="NoReply names no Reply model"):
        derive_registry([NoReply])


def test_a_handler_without_a_message_is_refused():
    with pytest.raises(RuntimeError, match="no entry"):
        action(Example)


def test_a_message_without_a_handler_is_refused(monkeypatch):
    load_all()
    monkeypatch.setitem(REQUESTS, "example.do", (Example, ExampleReply))
    with pytest.raises(RuntimeError, match="example.do"):
        load_all()


def test_two_handlers_for_one_message_are_refused():
    load_all()
    with pytest.raises(RuntimeError, match="two handlers"):
        action(REQUESTS["ping"][0])(lambda request, ctx: None)
    assert actions.HANDLERS["ping"].handler.__name__ == "ping"
