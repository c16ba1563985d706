"""The learned extractor: logistic regression over the bundled embedding model's vectors.

Each sentence the user wrote (extract.user_statements: no code, quotes or pasted chunks)
is embedded; one model says whether it states a lasting fact about the writer (its
probability is the confidence), another its type (multinomial). The weights are a small
file in the package, trained by `python -m training.extractor` (not shipped) from the
labelled set in tests/data/extraction; they are refused for any other embedding model
(the vectors would mean something else). The memory text is the sentence rewritten as a
short statement in its own language (statement.py).

Where the rule extractor matches a sentence and the classifier leans the same way, the
rule may raise the confidence and decides the type (unless it only guesses it); a rule
alone never makes a memory of a sentence the classifier doubts.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from .candidate import Candidate
from .extract import Thresholds, finish, rule_candidate, user_statements
from .rules import HEDGE, HYPOTHETICAL, QUESTION_END, REQUEST, REQUEST_OTHER, SOMEONE_ELSE, STANDING
from .statement import first_person, statement

log = logging.getLogger("whiteboard.memory.extract.classifier")
WEIGHTS_FILE = "extractor.npz"
# Embedding costs ~35 ms a sentence on a slow CPU: a run reads at most this many (the newest).
MAX_SENTENCES = {"automatic": 40, "manual": 120}
# A rule match vouches for a sentence only where the classifier leans the same way: the
# rules also match facts about others ("My sister is learning Korean", 母は京都に住んでいます).
RULE_AGREES = 0.5
# Rules whose type is a guess from a generic verb ("I'm a ...", "I use ...", "I always ...":
# a fan, a wheelchair, a habit at work); the classifier's type is the better one there.
GUESSED_TYPE = frozenset({"identity", "tools", "habit"})
MAX_CONFIDENCE = 0.95  # as the rules': only the user's own word (an accepted suggestion) is certain
ABOUT_SOMEONE_ELSE = 0.6  # at most, for a sentence whose subject is someone else: a suggestion by default
HEDGED = 0.3  # taken off a hedged statement's confidence: it waits as a suggestion


def features(vectors: np.ndarray, sentences: list[str]) -> np.ndarray:
    """The embedding, then what the rules see: the writer is the subject (first_person), a
    rule matches, the subject is someone else. The rules feed the classifier this way."""
    flags = [[first_person(s), rule_candidate(s) is not None, bool(SOMEONE_ELSE.match(s))] for s in sentences]
    return np.hstack([np.asarray(vectors, dtype=np.float64), np.array(flags, dtype=np.float64).reshape(-1, 3)])


@dataclass(frozen=True)
class Weights:
    model_id: str
    mean: np.ndarray  # (features,) standardisation
    scale: np.ndarray  # (features,)
    lasting: np.ndarray  # (features + 1,) with the bias last
    types: tuple[str, ...]
    type_weights: np.ndarray  # (len(types), features + 1)
    data_sha256: str  # the labelled set it was trained from

    def design(self, x: np.ndarray) -> np.ndarray:
        return np.hstack([(x - self.mean) / self.scale, np.ones((len(x), 1))])

    def lasting_probability(self, x: np.ndarray) -> np.ndarray:
        """x: features(vectors, sentences)."""
        return 1.0 / (1.0 + np.exp(-(self.design(x) @ self.lasting)))

    def type_probabilities(self, x: np.ndarray) -> np.ndarray:
        z = self.design(x) @ self.type_weights.T
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path, sources: str = "") -> None:
        """sources: what it was trained on, as JSON (training/sources.py); the host never reads it."""
        extra = {"sources": np.array(sources)} if sources else {}
        np.savez_compressed(path, **extra, model_id=np.array(self.model_id), mean=self.mean.astype(np.float32),
                            scale=self.scale.astype(np.float32), lasting=self.lasting.astype(np.float32),
                            types=np.array(self.types), type_weights=self.type_weights.astype(np.float32),
                            data_sha256=np.array(self.data_sha256))


class WrongModel(Exception):
    """The weights were trained on another embedding model's vectors."""


def load_weights(model_id: str, path=None) -> Weights:
    """The shipped weights (or those at path); WrongModel when trained for another model,
    OSError/ValueError/KeyError when the file is missing or damaged."""
    source = Path(path) if path is not None else resources.files("whiteboard.memory").joinpath("data", WEIGHTS_FILE)
    with source.open("rb") as file, np.load(file) as z:
        weights = Weights(model_id=str(z["model_id"]), mean=z["mean"].astype(np.float64),
                          scale=z["scale"].astype(np.float64), lasting=z["lasting"].astype(np.float64),
                          types=tuple(str(t) for t in z["types"]), type_weights=z["type_weights"].astype(np.float64),
                          data_sha256=str(z["data_sha256"]))
    if weights.model_id != model_id:
        raise WrongModel(f"the extractor weights were trained for {weights.model_id}, not {model_id}")
    if weights.lasting.shape != (len(weights.mean) + 1,) or weights.type_weights.shape != (len(weights.types),
                                                                                          len(weights.mean) + 1):
        raise ValueError("the extractor weights have the wrong shape")
    return weights


def candidate_sentences(message: str) -> list[str]:
    """The sentences worth classifying: the user's own, not questions, hypotheticals, requests
    for now ("I want you to act as ...", unlike "Please always answer in ...") or chatter."""
    return [s for s in user_statements(message)
            if not s.rstrip(" .!。！").endswith(QUESTION_END) and len(s.strip()) >= 4
            and not HYPOTHETICAL.match(s) and not _asks_for_now(s.lower())]


def _asks_for_now(lower: str) -> bool:
    return bool((REQUEST.search(lower) or REQUEST_OTHER.search(lower)) and not STANDING.search(lower))


@dataclass
class Scored:
    sentence: str
    lasting: float
    type: str
    rule: Candidate | None


class LearnedExtractor:
    def __init__(self, embedder, weights: Weights):
        self.embedder = embedder
        self.weights = weights

    def score(self, sentences: list[str]) -> list[Scored]:
        """Classify sentences in one batch of embeddings."""
        if not sentences:
            return []
        x = features(self.embedder.embed_queries(sentences), sentences)
        lasting = self.weights.lasting_probability(x)
        types = self.weights.type_probabilities(x)
        return [Scored(s, float(p), self.weights.types[int(np.argmax(t))], rule_candidate(s))
                for s, p, t in zip(sentences, lasting, types)]

    def extract(self, messages: list[str], thresholds: Thresholds, manual: bool = False) -> list[Candidate]:
        sentences = [s for m in messages for s in candidate_sentences(m)]
        sentences = sentences[-MAX_SENTENCES["manual" if manual else "automatic"]:]
        return finish([_candidate(s) for s in self.score(sentences)], thresholds)

    def extract_each(self, conversations: list[list[str]], thresholds: Thresholds) -> list[list[Candidate]]:
        """Candidates per conversation, every conversation's sentences embedded in one batch
        (an import). Only sentences about the writer (or someone close, or a rule's) are
        embedded: most of what people write to a chatbot is a request, and the cheap test
        keeps the model for the few that may be facts."""
        owners, sentences = [], []
        for i, messages in enumerate(conversations):
            for s in (s for m in messages for s in candidate_sentences(m)):
                if first_person(s) or SOMEONE_ELSE.match(s) or rule_candidate(s) is not None:
                    owners.append(i)
                    sentences.append(s)
        found: list[list[Candidate]] = [[] for _ in conversations]
        for owner, scored in zip(owners, self.score(sentences)):
            found[owner].append(_candidate(scored))
        return [finish(f, thresholds) for f in found]


def _candidate(s: Scored) -> Candidate:
    """One scored sentence as a candidate: the rule's vouching, hedges and others' facts weighed in."""
    confidence, type_, tags = s.lasting, s.type, []
    if s.rule is not None and s.lasting >= RULE_AGREES and "people" not in s.rule.tags:
        confidence, tags = max(confidence, s.rule.confidence), s.rule.tags
        if not GUESSED_TYPE.intersection(tags):
            type_ = s.rule.type
    if HEDGE.search(s.sentence.lower()):  # "I think I like Rust": the user is not sure either
        confidence -= HEDGED
    if SOMEONE_ELSE.match(s.sentence):  # "My sister is learning Korean": the user decides
        confidence = min(confidence, ABOUT_SOMEONE_ELSE)
    confidence = round(min(max(0.0, confidence), MAX_CONFIDENCE), 2)
    return Candidate(type_, statement(s.sentence), confidence, tags=list(tags))


def learned_loader(load_embedder: Callable[[], object | None]) -> Callable[[], LearnedExtractor | None]:
    """For ConversationExtractor: loads the model and weights on first use (on the
    extraction thread, never on the send path), then gives the same extractor each time."""
    loaded: list = []
    lock = threading.Lock()

    def get() -> LearnedExtractor | None:
        with lock:
            if not loaded:
                loaded.append(learned_extractor(load_embedder()))
            return loaded[0]

    return get


def learned_extractor(embedder) -> LearnedExtractor | None:
    """The learned extractor on this embedder, or None (and why, logged) when there is no
    embedder or the weights do not fit it: the rule extractor runs alone then."""
    if embedder is None:
        return None
    try:
        return LearnedExtractor(embedder, load_weights(embedder.query_model_id))
    except (OSError, ValueError, KeyError, WrongModel) as exc:
        log.warning("the learned extractor is off (%s); using the rule extractor", exc)
        return None
