"""Request -> fact data for the meaning adapter, the context gate and recall's floors, written
by the Whiteboard developers for this repository (MIT, like it): no text here comes from
another data set (LoCoMo, CC BY-NC, is a benchmark only).

Per life domain: facts a user may have told us (a user holds one or more of them), requests
that need whichever of them the user holds (sharing no content word with them where we could
manage it), in the eight languages the extractor reads; and third-person sentences about
named other people on the same subject, the shape a benchmark's or a diary-like vault's
distractors take. Pairs are made by code (`pairs`): every request of a domain with every fact
of it, within a language and across it and English. `WORLD` holds requests about the world that
must carry no fact. The texts are in `training/data/recall/` (a file per domain, and
`world.json`). The split holds out the last quarter of each language's requests and facts in
every domain, so that held-out requests are of phrasings never trained on and their vaults of
facts never trained on (docs/memory.md, "Data sheet").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

LANGUAGES = ("en", "de", "es", "fr", "pt", "ja", "zh", "ko")
NAMES = ("Priya", "Tomás", "Ingrid", "Kenji", "Amara", "Lukas", "Sofia", "Mateo", "Hana", "Olu", "Nadia", "Felix")


@dataclass(frozen=True)
class Domain:
    name: str
    facts: dict[str, tuple[str, ...]]
    requests: dict[str, tuple[str, ...]]
    others: tuple[str, ...]  # about {n}, a named other person
    questions: tuple[tuple[int, str], ...]  # (i, a question about {n} that others[i] answers)
    # per language: (a request, the positions in that language's facts of those it needs)
    specific: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]


DATA = Path(__file__).parent / "data" / "recall"


def _domain(path: Path) -> Domain:
    body = json.loads(path.read_text(encoding="utf-8"))
    return Domain(body["name"], {k: tuple(v) for k, v in body["facts"].items()},
                  {k: tuple(v) for k, v in body["requests"].items()}, tuple(body["others"]),
                  tuple((int(i), q) for i, q in body.get("questions", ())),
                  {k: tuple((r, tuple(int(i) for i in needs)) for r, needs in v)
                   for k, v in body.get("specific", {}).items()})


# One file per domain, in the order of their numbers (the order names the third-person sentences'
# people and which domains hold out their other languages' last request).
DOMAINS = tuple(_domain(path) for path in sorted(DATA.glob("[0-9]*.json")))
WORLD: dict[str, list[str]] = json.loads((DATA / "world.json").read_text(encoding="utf-8"))


# Held out from all training: in every domain the last quarter of each language's requests and
# facts, at least one (unseen phrasings, facts never trained on). No whole domain is held out: the
# shipped weights must know every subject we wrote (a user's pets, money, clothes); how they do on
# a subject never seen is measured by cross-validation over domain groups (adapter.py --validate).


@dataclass(frozen=True)
class Pair:
    domain: str
    request: str
    request_language: str
    fact: str
    fact_language: str
    held_out: bool


def _last_quarter(texts: tuple[str, ...], text: str) -> bool:
    return texts.index(text) >= len(texts) - max(1, len(texts) // 4)


def held_request(domain: Domain, language: str, request: str) -> bool:
    return _last_quarter(domain.requests[language], request)


def held_fact(domain: Domain, language: str, fact: str) -> bool:
    return _last_quarter(domain.facts[language], fact)


def pairs() -> list[Pair]:
    """Every request with every fact of its domain in its own language, and across it and
    English both ways (a vault's facts are in the language they were said in). A training pair
    is a training request with a training fact, a held-out pair a held-out request with a
    held-out fact (the other mixes are in neither)."""
    out = []
    for d in DOMAINS:
        for lang in LANGUAGES:
            for fact_lang in dict.fromkeys((lang, "en", *(LANGUAGES if lang == "en" else ()))):
                for request in d.requests[lang]:
                    held = held_request(d, lang, request)
                    out += [Pair(d.name, request, lang, fact, fact_lang, held) for fact in d.facts[fact_lang]
                            if held_fact(d, fact_lang, fact) == held]
    return out


@dataclass(frozen=True)
class Specific:
    """A request that needs one of its domain's facts (or a few) and not the domain's others in
    its language: a label within a subject ("How warm should the vivarium be at night?" needs
    the snake, not the cats)."""
    domain: str
    request: str
    language: str
    needs: tuple[str, ...]
    rest: tuple[str, ...]  # the domain's other facts in the request's language
    held_out: bool


def specific() -> list[Specific]:
    """Every domain's within-subject requests. Held out: those that need held-out facts (the
    README's rule puts them last and never mixes the two)."""
    out = []
    for d in DOMAINS:
        for lang, items in d.specific.items():
            facts = d.facts[lang]
            for request, positions in items:
                needs = tuple(facts[i] for i in positions)
                out.append(Specific(d.name, request, lang, needs, tuple(f for f in facts if f not in needs),
                                    held_fact(d, lang, needs[0])))
    return out


def _name(domain: int, sentence: int, i: int) -> str:
    return NAMES[(domain * 2 + sentence * 5 + i) % len(NAMES)]


def third_person() -> list[tuple[str, str]]:
    """(domain, sentence) about named other people: each domain's sentences with three names."""
    return [(d.name, template.format(n=_name(k, j, i)))
            for k, d in enumerate(DOMAINS) for j, template in enumerate(d.others) for i in range(3)]


@dataclass(frozen=True)
class Question:
    """A question about a named other person and the third-person sentence that answers it (the
    same name): what one asks of a diary-like vault, where every memory is about someone."""
    domain: str
    question: str
    sentence: str
    held_out: bool
    namesakes: tuple[str, ...]  # the same sentence about its other two people


def questions() -> list[Question]:
    """Each domain's questions with the three names of their sentence. Held out: the questions
    about the last quarter of each domain's sentences (at least one): unseen questions about
    sentences no question trained on."""
    out = []
    for k, d in enumerate(DOMAINS):
        for j, q in d.questions:
            about = [d.others[j].format(n=_name(k, j, i)) for i in range(3)]
            held = _last_quarter(tuple(range(len(d.others))), j)
            out += [Question(d.name, q.format(n=_name(k, j, i)), about[i], held, tuple(about[:i] + about[i + 1:]))
                    for i in range(3)]
    return out


def world(held_out: bool) -> list[str]:
    """World questions: each language's first ones train, the last two are held out."""
    return [q for qs in WORLD.values() for q in (qs[-2:] if held_out else qs[:-2])]


def world_for_profile() -> list[str]:
    """Half the training world questions (every other one): the adapter's profile learns "the
    world" from these, and the floors are chosen on the other half, which it never saw."""
    return world(held_out=False)[0::2]


def world_for_floors() -> list[str]:
    return world(held_out=False)[1::2]


def facts(held_out: bool | None = None) -> list[tuple[str, str, str]]:
    """(domain, language, fact) for every fact, or only the held-out ones (True) or only the
    training ones (False)."""
    return [(d.name, lang, f) for d in DOMAINS for lang in LANGUAGES for f in d.facts[lang]
            if held_out is None or held_fact(d, lang, f) == held_out]


VAULT = 40  # facts in a held-out own vault: the measure holds a user's 40 facts


def own_vault(pair: Pair, pool: list[str] | None = None) -> list[str]:
    """A held-out pair's own vault: its fact first, then 39 held-out facts of other domains in
    the fact's language (a user's other facts, none of them trained on; or 39 of `pool`),
    drawn by a seed made of the pair's texts, so every run and every method sees the same vault."""
    if pool is None:
        pool = _held_elsewhere(pair.fact_language, pair.domain)
    return [pair.fact, *_drawn(f"{pair.request}\n{pair.fact}", pool, VAULT - 1)]


def subject_vault(s: Specific, fact: str, pool: list[str] | None = None, rest: list[str] | None = None) -> list[str]:
    """A within-subject request's vault for one fact it needs: that fact first, then its
    domain's facts it does not need (all of them, trained on or not; or `rest`), then held-out
    facts of other domains in its language (or of `pool`) up to VAULT."""
    if pool is None:
        pool = _held_elsewhere(s.language, s.domain)
    rest = list(s.rest) if rest is None else rest
    return [fact, *rest, *_drawn(f"{s.request}\n{fact}", pool, VAULT - 1 - len(rest))]


def _held_elsewhere(language: str, domain: str) -> list[str]:
    """The held-out facts in `language` of every domain but `domain`: a held-out vault's fill."""
    return [f for d, lang, f in facts(held_out=True) if lang == language and d != domain]


def _drawn(seed_text: str, pool: list[str], n: int) -> list[str]:
    """n of `pool` drawn by a seed made of `seed_text`: every run and method sees the same."""
    seed = int.from_bytes(hashlib.sha256(seed_text.encode()).digest()[:8], "big")
    return sorted(pool, key=lambda f: hashlib.sha256(f"{seed}\n{f}".encode()).digest())[:n]


def digest() -> str:
    body = json.dumps(
        [[d.name, d.facts, d.requests, d.others, d.questions, d.specific] for d in DOMAINS] + [WORLD],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(body.encode()).hexdigest()
