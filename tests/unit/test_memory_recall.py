"""Recall: bm25 ranking, threshold, CJK via trigrams, near-duplicates, at most 5, token
cap, the injection block, and recall_for_send on the send path."""

import threading
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from whiteboard import text as T
from whiteboard.blocks import strip_blocks
from whiteboard.language import language
from whiteboard.memory.hub import count_use, recall_for_send
from whiteboard.memory.model import Memory, new_memory_id
from whiteboard.memory.recall import recall as recall_module
from whiteboard.memory.recall.index import MemoryIndex
from whiteboard.memory.recall.recall import STRONG_WORDS, RecallSettings, fuse_hybrid, recall
from whiteboard.memory.service import MemoryService
from whiteboard.sites import SiteStore
from whiteboard.tokens import TokenCounter

TOKENS = TokenCounter().load_now()
STRONG = STRONG_WORDS  # the rule's strong-words score, chosen by training/fusion.py


@pytest.fixture
def service(tmp_path):
    s = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                      sites=SiteStore(tmp_path / "config"))
    yield s
    s.close()


def put(service, *texts, type_="preference"):
    now = time.time()
    memories = [Memory(id=new_memory_id(), type=type_, text=t, created_at=now, updated_at=now) for t in texts]
    service.store(memories)
    return memories


def texts(result):
    return [m.text for m in result.memories]


def test_best_match_first_and_unrelated_queries_get_nothing(service):
    put(service, "Prefers coding in TypeScript", "Uses Claude Code and Cursor as development tools",
        "Building a Chrome extension for note taking", "Lives in Berlin with two cats")
    result = recall(service, TOKENS, "Which editor should I use for my Chrome extension? I use Cursor.")
    assert texts(result)[0] in ("Building a Chrome extension for note taking",
                                "Uses Claude Code and Cursor as development tools")
    assert set(texts(result)) == {"Building a Chrome extension for note taking",
                                  "Uses Claude Code and Cursor as development tools"}
    assert recall(service, TOKENS, "What's the weather like in Paris tomorrow?").memories == ()
    assert recall(service, TOKENS, "Can you please help me with this?").memories == ()


def test_word_variants_meet_through_sqlites_porter_stemmer(service):
    assert T.stems(["prefers", "preferred", "running", "runs", "libraries"]) == ["prefer", "prefer", "run", "run",
                                                                                  "librari"]
    put(service, "Has been running marathons since 2019", "Preferred libraries: numpy and pandas")
    assert texts(recall(service, TOKENS, "how many runs a week?")) == ["Has been running marathons since 2019"]
    assert texts(recall(service, TOKENS, "which library do I prefer?")) == ["Preferred libraries: numpy and pandas"]


def test_a_word_found_in_much_of_a_large_vault_is_not_enough(service):
    now = time.time()
    service.store([Memory(id=new_memory_id(), type="objective", text=f"Working on project {i} about item{i}",
                          created_at=now, updated_at=now) for i in range(1500)])
    put(service, "Prefers the Kotlin language")
    assert recall(service, TOKENS, "the project").memories == ()
    assert texts(recall(service, TOKENS, "project in kotlin"))[0] == "Prefers the Kotlin language"
    assert texts(recall(service, TOKENS, "project item77"))[0] == "Working on project 77 about item77"


def test_chinese_and_japanese_are_found_without_spaces(service):
    put(service, "我喜欢喝乌龙茶", "我在北京做软件工程师", "東京に住んでいます", "Prefers green tea")
    assert texts(recall(service, TOKENS, "推荐一些好喝的乌龙茶")) == ["我喜欢喝乌龙茶"]
    assert texts(recall(service, TOKENS, "北京的天气怎么样")) == ["我在北京做软件工程师"]
    assert texts(recall(service, TOKENS, "東京でおすすめのレストランは")) == ["東京に住んでいます"]


def test_the_function_words_of_other_languages_find_nothing():
    # Found on the held-out split (docs/memory.md, "Full text in other languages"): in a small vault
    # every word looks rare, so "se", "los", "mit der", "um" matched other facts by full text.
    now = time.time()
    index = MemoryIndex()
    index.put([Memory(f"m{i}", "context", t, now, now) for i, t in enumerate((
        "Se arranca el pelo si se pone nervioso", "Lo hace casi todo en el iPad", "Pendelt mit der Regionalbahn",
        "Tem um papagaio", "Suit le Tour de France chaque été", "Tiene un acuario con peces tropicales",
        "Has a son in college", "Wears a hat in the sun"))])
    found = {q: [h.memory.text for h in index.search(q, min_score=2.0)] for q in (
        "¿Cada cuánto cambio el agua y por qué se me mueren los neones en el acuario?",
        "Wie spreche ich „les amis“ mit der Bindung richtig aus?",
        "Quanto sal por dia posso usar, e vale a pena comprar um aparelho?",  # read as Spanish: pooled
        "Je cherche un jean : des marques en proposent ?",
        "What should my son pack, and which hat?")}
    assert found == {
        "¿Cada cuánto cambio el agua y por qué se me mueren los neones en el acuario?":
            ["Tiene un acuario con peces tropicales"],
        "Wie spreche ich „les amis“ mit der Bindung richtig aus?": [],
        "Quanto sal por dia posso usar, e vale a pena comprar um aparelho?": [],
        "Je cherche un jean : des marques en proposent ?": [],
        # English keeps its own words: "son" and "hat" are function words in Spanish and German only
        "What should my son pack, and which hat?": ["Has a son in college", "Wears a hat in the sun"]}


def test_a_texts_language_is_read_from_its_start_only():
    assert language("Je suis " + "x " * 100_000) == "fr"
    assert T.stopwords("Ganho um salário mínimo. Tem algum desconto?") >= {"um", "tem"}
    assert "son" not in T.stopwords("What should my son pack?")


def test_near_duplicates_are_shown_once(service):
    put(service, "Prefers TypeScript for frontend work", "Prefers TypeScript for all frontend work",
        "Uses TypeScript with React")
    result = recall(service, TOKENS, "typescript frontend")
    assert len(result.memories) == 2
    assert "Uses TypeScript with React" in texts(result)


def test_at_most_five(service):
    put(service, *[f"Plays chess variant {name}" for name in
                   ("blitz", "bullet", "rapid", "classical", "chess960", "crazyhouse", "atomic", "horde")])
    assert len(recall(service, TOKENS, "chess openings").memories) == 5
    assert len(recall(service, TOKENS, "chess openings", limit=2).memories) == 2


def test_block_respects_the_token_cap(service):
    long = "Prefers detailed answers about astronomy " + "with many long digressions about telescopes " * 30
    put(service, long[:990], "Likes astronomy podcasts", "Owns an astronomy telescope")
    settings = RecallSettings(token_cap=80)
    result = recall(service, TOKENS, "astronomy telescope", settings=settings)
    assert 0 < result.tokens <= 80 and TOKENS.count(result.block) == result.tokens
    big = recall(service, TOKENS, "astronomy telescope", settings=RecallSettings(token_cap=2000))
    assert len(big.memories) == 3 and big.tokens > 80


def test_block_format_and_html_text_verbatim(service):
    html = 'Prefers <b>bold</b> headings <img src=x onerror="alert(1)"> in notes'
    put(service, html)
    result = recall(service, TOKENS, "headings in my notes")
    assert result.block.splitlines()[0] == "---"
    assert result.block.splitlines()[1] == "[Whiteboard context · 1 memory]"
    assert f"] {html}" in result.block
    assert result.memories[0].text == html
    assert strip_blocks("my question\n\n" + result.block) == "my question"


def test_an_injected_block_in_the_draft_is_not_a_query(service):
    put(service, "Prefers Haskell")
    block = recall(service, TOKENS, "haskell").block
    assert recall(service, TOKENS, "What time is it?\n\n" + block).memories == ()


def test_recall_for_send_only_on_opted_in_unpaused_sites(app):
    app.memory.add("Prefers TypeScript", "preference")
    draft = "How do I type a React prop in TypeScript?"
    assert recall_for_send(app, "chatgpt.com", draft).block == ""
    app.memory.sites.update("chatgpt.com", long_term=True)
    assert texts(recall_for_send(app, "chatgpt.com", draft)) == ["Prefers TypeScript"]
    app.memory.sites.update("chatgpt.com", paused=True)
    assert recall_for_send(app, "chatgpt.com", draft).block == ""


def test_usage_is_written_off_the_send_path(app):
    memory, _ = app.memory.add("Prefers TypeScript", "preference")
    app.memory.sites.update("claude.ai", long_term=True)
    release = threading.Event()
    write = app.memory.usage._write
    app.memory.usage._write = lambda ids, when: (release.wait(10), write(ids, when))
    started = time.perf_counter()
    result = recall_for_send(app, "claude.ai", "typescript generics")
    count_use(app, [m.id for m in result.memories])
    assert texts(result) == ["Prefers TypeScript"] and time.perf_counter() - started < 1.0
    assert app.memory.get(memory.id).usage_count == 0  # not yet: the writer is held
    release.set()
    assert app.memory.usage.flush()
    reopened = MemoryService(app.memory.vault_path, app.memory.key_path)
    assert reopened.get(memory.id).usage_count == 1 and reopened.get(memory.id).last_used_at is not None


def test_recalling_alone_counts_no_use(app):
    memory, _ = app.memory.add("Prefers TypeScript", "preference")
    app.memory.sites.update("claude.ai", long_term=True)
    assert texts(recall_for_send(app, "claude.ai", "typescript generics")) == ["Prefers TypeScript"]
    assert app.memory.usage.flush()
    assert app.memory.get(memory.id).usage_count == 0


def test_recall_for_send_never_raises(app, tmp_path):
    app.memory.add("Prefers TypeScript", "preference")
    app.memory.sites.update("claude.ai", long_term=True)
    app.memory.close()
    (tmp_path / "config" / "secret.key").write_bytes(b"\x00" * 32)
    result = recall_for_send(app, "claude.ai", "typescript")
    assert result.block == "" and "wrong key" in result.note
    assert recall_for_send(app, "not a site!", "typescript").block == ""


def test_recall_for_send_survives_a_bug_in_recall(app, monkeypatch, caplog):
    """Not only the named errors: any failure inside recall gives an empty result with a note,
    and the log names the error's type, never the draft."""
    app.memory.add("Prefers TypeScript", "preference")
    app.memory.sites.update("claude.ai", long_term=True)

    def broken(*args, **kwargs):
        raise ValueError("secret draft text")

    monkeypatch.setattr(app.memory.index, "search", broken)
    result = recall_for_send(app, "claude.ai", "typescript please")
    assert result.block == "" and result.note == "recall failed (ValueError); sent without memories"
    assert "secret draft text" not in caplog.text and "typescript" not in caplog.text


# ---- fusing full text with meanings (recall.fuse_hybrid) -------------------------------------

def test_plain_fusion_lets_the_meanings_best_pass_full_texts_best():
    # Meaning weight 1.5 > 1: the meanings' first two outscore full text's first.
    assert fuse_hybrid(["w1", "w2"], ["m1", "m2"]) == ["m1", "m2", "w1", "w2"]
    assert fuse_hybrid(["w1", "w2"], ["m1", "m2"], [9.0, 9.0], strong=None) == ["m1", "m2", "w1", "w2"]
    assert fuse_hybrid(["w1", "w2"], ["m1", "m2"], [STRONG - 1, STRONG - 1]) == ["m1", "m2", "w1", "w2"]  # not strong
    assert fuse_hybrid(["w1", "w2"], ["m1", "m2"], [STRONG, STRONG]) == ["w1", "w2", "m1", "m2"]  # as shipped


def test_a_strong_full_text_hit_keeps_its_rank_and_a_weak_one_does_not():
    meanings = ["m1", "m2", "m3", "m4"]
    strong = fuse_hybrid(["w1", "w2"], meanings, [STRONG, STRONG - 0.1], strong=STRONG)
    assert strong[0] == "w1" and strong.index("w2") > 1
    weak = fuse_hybrid(["w1", "w2"], meanings, [STRONG - 0.1, STRONG - 0.1], strong=STRONG)
    assert weak == fuse_hybrid(["w1", "w2"], meanings)


def test_a_strong_hit_the_meanings_rank_higher_keeps_the_higher_place():
    # "b" is third in full text but first in meanings: fused, it leads; being strong never
    # moves it down to its full-text rank.
    weak = STRONG - 1
    assert fuse_hybrid(["w1", "w2", "b"], ["b", "m2"], [weak, weak, STRONG], strong=STRONG)[0] == "b"


@given(st.lists(st.integers(0, 30), unique=True, max_size=12), st.lists(st.integers(0, 30), unique=True, max_size=12),
       st.lists(st.floats(0, 12), min_size=12, max_size=12))
def test_fusion_returns_every_memory_once_and_no_strong_hit_below_its_full_text_rank(words, near, scores):
    fused = fuse_hybrid(words, near, scores[:len(words)], strong=STRONG)
    assert sorted(fused) == sorted(set(words) | set(near))
    for rank, (item, score) in enumerate(zip(words, scores)):
        if score >= STRONG:
            assert fused.index(item) <= rank


def test_recall_hands_full_texts_scores_to_the_fusion_and_a_strong_word_hit_keeps_its_rank(service, monkeypatch):
    # Full text alone finds the memory naming three rare words, strongly enough to keep its
    # full-text rank (first) in the fusion, above the meaning hit that plain fusion (weight 1.5)
    # would have put first.
    seen = []
    real = recall_module.fuse_hybrid
    monkeypatch.setattr(recall_module, "fuse_hybrid", lambda *a, **k: seen.append(a) or real(*a, **k))

    class Meanings:  # one meaning hit, another memory, so the fusion has two lists
        reason = None
        embedder = object()

        def __init__(self, other):
            self.other = other
            self.vectors = self

        def begin_query(self, text, key=None):
            return lambda: (np.ones(2, dtype=np.float32), None)

        def is_current(self, memory):
            return True

        def search(self, vector, depth, floor):
            return [(self.other.id, 0.9)]

    both, other = put(service, "Keeps bees and sells Ligurian chestnut honey", "Prefers tea")
    monkeypatch.setattr(service, "meanings", Meanings(other))
    result = recall(service, TOKENS, "Ligurian chestnut honey prices")
    assert result.method == "hybrid" and texts(result) == [both.text, other.text]
    assert fuse_hybrid([both.id], [other.id], [STRONG], strong=None) == [other.id, both.id]  # plain fusion
    (full_text, near, scores), = seen
    assert [m.id for m in full_text] == [both.id] and scores[0] >= STRONG and near == [other]
