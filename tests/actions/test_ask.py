"""ask.start / ask.cancel through the real dispatch core in-process, the model a real HTTP server on loopback."""

import time

import pytest

from support.fake_openai import cut, fail, garbage, hang, reply
from support.host import isolated_env
from support.inprocess import InProcessHost

KEY = "chatgpt.com:7"
SLOW = " ".join(f"w{i}" for i in range(40))


def model_env(tmp_path, fake, **extra):
    return isolated_env(tmp_path / "env", WHITEBOARD_LLM_BASE_URL=fake.base_url, WHITEBOARD_LLM_MODEL="fake-model",
                        **extra)


@pytest.fixture
def host(tmp_path, fake_openai):
    with InProcessHost(env=model_env(tmp_path, fake_openai)) as h:
        yield h


def ask(host, rid, **fields):
    host.send({"id": rid, "type": "ask.start", "key": KEY, **fields})


def collect(host, rid, timeout=15.0):
    """Events for rid, then its reply."""
    events = []
    while True:
        msg = host.recv(timeout)
        if msg.get("id") == rid:
            return events, msg
        assert msg.get("event") == "ask.delta" and msg.get("ref") == rid, msg
        events.append(msg)


def test_the_answer_streams_as_deltas_then_one_reply(host, fake_openai):
    fake_openai.script(reply("Postgres fits because you need joins."))
    host.request("session.add", key=KEY, role="user", content="We are picking a database for Zephyr.")
    ask(host, "q1", question="Why this one?", selection="PostgreSQL is a relational database.")
    events, final = collect(host, "q1")
    assert len(events) == 6 and all(set(e) == {"event", "ref", "text"} for e in events)
    assert final["ok"] and "".join(e["text"] for e in events) == final["answer"]
    assert final["answer"] == "Postgres fits because you need joins."
    assert final["cancelled"] is False and final["budget"] == 2000 and 0 < final["used_tokens"] <= 2000
    system, user = fake_openai.chat_requests()[0].json["messages"]
    assert "refer to it openly" in system["content"] and "picking a database for Zephyr" in system["content"]
    assert "PostgreSQL is a relational database." in user["content"] and user["content"].endswith("Why this one?")
    assert host.request("ping")["ok"]  # nothing stray after the reply


def test_new_selection_mode_keeps_the_context_in_the_background(host, fake_openai):
    host.request("session.add", key=KEY, role="user", content="Earlier we discussed Zephyr's launch date.")
    ask(host, 1, question="Translate this.", selection="Bonjour", mode="new_selection")
    assert collect(host, 1)[1]["ok"]
    system = fake_openai.chat_requests()[0].json["messages"][0]["content"]
    assert "Never mention it" in system and "launch date" in system


def test_the_exchange_joins_the_session(host, fake_openai):
    fake_openai.script(reply("It greets you."))
    ask(host, 1, question="What does it say?", selection="Bonjour tout le monde")
    assert collect(host, 1)[1]["ok"]
    messages = host.request("session.get", key=KEY)["messages"]
    assert [(m["role"], m["source"], m["content"]) for m in messages] == [
        ("user", "selection", "Bonjour tout le monde"), ("user", "chat", "What does it say?"),
        ("assistant", "chat", "It greets you.")]
    # A follow-up sees the first exchange as context.
    ask(host, 2, question="And in German?")
    assert collect(host, 2)[1]["ok"]
    assert "It greets you." in fake_openai.chat_requests()[1].json["messages"][0]["content"]


def test_a_captured_selection_is_neither_stored_nor_sent_twice(host, fake_openai):
    host.request("session.add", key=KEY, role="user", content="SELECTED-PASSAGE about tides", source="selection")
    ask(host, 1, question="Summarise it.", selection="SELECTED-PASSAGE about tides")
    assert collect(host, 1)[1]["ok"]
    body = fake_openai.chat_requests()[0].body.decode()
    assert body.count("SELECTED-PASSAGE") == 1
    contents = [m["content"] for m in host.request("session.get", key=KEY)["messages"]]
    assert contents.count("SELECTED-PASSAGE about tides") == 1


def test_secrets_and_private_text_never_reach_the_model_or_the_session(host, fake_openai):
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    ask(host, 1, question=f"Is {secret} valid? <private>my diary</private>", selection="PASSWORD=hunter2hunter2")
    assert collect(host, 1)[1]["ok"]
    body = fake_openai.chat_requests()[0].body.decode()
    assert secret not in body and "my diary" not in body and "hunter2" not in body and "[REDACTED]" in body
    stored = str(host.request("session.get", key=KEY)["messages"])
    assert secret not in stored and "my diary" not in stored and "hunter2" not in stored


def test_cancel_stops_the_answer_at_once(host, fake_openai):
    fake_openai.script(reply(SLOW, chunk_delay=0.3))
    ask(host, "a", question="Go on.")
    first = host.recv()
    assert first["event"] == "ask.delta" and first["ref"] == "a"
    host.send({"id": "c", "type": "ask.cancel", "ref": "a"})
    sent = time.monotonic()
    replies = {}
    events = [first]
    while len(replies) < 2:
        msg = host.recv()
        if "id" in msg:
            replies[msg["id"]] = msg
        else:
            events.append(msg)
    assert time.monotonic() - sent < 1.5
    assert replies["c"] == {"id": "c", "ok": True, "cancelled": True}
    final = replies["a"]
    assert final["ok"] and final["cancelled"] is True
    assert final["answer"] == "".join(e["text"] for e in events) and len(final["answer"]) < len(SLOW)
    assert host.request("ask.cancel", ref="a")["cancelled"] is False  # it is over


def test_cancel_while_the_model_is_still_silent(host, fake_openai):
    fake_openai.script(hang(30))
    ask(host, 1, question="Anything?")
    # No pause: the request is in flight from the moment it is read.
    assert host.request("ask.cancel", ref=1)["cancelled"] is True
    events, final = collect(host, 1, timeout=2)
    assert events == [] and final["ok"] and final["cancelled"] and final["answer"] == ""
    assert host.request("session.get", key=KEY)["ok"] is False  # nothing was said: nothing joined


def test_cancelling_nothing(host):
    assert host.request("ask.cancel", ref=424242) == {"id": 1, "ok": True, "cancelled": False}


def test_other_requests_are_served_while_an_answer_streams(host, fake_openai):
    fake_openai.script(reply(SLOW, chunk_delay=0.1))
    ask(host, "long", question="Tell me a story.")
    host.send({"id": "p", "type": "ping"})
    seen = []
    while "long" not in seen:
        msg = host.recv()
        seen.append(msg.get("id"))
        if msg.get("id") == "p":  # answered mid-stream: the rest of the story is not needed
            host.send({"id": "c", "type": "ask.cancel", "ref": "long"})
    assert seen.index("p") < seen.index("long")


def test_a_silent_model_is_unavailable_within_the_limit_and_the_host_keeps_serving(tmp_path, fake_openai):
    fake_openai.script(hang(20))
    with InProcessHost(env=model_env(tmp_path, fake_openai, WHITEBOARD_LLM_READ_TIMEOUT="1")) as host:
        started = time.monotonic()
        ask(host, 1, question="Hello?")
        events, final = collect(host, 1)
        assert time.monotonic() - started < 3.0
        assert final["error"]["code"] == "unavailable" and "sent nothing for 1 s" in final["error"]["message"]
        assert host.request("ping")["ok"]
        ask(host, 2, question="Again?")
        assert collect(host, 2)[1]["ok"]


def test_a_slow_model_hits_the_total_limit(tmp_path, fake_openai):
    fake_openai.script(reply(SLOW, chunk_delay=0.2))
    with InProcessHost(env=model_env(tmp_path, fake_openai, WHITEBOARD_LLM_TOTAL_TIMEOUT="1.5")) as host:
        started = time.monotonic()
        ask(host, 1, question="Long one.")
        events, final = collect(host, 1)
        assert time.monotonic() - started < 3.0 and events
        assert final["error"]["code"] == "unavailable" and "1.5 s time limit" in final["error"]["message"]


@pytest.mark.parametrize("step,words", [
    (garbage(b"<html>oops</html>"), "not chat-completion events"),
    (garbage(b"data: {nope\n\ndata: [DONE]\n\n"), "no readable answer"),
    (garbage(b"not json", content_type="application/json"), "not JSON"),
    (garbage(b'{"id": "x", "choices": []}', content_type="application/json"), "no choices"),
    (cut("one two three four", after=2), "cut short"),
    (fail(404), "no such model"),
    (fail(503, times=3, retry_after=0), "HTTP 503"),  # retried at once: the backoff is unit-tested
])
def test_garbage_is_unavailable_nothing_joins_and_the_host_keeps_serving(host, fake_openai, step, words):
    fake_openai.script(step)
    ask(host, 1, question="QUESTION-MARKER-55?")
    events, final = collect(host, 1)
    assert final["ok"] is False and final["error"]["code"] == "unavailable"
    assert final["error"]["reason"] == "model_unavailable"  # what the ask box branches on
    assert words in final["error"]["message"] and "QUESTION-MARKER" not in final["error"]["message"]
    assert host.request("session.get", key=KEY)["ok"] is False
    assert host.request("ping")["ok"]
    assert "reason" not in host.request("session.get", key=KEY)["error"]  # only where the UI branches


def test_no_model_is_unavailable_and_says_where_to_configure_one(tmp_path):
    with InProcessHost(env=isolated_env(tmp_path / "env")) as host:
        reply_ = host.request("ask.start", key=KEY, question="Hi?")
    assert reply_["error"]["code"] == "unavailable" and reply_["error"]["reason"] == "no_model"
    assert "options page" in reply_["error"]["message"] and "whiteboard config" in reply_["error"]["message"]


@pytest.mark.parametrize("fields", [
    {"key": KEY, "question": "Q", "mode": "sideways"},
    {"key": KEY, "question": ""},
    {"key": KEY},
    {"key": "no-colon", "question": "Q"},
    {"key": KEY, "question": "Q", "budget": 0},
    {"key": KEY, "question": "Q", "extra": 1},
])
def test_bad_ask_requests_are_bad_request(host, fields):
    assert host.request("ask.start", **fields)["error"]["code"] == "bad_request"


def test_a_question_that_is_only_private_text_is_refused(host, fake_openai):
    result = host.request("ask.start", key=KEY, question="<private>nothing to see</private>")
    assert result["error"]["code"] == "bad_request" and fake_openai.requests == []
