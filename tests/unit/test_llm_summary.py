"""The model-made rolling summary: never waits in the request path, held to 800 tokens,
extractive on failure, and a late model answer never overwrites a newer fold."""

import time

from support.fake_openai import fail, hang, reply
from support.waiting import wait_for
from whiteboard.config import Limits
from whiteboard.llm.layer import ModelLayer
from whiteboard.llm.settings import SettingsStore
from whiteboard.llm.summary import RefiningSummarizer
from whiteboard.sessions.store import SessionStore
from whiteboard.sessions.summary import fold_pending
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
CAP = 800


def summarizer_for(tmp_path, fake=None, read_timeout="5"):
    env = {"WHITEBOARD_LLM_BASE_URL": fake.base_url, "WHITEBOARD_LLM_MODEL": "summary-model",
           "WHITEBOARD_LLM_READ_TIMEOUT": read_timeout} if fake else {}
    store = SessionStore(Limits(max_messages=3))
    return store, RefiningSummarizer(TOKENS, store, ModelLayer(SettingsStore(tmp_path), env=env))


def fill(store, first=0, n=6, key="chatgpt.com:1"):
    for i in range(first, first + n):
        store.add(key, "user", f"Carol chose option {i} for the Zephyr launch.")
    return store.get(key)


def test_the_fold_is_extractive_at_once_then_the_model_summary_replaces_it(tmp_path, fake_openai):
    fake_openai.script(reply("- Carol settled on option 3 for Zephyr.", first_delay=0.5))
    store, summ = summarizer_for(tmp_path, fake_openai)
    session = fill(store)
    started = time.monotonic()
    assert fold_pending(session, summ, TOKENS, CAP)
    assert time.monotonic() - started < 0.3  # the model's 0.5 s never reaches the request path
    assert session.summary_method == "extractive" and "option 2" in session.summary
    assert summ.refining(session)
    assert wait_for(lambda: session.summary_method == "model")
    assert session.summary == "- Carol settled on option 3 for Zephyr."
    assert wait_for(lambda: not summ.refining(session))
    prompt = fake_openai.chat_requests()[0].json["messages"][1]["content"]
    assert "option 1" in prompt and "option 2" in prompt and "option 5" not in prompt  # only the dropped ones


def test_a_model_summary_is_held_to_800_tokens(tmp_path, fake_openai):
    many_lines = "\n".join(f"- point {i}: " + "Carol decided something important " * 12 for i in range(120))
    one_paragraph = "Carol decided something important " * 900
    for answer in (many_lines, one_paragraph):
        assert TOKENS.count(answer) > 3 * CAP
        fake_openai.script(reply(answer))
        store, summ = summarizer_for(tmp_path, fake_openai)
        session = fill(store)
        fold_pending(session, summ, TOKENS, CAP)
        assert wait_for(lambda session=session: session.summary_method == "model")
        assert 0 < TOKENS.count(session.summary) <= CAP


def test_a_failing_model_leaves_the_extractive_summary(tmp_path, fake_openai):
    fake_openai.script(fail(401))
    store, summ = summarizer_for(tmp_path, fake_openai)
    session = fill(store)
    fold_pending(session, summ, TOKENS, CAP)
    extractive = session.summary
    assert wait_for(lambda: fake_openai.chat_requests() and not summ.refining(session))
    assert session.summary == extractive and session.summary_method == "extractive"


def test_a_model_timeout_leaves_the_extractive_summary(tmp_path, fake_openai):
    fake_openai.script(hang(5))
    store, summ = summarizer_for(tmp_path, fake_openai, read_timeout="0.3")
    session = fill(store)
    fold_pending(session, summ, TOKENS, CAP)
    extractive = session.summary
    assert wait_for(lambda: not summ.refining(session), timeout=3)
    assert session.summary == extractive and session.summary_method == "extractive"


def test_a_late_model_answer_never_overwrites_a_newer_fold(tmp_path, fake_openai):
    fake_openai.script(reply("STALE MODEL SUMMARY", first_delay=0.6), fail(401))
    store, summ = summarizer_for(tmp_path, fake_openai)
    session = fill(store)
    fold_pending(session, summ, TOKENS, CAP)
    assert wait_for(lambda: len(fake_openai.chat_requests()) == 1)
    fill(store, first=6, n=2)  # more messages dropped while the model is busy
    fold_pending(session, summ, TOKENS, CAP)
    assert wait_for(lambda: len(fake_openai.chat_requests()) == 2 and not summ.refining(session))
    time.sleep(0.1)
    assert "STALE" not in session.summary and session.summary_method == "extractive"
    assert "option 4" in session.summary  # the newer fold's content is there
    # The second refinement saw the first fold's summary plus only the newly dropped messages.
    second = fake_openai.chat_requests()[1].json["messages"][1]["content"]
    assert "option 2" in second.split("New messages:")[0] and "option 1" not in second.split("New messages:")[1]


def test_a_cleared_session_is_left_alone(tmp_path, fake_openai):
    fake_openai.script(reply("MODEL SUMMARY", first_delay=0.3))
    store, summ = summarizer_for(tmp_path, fake_openai)
    session = fill(store)
    fold_pending(session, summ, TOKENS, CAP)
    store.clear("chatgpt.com:1")
    assert wait_for(lambda: not summ.refining(session))
    assert session.summary_method == "extractive" and store.get("chatgpt.com:1") is None


def test_without_a_model_nothing_is_sent(tmp_path, fake_openai):
    store, summ = summarizer_for(tmp_path)
    session = fill(store)
    fold_pending(session, summ, TOKENS, CAP)
    assert session.summary and session.summary_method == "extractive"
    assert not summ.refining(session)
    assert fake_openai.requests == []
