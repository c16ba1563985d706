"""Extraction: the rule extractor's choices, incremental runs per conversation, manual
"extract now", the model extractor against a real loopback server, and dedupe."""

import threading
import time

import pytest

from whiteboard.config import Limits
from whiteboard.llm.layer import ModelLayer
from whiteboard.llm.settings import SettingsStore
from whiteboard.memory.extract.candidate import Candidate
from whiteboard.memory.extract.conversation import ConversationExtractor, apply
from whiteboard.memory.extract.dedupe import decide
from whiteboard.memory.extract.extract import AUTOMATIC, MANUAL, rule_extract
from whiteboard.memory.extract.model_extract import model_from
from whiteboard.memory.service import MemoryService
from whiteboard.memory.store.settings import SUGGEST_BELOW
from whiteboard.protocol.bounds import MIN_SUGGEST_BELOW
from whiteboard.sessions.store import SessionStore
from whiteboard.sites import SiteStore


def facts(messages, thresholds=MANUAL):
    return {(c.type, c.text) for c in rule_extract(messages, thresholds)}


def test_lasting_first_person_facts_of_each_type():
    got = facts(["I prefer TypeScript over JavaScript. I'm a senior backend engineer and I live in Berlin.",
                 "I'm learning Japanese.", "My goal is to run a marathon next year.", "我喜欢喝乌龙茶。"])
    assert got == {("preference", "Prefers TypeScript over JavaScript"), ("skill", "Is a senior backend engineer"),
                   ("context", "Lives in Berlin"), ("objective", "Learning Japanese"),
                   ("objective", "Goal: run a marathon next year"), ("preference", "喜欢喝乌龙茶")}


def test_japanese_and_korean_facts_without_a_model():
    japanese = facts(["私はTypeScriptが好きです。東京に住んでいます。", "Pythonを勉強しています。",
                      "僕はエンジニアです。", "私の目標はフルマラソンを走ることです。"])
    assert japanese == {("preference", "TypeScriptが好き"), ("context", "東京に住んでいます"),
                        ("objective", "Pythonを勉強しています"), ("skill", "エンジニアです"),
                        ("objective", "目標はフルマラソンを走ることです")}
    korean = facts(["저는 서울에 살아요.", "저는 커피를 좋아해요.", "한국어를 배우고 있어요.", "저는 개발자입니다."])
    assert korean == {("context", "서울에 살아요"), ("preference", "커피를 좋아해요"),
                      ("objective", "한국어를 배우고 있어요"), ("skill", "개발자입니다")}


@pytest.mark.parametrize("message", [
    "Can you write me a cover letter?",
    "Please fix this code.",
    "I want you to summarize the article below.",
    "I need a regex for e-mail addresses.",
    "I like this answer, thanks!",
    "I love how you explained that.",
    "What do I prefer?",
    "I prefer the second option for now.",
    "```\nI prefer tabs. I live in Paris.\n```",
    "> I live in Paris and I prefer tabs.",
    'He told me: "I prefer tabs and I live in Paris, always."',
    "Here is the log I got:\n" + "\n".join(f"line {i}: I prefer retries and I live in Paris" for i in range(12)),
    "请帮我写一封邮件。",
    "これが好きです。",
    "このコードを使っています。",
    "東京に住んでいますか？",
    "이 코드를 좋아해요.",
    "이거 좋아해요?",
])
def test_one_off_requests_and_quoted_or_pasted_text_are_not_facts(message):
    assert facts([message]) == set()


def test_hedged_facts_fall_under_the_keep_threshold():
    [fact] = rule_extract(["I think I like Rust."], AUTOMATIC)
    assert fact.text == "Likes Rust" and fact.confidence < SUGGEST_BELOW  # a suggestion, not a memory
    assert rule_extract(["I like Rust."], AUTOMATIC)[0].confidence >= SUGGEST_BELOW


def test_the_lowest_suggest_below_is_the_extraction_floor():
    """Below the floor no fact is extracted at all, so a lower setting would mean nothing."""
    assert AUTOMATIC.min_confidence == MANUAL.min_confidence == MIN_SUGGEST_BELOW


def test_restated_facts_merge_and_grow_surer_and_the_cap_holds():
    said = ["I prefer TypeScript.", "Honestly I prefer TypeScript for frontend work."]
    [fact] = rule_extract(said, MANUAL)
    assert fact.text == "Prefers TypeScript for frontend work" and fact.confidence > 0.85
    many = [f"I live in City{i}. I speak Language{i}. I use Tool{i}." for i in range(5)]
    assert len(rule_extract(many, AUTOMATIC)) == AUTOMATIC.max_facts


def test_secrets_never_reach_a_fact():
    [fact] = rule_extract(["I use the key sk-proj-abcdefghijklmnopqrstuvwx for my bot."], MANUAL)
    assert "sk-proj" not in fact.text and "[REDACTED]" in fact.text


# ---- dedupe ---------------------------------------------------------------------------

@pytest.fixture
def service(tmp_path):
    s = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                      sites=SiteStore(tmp_path / "config"))
    yield s
    s.close()


def test_dedupe_add_update_noop(service):
    kept, _ = service.add("Prefers TypeScript", "preference")
    assert decide(Candidate("preference", "prefers typescript.", 0.8), service.index).action == "noop"
    update = decide(Candidate("preference", "Prefers TypeScript for frontend work", 0.8), service.index)
    assert update.action == "update" and update.target.id == kept.id
    assert decide(Candidate("context", "Lives in Lisbon", 0.8), service.index).action == "add"
    # Same words, other type: not the same fact.
    assert decide(Candidate("skill", "Teaches TypeScript for frontend work", 0.8), service.index).action == "add"


def test_an_update_decided_on_a_memory_another_process_changed_is_decided_again(service):
    kept, _ = service.add("Prefers TypeScript", "preference")
    decision = decide(Candidate("preference", "Prefers TypeScript for frontend work", 0.8, tags=["web"]), service.index)
    assert decision.action == "update"
    other = MemoryService(service.vault_path, service.key_path)  # the CLI, another browser's host
    other.update(kept.id, tags=["typescript", "work"])
    other.close()
    outcome = apply(service, [decision], None)
    # Decided again on the memory as it is now: the tags written meanwhile are kept.
    assert [m.id for m in outcome.updated] == [kept.id]
    now = service.get(kept.id)
    assert now.text == "Prefers TypeScript for frontend work" and set(now.tags) == {"typescript", "work", "web"}


# ---- conversations --------------------------------------------------------------------

@pytest.fixture
def convo(service):
    sessions = SessionStore(Limits())
    service.sites.update("claude.ai", long_term=True)
    extractor = ConversationExtractor(service, sessions, delay=30)
    return sessions, extractor


def test_incremental_runs_read_only_new_turns(convo, service):
    sessions, extractor = convo
    sessions.add("claude.ai:1", "user", "I live in Berlin. Can you suggest a museum?")
    sessions.add("claude.ai:1", "assistant", "I prefer the Pergamon museum.")  # not the user's fact
    first = extractor.run("claude.ai:1", manual=False)
    assert [m.text for m in first.added] == ["Lives in Berlin"]
    assert extractor.progress["claude.ai:1"][1] == 2
    seen = []
    original = extractor._extract
    extractor._extract = lambda texts, t, manual: (seen.append(list(texts)), original(texts, t, manual))[1]
    sessions.add("claude.ai:1", "user", "I speak French.")
    second = extractor.run("claude.ai:1", manual=False)
    assert seen == [["I speak French."]]
    assert [m.text for m in second.added] == ["Speaks French"]
    assert extractor.run("claude.ai:1", manual=False).added == []
    # Manual rereads everything; what is kept already is a NOOP, a hedged fact waits as a suggestion.
    sessions.add("claude.ai:1", "user", "I think I like Rust.")
    manual = extractor.run("claude.ai:1", manual=True)
    assert manual.added == [] and manual.unchanged == 2
    assert [s.text for s in manual.suggested] == ["Likes Rust"] and manual.method == "rules"


def test_a_new_conversation_under_the_same_key_starts_over(convo):
    sessions, extractor = convo
    sessions.add("claude.ai:1", "user", "I live in Berlin.")
    extractor.run("claude.ai:1", manual=False)
    sessions.clear("claude.ai:1")
    time.sleep(0.01)
    sessions.add("claude.ai:1", "user", "I speak French.")
    assert [m.text for m in extractor.run("claude.ai:1", manual=False).added] == ["Speaks French"]


def test_injected_blocks_never_become_memories(convo):
    sessions, extractor = convo
    block = ("---\n[Whiteboard context · 1 memory]\n- [preference·Mar] I prefer tabs over spaces\n"
             "(Background about me. Answer the question directly; use it only where relevant.)\n---")
    sessions.add("claude.ai:2", "user", f"How do I indent?\n\n{block}")
    assert extractor.run("claude.ai:2", manual=True).added == []


def test_sites_without_long_term_memory_are_left_alone(convo, service):
    sessions, extractor = convo
    sessions.add("chatgpt.com:1", "user", "I live in Berlin.")
    assert extractor.run("chatgpt.com:1", manual=False).added == []
    with pytest.raises(Exception) as err:
        extractor.run("chatgpt.com:1", manual=True)
    assert err.value.code == "forbidden"
    service.sites.update("claude.ai", paused=True)
    sessions.add("claude.ai:3", "user", "I live in Berlin.")
    assert extractor.run("claude.ai:3", manual=False).added == []


def test_never_deletes_even_when_facts_change(convo, service):
    sessions, extractor = convo
    said = ["I live in Berlin.", "I prefer tabs.", "I live in Munich now.", "I don't like tabs.",
            "I prefer spaces.", "I live in Munich.", "I'm a teacher.", "I'm a software engineer."]
    counts = []
    for i, text in enumerate(said):
        sessions.add("claude.ai:4", "user", text)
        extractor.run("claude.ai:4", manual=i % 2 == 0)
        counts.append(len(service.list()))
    assert counts == sorted(counts)
    assert {"Lives in Berlin", "Prefers tabs"} <= {m.text for m in service.list()} | \
        {o.text for m in service.list() for o in m.old_texts}


def test_update_keeps_the_old_text(convo, service):
    sessions, extractor = convo
    sessions.add("claude.ai:5", "user", "I prefer TypeScript.")
    extractor.run("claude.ai:5", manual=False)
    sessions.add("claude.ai:5", "user", "I prefer TypeScript for frontend work.")
    outcome = extractor.run("claude.ai:5", manual=False)
    [updated] = outcome.updated
    assert updated.text == "Prefers TypeScript for frontend work"
    assert [o.text for o in service.get(updated.id).old_texts] == ["Prefers TypeScript"]


# ---- the model extractor, over real HTTP ---------------------------------------------

def model_layer(tmp_path, fake):
    store = SettingsStore(tmp_path / "llm")
    return ModelLayer(store, env={"WHITEBOARD_LLM_BASE_URL": fake.base_url, "WHITEBOARD_LLM_MODEL": "fake-model"})


def test_model_extractor_is_used_when_configured(convo, service, tmp_path, fake_openai):
    sessions, _ = convo
    fake_openai.chat_answer = ('Sure! {"memories": [{"type": "skill", "text": "Writes Go at work", "tags": ["go"], '
                               '"keywords": ["go", "golang", "编程"], "confidence": 0.9}, {"type": "bogus", '
                               '"text": "x"}]}')
    extractor = ConversationExtractor(service, sessions, model=model_from(model_layer(tmp_path, fake_openai),
                                                                            threading.Event()))
    sessions.add("claude.ai:6", "user", "At work I write Go every day. ```go\nfunc main() {}\n```")
    outcome = extractor.run("claude.ai:6", manual=False)
    assert outcome.method == "model"
    [memory] = outcome.added
    assert memory.text == "Writes Go at work" and memory.type == "skill" and "编程" in memory.keywords
    prompt = fake_openai.chat_requests()[-1].json["messages"][1]["content"]
    assert "func main" not in prompt  # code blocks never go to the model


def test_model_failure_falls_back_to_rules(convo, service, tmp_path, fake_openai):
    sessions, _ = convo
    fake_openai.chat_answer = "I cannot produce JSON today."
    extractor = ConversationExtractor(service, sessions, model=model_from(model_layer(tmp_path, fake_openai),
                                                                            threading.Event()))
    sessions.add("claude.ai:7", "user", "I live in Porto.")
    outcome = extractor.run("claude.ai:7", manual=False)
    assert outcome.method == "rules" and [m.text for m in outcome.added] == ["Lives in Porto"]
