"""Seed-middle-tail builder (design §4): budget, seed, tail, middle, no duplicates."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whiteboard.config import Limits
from whiteboard.sessions.context import INSTRUCTIONS, Kept, build_context
from whiteboard.sessions.relevance import PASSAGE_CHARS, passages
from whiteboard.sessions.store import SessionStore
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
assert TOKENS.ready, TOKENS.load_error


def make_session(texts, limits=Limits(), roles=None):
    store = SessionStore(limits)
    for i, text in enumerate(texts):
        role = roles[i] if roles else ("user" if i % 2 == 0 else "assistant")
        store.add("chatgpt.com:1", role, text)
    return store.get("chatgpt.com:1")


def build(session, budget=2000, mode="follow_up", limits=Limits(), **kw):
    return build_context(session, budget, mode, TOKENS, limits, **kw)


def test_empty_or_missing_session_gives_empty_context():
    built = build(None)
    assert (built.context, built.used_tokens, built.distilled) == ("", 0, False)


def test_small_conversation_is_kept_whole_in_order():
    session = make_session(["Plan a trip to Kyoto", "Sure: day one...", "Add a tea ceremony"])
    built = build(session)
    assert built.context.index("Plan a trip") < built.context.index("day one") < built.context.index("tea ceremony")
    assert not built.distilled
    assert built.used_tokens == TOKENS.count(built.context)


def test_used_tokens_is_the_exact_count_and_within_budget():
    session = make_session([f"message {i} " + "lorem ipsum " * 30 for i in range(40)])
    for budget in (1, 5, 20, 100, 500, 2000):
        built = build(session, budget)
        assert built.used_tokens == TOKENS.count(built.context) <= budget


def test_seed_survives_the_message_cap():
    """Known bug: the seed lost once the cap drops old messages."""
    limits = Limits(max_messages=5)
    session = make_session(["SEED: build a Chrome extension"] + [f"turn {i}" for i in range(20)], limits)
    assert session.count == 5
    built = build(session, limits=limits)
    assert "SEED: build a Chrome extension" in built.context
    assert built.distilled


def test_seed_larger_than_the_budget_is_cut_to_fit():
    """Known bug: the seed never checked against the budget."""
    session = make_session(["seed " + "word " * 5000, "short reply"])
    built = build(session, budget=50)
    assert built.used_tokens <= 50
    assert "seed word" in built.context
    assert built.distilled


def test_newest_message_never_appears_twice():
    """Known bug: the newest message repeated (tail plus 'latest')."""
    texts = [f"unique-marker-{i} some text" for i in range(10)]
    session = make_session(texts)
    built = build(session)
    for text in texts:
        assert built.context.count(text.split()[0]) <= 1


def test_excluded_message_is_not_in_context():
    session = make_session(["first", "second", "the draft being sent"])
    built = build(session, exclude_seq=3)
    assert "the draft being sent" not in built.context


def test_middle_goes_in_full_when_it_fits():
    long = "x" * 300
    session = make_session([f"m{i} {long}" for i in range(8)])
    built = build(session, budget=5000)
    for i in range(8):
        assert f"m{i} {long}" in built.context
    assert not built.distilled
    assert built.kept == Kept(full=8)


def test_what_does_not_fit_is_shortened_to_its_opening_sentences_newest_first():
    texts = [f"Message {i:02d} opens here. " + "Then it goes on with more detail. " * 12 for i in range(30)]
    session = make_session(texts)
    built = build(session, budget=600)
    lines = built.context.splitlines()
    full = [l for l in lines if l.startswith(("[user] ", "[assistant] "))]
    short = [l for l in lines if l.startswith("[excerpt ·")]
    assert len(full) >= 3 and short, built.context
    newest_short = max(int(l.split("Message ")[1][:2]) for l in short)
    oldest_full = min(int(l.split("Message ")[1][:2]) for l in full)
    assert newest_short < oldest_full  # newest in full, older ones shortened
    # A shortened message ends at a sentence or a word, never inside one.
    assert all(l.endswith(". …") or l.endswith("detail …") or l.endswith(" …") for l in short)
    assert built.kept.shortened == len(short) and built.kept.full == len(full) + 1  # + the seed


def test_middle_prefers_newest_when_the_budget_is_tight():
    session = make_session([f"message-{i:02d} " + "pad " * 20 for i in range(30)])
    built = build(session, budget=300)
    kept = [int(l.split("message-")[1][:2]) for l in built.context.splitlines() if "message-" in l][1:]
    assert kept, built.context
    assert 26 in kept  # 27-29 are the tail; the newest middle message comes first
    assert kept == sorted(kept)  # rendered in conversation order


@pytest.mark.parametrize("budget", [800, 1200, 2000])
def test_a_session_larger_than_the_budget_fills_it(budget):
    texts = [f"Turn {i}: we talked about item {i} and what it costs. It was fine. " * (1 + i % 4) for i in range(50)]
    session = make_session(texts)
    assert TOKENS.count("\n".join(texts)) > budget
    for query in (None, "what did item 7 cost?"):
        built = build(session, budget, query=query)
        assert budget * 0.98 <= built.used_tokens <= budget, (query, built.used_tokens)


def test_omitted_stretches_are_marked_with_how_many_messages_they_hold():
    session = make_session([f"Turn {i}: " + "words " * 40 for i in range(40)])
    built = build(session, budget=500)
    counts = [int(l.split("[… ")[1].split()[0]) for l in built.context.splitlines() if l.startswith("[… ")]
    assert counts and sum(counts) == built.kept.summarised == len(built.left_out)
    assert "left out" in built.context  # no summary yet


def test_stretches_the_summary_covers_say_so():
    session = make_session([f"Turn {i}: " + "words " * 40 for i in range(40)])
    session.summary, session.folded_through = "- user: decided to use Postgres", 35
    built = build(session, budget=700)
    assert "earlier messages, summarised above …]" in built.context


def test_a_query_brings_the_relevant_old_message_in_full():
    texts = [f"Turn {i}: small talk about the weather and lunch today." for i in range(40)]
    texts[5] = "My sister Ada moved to Lisbon last spring to study marine biology."
    session = make_session(texts)
    assert texts[5] not in build(session, budget=300).context
    built = build(session, budget=300, query="Where did Ada move to?")
    assert texts[5] in built.context
    assert built.used_tokens <= 300


def test_a_query_keeps_the_relevant_passage_of_a_long_message():
    filler = "\n\n".join(f"Paragraph {i} covers setup steps, options and defaults in detail." for i in range(30))
    answer = "The backup runs nightly at 02:00 and keeps fourteen snapshots."
    texts = ["Plan the server", filler + "\n\n" + answer + "\n\n" + filler] + [f"ok {i}" for i in range(10)]
    session = make_session(texts)
    built = build(session, budget=250, query="how many snapshots does the backup keep?")
    assert answer in built.context
    assert built.kept.shortened >= 1


def test_the_same_message_twice_matches_once():
    texts = ["seed", "the cat sat", "the cat sat", "x", "y", "z"]
    built = build(make_session(texts), query="cat")
    assert built.context.count("the cat sat") == 2  # two messages, each once
    assert built.kept == Kept(full=6)


@pytest.mark.parametrize("mode", ["follow_up", "new_selection"])
def test_prompt_modes_have_their_instruction(mode):
    built = build(make_session(["hello there", "hi"]), mode=mode)
    assert built.context.startswith(INSTRUCTIONS[mode])
    assert built.mode == mode


def test_new_selection_instruction_says_not_to_mention_it():
    assert "never mention" in INSTRUCTIONS["new_selection"]


def test_summary_is_included_when_present():
    session = make_session(["seed", "a", "b", "c", "d"])
    session.summary = "- user: decided to use Postgres"
    built = build(session)
    assert "decided to use Postgres" in built.context
    assert built.distilled


plain = st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=400)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies=st.lists(plain, max_size=60), budget=st.integers(min_value=1, max_value=3000),
       cap=st.integers(min_value=1, max_value=50), mode=st.sampled_from(["follow_up", "new_selection"]),
       summary=plain, query=st.one_of(st.none(), plain, st.sampled_from(["lorem", "<m3> 東京", "a b c"])))
def test_property_budget_never_exceeded_and_no_message_twice(bodies, budget, cap, mode, summary, query):
    limits = Limits(max_messages=cap)
    texts = [f"<m{i}> {body}" for i, body in enumerate(bodies)]
    session = make_session(texts, limits) if texts else None
    if session is not None:
        session.summary = summary
    built = build(session, budget, mode, limits, query=query)
    assert built.used_tokens == TOKENS.count(built.context)
    assert built.used_tokens <= budget
    for i in range(len(texts)):
        assert built.context.count(f"<m{i}>") <= 1
    if texts:
        assert sum(vars(built.kept).values()) == len(texts)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=1, max_value=120), budget=st.integers(min_value=30, max_value=2000),
       query=st.sampled_from([None, "turn 7", "something else"]))
def test_property_seed_always_present_when_budget_allows(n, budget, query):
    limits = Limits(max_messages=10)
    session = make_session(["SEEDTOKEN start"] + [f"turn {i}" for i in range(n)], limits)
    built = build(session, budget, limits=limits, query=query)
    assert "SEEDTOKEN" in built.context
    assert built.used_tokens <= budget


def test_huge_messages_cost_a_bounded_time():
    import time

    huge = ("word " * 400_000)[:2_000_000]
    session = make_session(["seed", huge, huge + "x", "a", "b", "c"])
    started = time.perf_counter()
    built = build(session, budget=500, query="word")
    assert built.used_tokens <= 500 and built.context.count("[excerpt ·") >= 1
    assert time.perf_counter() - started < 5.0  # hostile text: no quadratic step


@pytest.mark.parametrize("hostile", ["a. " * 400_000, "\n \n" * 400_000, "x" * 1_200_000, "é. 東京。" * 200_000])
def test_passages_split_hostile_text_in_linear_time(hostile):
    import time

    started = time.perf_counter()
    spans = passages(hostile)
    assert time.perf_counter() - started < 5.0
    assert all(b - a <= PASSAGE_CHARS for a, b in spans)
    assert all(a < b <= c for (a, b), (c, _) in zip(spans, spans[1:]))  # in order, never overlapping


def test_passages_are_paragraphs_then_runs_of_whole_sentences():
    text = "First paragraph.\n\nSecond one, " + "with many words. " * 60 + "\n\nThird."
    spans = passages(text)
    parts = [text[a:b] for a, b in spans]
    assert parts[0] == "First paragraph." and parts[-1] == "Third."
    assert all(p.endswith(".") for p in parts)  # the long paragraph splits after a sentence


def test_context_for_folds_the_same_whatever_is_asked():
    """What joins the rolling summary is what the context without a query leaves out."""
    from types import SimpleNamespace

    from whiteboard.actions.session import context_for
    from whiteboard.config import HostConfig
    from whiteboard.sessions.summary import ExtractiveSummarizer

    def app_with(texts):
        store = SessionStore(Limits())
        for i, text in enumerate(texts):
            store.add("chatgpt.com:1", "user" if i % 2 == 0 else "assistant", text)
        return SimpleNamespace(sessions=store, tokens=TOKENS, config=HostConfig(),
                               summarizer=ExtractiveSummarizer(TOKENS))

    texts = [f"Turn {i}: Erin decided on option {i} for the garden." + " More detail here." * 8 for i in range(40)]
    plain, asked = app_with(texts), app_with(texts)
    question = "Which option for the garden in turn 5?"
    for _ in range(3):  # each fold makes room for the summary, which may leave a little more out
        context_for(plain, "chatgpt.com:1", 600, "follow_up")
        first = context_for(asked, "chatgpt.com:1", 600, "follow_up", query=question)
    assert asked.sessions.get("chatgpt.com:1").summary == plain.sessions.get("chatgpt.com:1").summary != ""
    again = context_for(asked, "chatgpt.com:1", 600, "follow_up", query=question)
    assert again.context == first.context and "Turn 5:" in first.context
    asked.sessions.add("chatgpt.com:1", "user", "A new message changes what is left out.")
    after = context_for(asked, "chatgpt.com:1", 600, "follow_up", query=question)
    assert "A new message" in after.context and after.used_tokens <= 600
