"""Rolling summary (design §4): incremental, extractive, <= 800 tokens, never empty."""

from whiteboard.config import Limits
from whiteboard.sessions.store import Message, SessionStore
from whiteboard.sessions.summary import ExtractiveSummarizer, fold_pending, hold_to_cap
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()


def msg(seq, text, role="user"):
    return Message(seq, role, text, 0.0)


def test_extractive_keeps_sentences_with_signals_newest_first():
    summ = ExtractiveSummarizer(TOKENS)
    text = summ.fold("", [msg(2, "ok. We decided to use Postgres."), msg(3, "Alice joined on 3 March. hmm.")], 800)
    lines = text.splitlines()
    assert "Alice joined on 3 March." in lines[0]
    assert any("decided to use Postgres" in l for l in lines)
    assert not any(l.endswith(": ok.") or l.endswith(": hmm.") for l in lines)


def test_never_empty_while_dropped_content_exists():
    summ = ExtractiveSummarizer(TOKENS)
    assert summ.fold("", [msg(2, "ok")], 800) != ""


def test_summary_is_held_to_its_cap():
    summ = ExtractiveSummarizer(TOKENS)
    many = [msg(i, f"Bob decided on plan {i} with budget {i * 100} dollars. " * 5) for i in range(2, 400)]
    text = summ.fold("", many, 800)
    assert 0 < TOKENS.count(text) <= 800


def test_hold_to_cap_enforces_the_cap_on_any_text():
    text = "\n".join(f"- line {i} " + "word " * 50 for i in range(200))
    held = hold_to_cap(text, TOKENS, 800)
    assert 0 < TOKENS.count(held) <= 800
    single = "x" * 20000  # one enormous line is cut, not dropped
    assert 0 < TOKENS.count(hold_to_cap(single, TOKENS, 800)) <= 800


def test_fold_is_incremental():
    store = SessionStore(Limits(max_messages=3))
    for i in range(6):
        store.add("a:1", "user", f"Carol chose option {i}.")
    session = store.get("a:1")

    calls = []

    class Recording(ExtractiveSummarizer):
        def fold(self, previous, messages, max_tokens):
            calls.append([m.seq for m in messages])
            return super().fold(previous, messages, max_tokens)

    summ = Recording(TOKENS)
    assert fold_pending(session, summ, TOKENS, 800)
    assert calls == [[2, 3]]
    assert fold_pending(session, summ, TOKENS, 800) is False
    store.add("a:1", "user", "Carol chose option 6.")
    fold_pending(session, summ, TOKENS, 800)
    assert calls == [[2, 3], [4]]
    assert "option 3" in session.summary.splitlines()[0]  # seq 4 holds "option 3"


def test_a_failing_summarizer_falls_back_to_extractive():
    store = SessionStore(Limits(max_messages=2))
    for i in range(4):
        store.add("a:1", "user", f"Dave prefers tea number {i}.")
    session = store.get("a:1")

    class Broken:
        method = "model"

        def fold(self, previous, messages, max_tokens):
            raise TimeoutError("model timed out")

    fold_pending(session, Broken(), TOKENS, 800)
    assert session.summary and session.summary_method == "extractive"
