"""Asking about a selection in the page's panel: real Chromium, the real extension, the
real host pointed at the loopback OpenAI-compatible test server (real HTTP, real SSE)."""

import tempfile
import time
from pathlib import Path

import pytest

from e2e.harness import (
    capture_selection,
    open_chat,
    session_key,
    session_messages,
    shadow_ui,
    sim,
    wait_for,
)
from e2e.support_models import (
    ModelBrowser,
    ask,
    click_panel,
    fake_llm_env,
    panel_part_visible,
    panel_text,
    panel_texts,
)
from support.fake_openai import FakeOpenAI, hang, reply
from whiteboard.llm.prompts import MODE_RULES

ARTICLE = "https://news.example/kyoto"


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def browser(playwright, fake):
    with tempfile.TemporaryDirectory(prefix="wb-e2e-ask-") as tmp:
        b = ModelBrowser(playwright, Path(tmp), fake_llm_env(fake))
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(autouse=True)
def fresh_script(fake):
    """What a test scripted and its request never took does not answer the next test's."""
    yield
    fake.unscript()


def wait_answer_start(page, fake, asked_before: int):
    """The streamed answer begins ("part0 part1"); on a timeout, says what the panel and the
    endpoint saw, which a bare timeout would not."""
    try:
        wait_for(lambda: panel_text(page, "answer").startswith("part0 part1"), timeout=10, what="the answer to start")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: panel status {panel_text(page, 'ask-status')!r}, answer "
                             f"{panel_text(page, 'answer')[:80]!r}, requests to the endpoint since the ask "
                             f"{len(fake.chat_requests()) - asked_before}") from None


def user_message(request) -> str:
    return request.json["messages"][-1]["content"]


def system_message(request) -> str:
    return request.json["messages"][0]["content"]


def open_article(browser, page) -> str:
    page.goto(ARTICLE)
    key = session_key(browser.context, page)
    capture_selection(browser, page, "#plain", key)
    wait_for(lambda: panel_part_visible(page, "question-input"), what="the question box")
    return key


def test_answer_streams_in_progressively_then_follow_up(browser, page, fake):
    chunks = ["Kyoto ", "has ", "many ", "temples ", "because ", "it was ", "the capital."]
    fake.script(reply(chunks=chunks, chunk_delay=0.35), reply("Yes, about 400 of them.", chunk_delay=0.05))
    key = open_article(browser, page)
    n = len(fake.chat_requests())
    ask(page, "Why so many temples?")

    full = "".join(chunks)
    states: list[str] = []
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        text = panel_text(page, "answer")
        if text and (not states or states[-1] != text):
            states.append(text)
        if text == full and "Answered" in panel_text(page, "ask-status"):
            break
        time.sleep(0.05)
    assert states[-1] == full, states
    partial = [s for s in states if s != full]
    assert len(partial) >= 2, f"expected at least two intermediate states, saw {states}"
    assert all(full.startswith(s) for s in partial), states
    assert not panel_part_visible(page, "stop")

    first = fake.chat_requests()[n]
    assert "<selection>" in user_message(first) and "1,600 Buddhist temples" in user_message(first)
    assert user_message(first).endswith("Why so many temples?")
    assert "nothing else in this tab yet" in panel_text(page, "ask-status")  # not "0 / 2000 tokens"

    # The next question in the same panel is a follow-up: no selection again, the exchange as context.
    ask(page, "And shrines?")
    wait_for(lambda: panel_texts(page, "answer")[-1:] == ["Yes, about 400 of them."] and
             "Answered" in panel_text(page, "ask-status"), timeout=10, what="the follow-up")
    follow = fake.chat_requests()[n + 1]
    assert "<selection>" not in user_message(follow)
    assert "tokens of this tab's context" in panel_text(page, "ask-status")
    assert MODE_RULES["follow_up"] in system_message(follow)
    assert "Why so many temples?" in system_message(follow)
    assert panel_texts(page, "question") == ["Why so many temples?", "And shrines?"]

    contents = [(m["role"], m["content"]) for m in session_messages(browser.context, key)]
    assert ("user", "Why so many temples?") in contents and ("assistant", full) in contents
    assert ("assistant", "Yes, about 400 of them.") in contents


def test_stop_cancels_the_answer(browser, page, fake):
    chunks = [f"part{i} " for i in range(30)]
    fake.script(reply(chunks=chunks, chunk_delay=0.3))
    key = open_article(browser, page)
    asked_before = len(fake.chat_requests())
    ask(page, "Tell me everything")
    wait_answer_start(page, fake, asked_before)
    assert panel_part_visible(page, "stop")
    click_panel(page, "stop")
    wait_for(lambda: panel_text(page, "ask-status") == "Stopped.", timeout=5, what="the stop")
    stopped = panel_text(page, "answer")
    time.sleep(1.2)  # the stream would have gone on for ~8 s more
    assert panel_text(page, "answer") == stopped
    assert stopped.startswith("part0 ") and len(stopped) < len("".join(chunks))
    assert not panel_part_visible(page, "stop") and panel_part_visible(page, "ask")
    answers = [m["content"] for m in session_messages(browser.context, key) if m["role"] == "assistant"]
    assert answers == [stopped]  # what was shown is what the session keeps


def test_closing_the_panel_stops_the_answer(browser, page, fake):
    chunks = [f"part{i} " for i in range(30)]
    fake.script(reply(chunks=chunks, chunk_delay=0.3))
    key = open_article(browser, page)
    asked_before = len(fake.chat_requests())
    ask(page, "Tell me everything")
    wait_answer_start(page, fake, asked_before)
    click_panel(page, "close")

    def kept_answer():
        answers = [m["content"] for m in session_messages(browser.context, key) if m["role"] == "assistant"]
        return answers[0] if answers else None

    # The cancelled exchange joins the session at once, well before the ~9 s stream would end.
    wait_for(lambda: kept_answer() is not None, timeout=4, what="the cancelled answer in the session")
    assert kept_answer().startswith("part0 ") and len(kept_answer()) < len("".join(chunks))


def test_stop_works_before_the_first_word(browser, page, fake):
    # The model is silent: the stop still reaches the host (the worker knows the request id).
    fake.script(hang(8))
    key = open_article(browser, page)
    ask(page, "Anything?")
    wait_for(lambda: panel_part_visible(page, "stop"), what="the stop button")
    time.sleep(0.5)
    started = time.monotonic()
    click_panel(page, "stop")
    wait_for(lambda: panel_text(page, "ask-status") == "Stopped.", timeout=4, what="the stop")
    assert time.monotonic() - started < 3
    assert panel_text(page, "answer") == ""
    assert [m["source"] for m in session_messages(browser.context, key)] == ["selection"]


def test_asking_on_a_chat_page_does_not_send_the_chat(browser, page, fake):
    # Enter in the panel's box is the panel's: the site's composer and send stay untouched.
    fake.script(reply("An answer about the selection.", chunk_delay=0.02))
    open_chat(page, "chatgpt", "acb__chatgpt_2026-04-13", reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, "[data-message-author-role=assistant] .markdown p", key)
    wait_for(lambda: panel_part_visible(page, "question-input"), what="the question box")
    ask(page, "What is this?")
    wait_for(lambda: "Answered" in panel_text(page, "ask-status"), timeout=10, what="the answer")
    assert panel_text(page, "answer") == "An answer about the selection."
    time.sleep(0.5)
    assert sim(page, "window.__sim.sent") == []


def test_an_answer_with_html_is_shown_as_text(browser, page, fake):
    hostile = '<img src=x onerror="window.__pwned=1"><b>bold</b> <script>window.__pwned=2</script>'
    fake.script(reply(hostile, chunk_delay=0.02))
    open_article(browser, page)
    ask(page, "Show me markup")
    wait_for(lambda: "Answered" in panel_text(page, "ask-status"), timeout=10, what="the answer")
    assert panel_text(page, "answer") == hostile
    tags = shadow_ui(page, "whiteboard-panel")["tags"]
    assert "img" not in tags and "b" not in tags and "script" not in tags
    assert page.evaluate("() => window.__pwned") is None


def test_without_a_model_the_panel_says_where_to_configure_one(playwright):
    with tempfile.TemporaryDirectory(prefix="wb-e2e-nomodel-") as tmp:
        b = ModelBrowser(playwright, Path(tmp), {})
        try:
            page = b.context.new_page()
            key = open_article(b, page)
            ask(page, "Why so many temples?")
            wait_for(lambda: "options page" in panel_text(page, "ask-status"), timeout=10, what="the unavailable hint")
            assert panel_texts(page, "answer") == []
            assert panel_part_visible(page, "options-link") and not panel_part_visible(page, "stop")
            # Nothing joined the session but the captured selection.
            assert [m["source"] for m in session_messages(b.context, key)] == ["selection"]
            with b.context.expect_page() as opened:
                click_panel(page, "options-link")
            options = opened.value
            options.wait_for_load_state()
            assert options.url.endswith("/options/options.html")
        finally:
            b.close()
