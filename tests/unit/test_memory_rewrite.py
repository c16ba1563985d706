"""The draft's rewrite into kinds of fact (memory/meaning/rewrite.py, issue 29 item 5), its
parts on their own: the answer read defensively, the model asked once within a short time
limit and a small reply cap (against the suite's loopback OpenAI-compatible server), the
fusion with no rewrite exactly the offline one, and the switch stored off by default."""

import json
import threading
import time

import pytest

from support.fake_openai import fail, flood, garbage, hang, reply
from whiteboard.llm.endpoint import Endpoint, Timeouts
from whiteboard.llm.errors import ModelUnavailable, ReplyTooLarge
from whiteboard.memory.meaning import rewrite as R
from whiteboard.memory.recall.recall import REWRITE_WEIGHT, fuse_hybrid
from whiteboard.memory.store.settings import MemorySettingsStore
from whiteboard.protocol.errors import BadRequest, Unavailable

# ---- the answer, read defensively ---------------------------------------------------------


@pytest.mark.parametrize("answer, phrases", [
    ('{"kinds": ["diet", "allergies", "pregnancy"]}', ("diet", "allergies", "pregnancy")),
    ('["pets", "home"]', ("pets", "home")),
    ('Sure! ```json\n{"kinds": ["  food\\n preferences "]}\n```', ("food preferences",)),
    ('{"kinds": []}', ()),
    ('{"kinds": ["diet", "diet", 3, null, {"x": 1}, "", "health"]}', ("diet", "health")),
    ('{"kinds": "diet"}', ()),
    ('{"other": ["diet"]}', ()),
    ("I think you should order the salmon.", ()),
    ("{not json at all]", ()),
    ("", ()),
])
def test_the_answer_is_read_defensively(answer, phrases):
    assert R.parse_phrases(answer) == phrases


def test_at_most_so_many_phrases_of_so_many_characters():
    found = R.parse_phrases(json.dumps({"kinds": [f"kind {i} " + "x" * 50 for i in range(20)]}))
    assert len(found) == R.MAX_PHRASES and all(len(p) == R.MAX_PHRASE_CHARS for p in found)
    assert R.parse_phrases(json.dumps({"kinds": ["diet"] * 2000})) == ()  # over the answer cap: none


def test_the_prompt_carries_the_draft_only_as_the_users_message():
    messages = R.rewrite_messages("Which bedding is safest for my hamster?")
    assert messages[0] == {"role": "system", "content": R.SYSTEM}
    assert "Which bedding" in messages[1]["content"] and "Which bedding" not in messages[0]["content"]


# ---- the model asked once, briefly, with a small reply cap ---------------------------------


class Layer:
    """The host's model layer (llm/layer.py) as the rewrite sees it, pointed at the fake server."""

    def __init__(self, base_url, configured=True):
        self.base_url, self._configured = base_url, configured
        self.asked = []

    def configured(self):
        return self._configured

    def client(self, timeouts=None, retries=2, max_reply_bytes=None):
        from whiteboard.llm.client import ChatClient

        self.asked.append((timeouts, retries, max_reply_bytes))
        return ChatClient(Endpoint(self.base_url, "m"), timeouts, retries=retries, max_reply_bytes=max_reply_bytes)


def test_no_model_configured_no_rewrite(fake_openai):
    assert R.model_from(Layer(fake_openai.base_url, configured=False), threading.Event())() is None
    assert R.model_from(None, threading.Event())() is None


def test_one_try_a_short_time_limit_and_a_small_reply_cap(fake_openai):
    assert R.TIMEOUTS.total <= 5.0 and R.MAX_ANSWER_BYTES <= 4096
    layer = Layer(fake_openai.base_url)
    fake_openai.chat_answer = json.dumps({"kinds": ["diet"]})
    complete = R.model_from(layer, threading.Event())()
    assert R.ask(complete, "What should I cook?") == ("diet",)
    assert layer.asked == [(R.TIMEOUTS, 0, R.MAX_ANSWER_BYTES)]
    fake_openai.script(fail(503))
    with pytest.raises(ModelUnavailable):
        R.ask(complete, "What should I cook?")
    assert len(fake_openai.chat_requests()) == 2  # the 503 was not tried again


@pytest.mark.parametrize("step, error", [
    (garbage(b"\x00\xffnot json", content_type="application/json"), ModelUnavailable),
    (reply("x" * 100_000), ReplyTooLarge),
    (flood(50_000_000), ReplyTooLarge),
])
def test_garbage_and_huge_answers_fail_fast(fake_openai, step, error):
    fake_openai.script(step)
    complete = R.model_from(Layer(fake_openai.base_url), threading.Event())()
    started = time.monotonic()
    with pytest.raises(error):
        R.ask(complete, "What should I cook?")
    assert time.monotonic() - started < 2.0


def test_a_silent_endpoint_is_cut_at_the_time_limit(fake_openai, monkeypatch):
    monkeypatch.setattr(R, "TIMEOUTS", Timeouts(connect=0.5, read=0.5, total=0.5))
    fake_openai.script(hang(5))
    complete = R.model_from(Layer(fake_openai.base_url), threading.Event())()
    started = time.monotonic()
    with pytest.raises(ModelUnavailable):
        R.ask(complete, "What should I cook?")
    assert time.monotonic() - started < 2.0


# ---- the fusion: with no rewrite, exactly the offline one ---------------------------------


def test_no_rewrite_fuses_as_before_and_a_rewrite_adds_its_list():
    words, near = ["w1", "w2"], ["m1", "m2", "m3"]
    assert fuse_hybrid(words, near, [1.0, 1.0], extra=()) == fuse_hybrid(words, near, [1.0, 1.0])
    fused = fuse_hybrid(words, near, [1.0, 1.0], extra=((["k1", "m3"], REWRITE_WEIGHT),))
    assert set(fused) == {"w1", "w2", "m1", "m2", "m3", "k1"}
    assert fused.index("m3") < fuse_hybrid(words, near, [1.0, 1.0]).index("m3")  # found twice: higher


# ---- the switch, stored ----------------------------------------------------------------------


def test_the_switch_is_off_by_default_and_stored_as_a_boolean(tmp_path):
    store = MemorySettingsStore(tmp_path)
    assert store.load().rewrite_drafts is False
    assert store.update(rewrite_drafts=True).rewrite_drafts is True
    assert store.load().rewrite_drafts is True and store.load().pinned_tokens == 120
    assert store.update(pinned_tokens=10).rewrite_drafts is True  # another change keeps it
    with pytest.raises(BadRequest, match="rewrite_drafts"):
        store.update(rewrite_drafts="yes")
    store.path.write_text(json.dumps({"rewrite_drafts": 1}))
    with pytest.raises(Unavailable, match="malformed"):
        store.load()
