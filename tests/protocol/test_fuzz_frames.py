"""Property: whatever frame arrives, the real host answers it exactly once and keeps serving.

Frames are generated as JSON text (so they can hold what json.dumps never writes: numbers
of thousands of digits, NaN, lone surrogates) around every message type and field name
the host knows, plus random bytes and frames cut short, and sent over the real pipes.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.host import HostProcess, isolated_env
from whiteboard.protocol.messages import REQUESTS
from whiteboard.protocol.request_id import is_request_id

# llm.settings.set could point the model layer at a random host; everything else is fair game.
TYPES = sorted(set(REQUESTS) - {"llm.settings.set"})
FIELDS = sorted({name for model, _ in REQUESTS.values() for name in model.model_fields} - {"id", "type"})
WAIT = 20.0


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    with HostProcess(env=isolated_env(tmp_path_factory.mktemp("fuzz"))) as host:
        yield host
    assert host.proc.returncode == 0
    assert "crashed" not in host.stderr_text and "CRITICAL" not in host.stderr_text


scalars = st.one_of(
    st.sampled_from(["null", "true", "false", "NaN", "Infinity", "-Infinity", "1e999", "-0", "0.5",
                     '"\\ud800"', '"\\u0000"', '""', '"chatgpt.com:1"', '"claude.ai"', "[]", "{}"]),
    st.integers().map(str),
    st.integers(min_value=17, max_value=6000).map(lambda n: "9" * n),  # past ids, past int()'s limit
    st.floats(allow_nan=False, allow_infinity=False).map(repr).filter(lambda s: "e" in s or "." in s),
    st.text(max_size=40).map(json.dumps),
    st.integers(min_value=0, max_value=300_000).map(lambda n: json.dumps("x" * n)),
)
names = st.one_of(st.sampled_from(FIELDS), st.text(max_size=12))


def _object(items: dict) -> str:
    return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in items.items()) + "}"


values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"),
    st.dictionaries(names, inner, max_size=4).map(_object),
), max_leaves=12)


def _hostile_id_reply_ids(id_raw: str) -> set:
    """The ids a reply to a frame with this id may carry: None, or the id itself if it is a valid one."""
    try:
        value = json.loads(id_raw)
    except ValueError:
        return {None}
    return {None, value} if is_request_id(value) else {None}


@st.composite
def frames(draw):
    """A function of the request id to use: it returns (body, the ids its reply may carry)."""
    kind = draw(st.sampled_from(["request", "request", "request", "hostile id", "bytes", "cut"]))
    if kind == "bytes":
        body = draw(st.binary(max_size=300))
        return lambda rid: (body, {None})
    hostile_id = draw(values) if kind == "hostile id" else None
    type_raw = draw(st.one_of(st.sampled_from(TYPES).map(json.dumps), values))
    fields = draw(st.dictionaries(names.filter(lambda n: n not in ("id", "type")), values, max_size=6))
    cut = draw(st.floats(min_value=0, max_value=0.999))

    def build(rid: str):
        id_raw = hostile_id if hostile_id is not None else json.dumps(rid)
        text = "{" + f'"id":{id_raw},"type":{type_raw}' + "".join(
            f",{json.dumps(k)}:{v}" for k, v in fields.items()) + "}"
        if kind == "cut":
            return text[:int(len(text) * cut)].encode(), {None}
        # A long number anywhere makes the frame bad_json, whose reply has no id.
        return text.encode(), ({None, rid} if kind == "request" else _hostile_id_reply_ids(id_raw))

    return build


class Replies:
    """The host's replies in arrival order; a second reply to one of our ids fails the test."""

    def __init__(self, host):
        self.host, self.seen, self.pending = host, set(), []

    def first_of(self, wanted: set) -> dict:
        for i, reply in enumerate(self.pending):
            if reply["id"] in wanted:
                return self.pending.pop(i)
        while True:
            message = self.host.recv(timeout=WAIT)
            if "event" in message:
                continue
            assert set(message) >= {"id", "ok"}, message
            if isinstance(message["id"], str) and message["id"].startswith(("fz-", "ping-")):
                assert message["id"] not in self.seen, f"two replies to {message['id']!r}"
                self.seen.add(message["id"])
            if message["id"] in wanted:
                return message
            self.pending.append(message)


@pytest.fixture(scope="module")
def replies(host):
    return Replies(host)


@settings(max_examples=250, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(frame=frames())
def test_every_frame_is_answered_once_and_the_host_serves_on(host, replies, frame):
    n = len(replies.seen)
    body, reply_ids = frame(f"fz-{n}")
    ping_id = f"ping-{n}"
    host.send_raw(body)
    host.send({"id": ping_id, "type": "ping"})
    reply = replies.first_of(reply_ids)
    assert reply["ok"] or reply["error"]["code"] != "internal", reply
    if reply["id"] is None:
        assert reply["error"]["code"] in {"bad_json", "bad_request", "too_large"}, reply
    assert replies.first_of({ping_id})["ok"]
