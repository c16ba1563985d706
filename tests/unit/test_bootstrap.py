"""The early ping responder answers exactly what the full stack would."""

import json

import pytest

from whiteboard.actions import load_all
from whiteboard.protocol.messages.core import PingReply
from whiteboard.server.bootstrap import early_ping_reply


def test_early_ping_reply_matches_the_ping_reply_model():
    reply = early_ping_reply(b'{"id": 7, "type": "ping"}')
    assert reply["id"] == 7 and reply["ok"] is True
    fields = {k: v for k, v in reply.items() if k not in ("id", "ok")}
    assert PingReply.model_validate(fields).model_dump() == fields
    assert set(fields) == set(PingReply.model_fields)


@pytest.mark.parametrize("body", [
    b'{"id": 1, "type": "ping", "extra": 1}', b'{"id": true, "type": "ping"}', b'{"type": "ping"}',
    b'{"id": 1, "type": "session.list"}', b"not json", b"[1]", b"[" * 10000,
])
def test_anything_else_is_left_to_the_full_stack(body):
    assert early_ping_reply(body) is None


def test_full_stack_ping_has_the_same_fields(tmp_path):
    from whiteboard.app import App, RequestContext

    handlers = load_all()
    app = App()
    reply = handlers["ping"].handler(None, RequestContext(app, 1, lambda e: None))
    early = early_ping_reply(json.dumps({"id": 1, "type": "ping"}).encode())
    assert set(reply.model_dump()) == set(early) - {"id", "ok"}

