"""Word and CJK handling shared by long-term memory (search, dedupe, extraction) and a session's ranking.

Words: lowercased, accents folded, split on \\w runs (the way FTS5's unicode61 does), and
stemmed by SQLite FTS5's own `porter` tokenizer, the one the search index uses (measured on
LoCoMo as good as or better than the light suffix strip it replaced: docs/memory.md).
CJK has no spaces, so its runs are compared by character trigrams and bigrams.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterable

from stop_words import get_stop_words

from .language import language
from .privacy import redact

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ASCII_WORD = re.compile(r"[a-z0-9]+", re.ASCII)  # _WORD on folded (lowercased) ASCII text
# Han, Hiragana, Katakana, Hangul syllables.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")

# Words that say nothing about a topic: function words and the verbs of asking.
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else even ever every few for from
further get gets getting give go going got had has have having he her here hers herself him himself his
how i i'd i'll i'm i've if in into is it it's its itself just let me might mine more most much must my
myself no nor not now of off on once only or other our ours ourselves out over own please really same
say says she should so some such than thank thanks that the their theirs them themselves then there these
they this those through to too under until up us very was we were what when where which while who whom
why will with would yes yet you your yours yourself yourselves
help tell show make want need know think like use using used write explain give find way thing things
one two lot okay ok hi hello hey sure maybe something anything everything someone redacted
""".split())

PORTER = "porter unicode61 remove_diacritics 2"
STEM_CACHE = 50_000  # words; the cache starts over past this


class _PorterStems:
    """Word -> stem by SQLite's porter tokenizer, cached: each new word is put through a
    scratch FTS5 table and read back from its vocabulary (SQLite has no stem() function)."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.executescript(f"""
            CREATE VIRTUAL TABLE scratch USING fts5(word, tokenize = '{PORTER}');
            CREATE VIRTUAL TABLE scratch_v USING fts5vocab(scratch, instance);
        """)
        self._lock = threading.Lock()
        self._cache: dict[str, str] = {}

    def stems(self, words: list[str]) -> list[str]:
        with self._lock:
            missing = [w for w in dict.fromkeys(words) if w not in self._cache]
            if missing:
                if len(self._cache) + len(missing) > STEM_CACHE:
                    self._cache.clear()
                    missing = list(dict.fromkeys(words))
                self._db.executemany("INSERT INTO scratch (rowid, word) VALUES (?, ?)", enumerate(missing, 1))
                found: dict[int, str] = {}
                for doc, term in self._db.execute("SELECT doc, term FROM scratch_v ORDER BY doc, offset"):
                    found.setdefault(doc, term)
                self._db.execute("DELETE FROM scratch")
                for rowid, word in enumerate(missing, 1):
                    self._cache[word] = found.get(rowid, word)
            return [self._cache[w] for w in words]


_stems = _PorterStems()


def fold(text: str) -> str:
    """Lowercase with accents removed (é -> e), as FTS5's remove_diacritics does."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


# The other Latin-script languages' function words, from the stop-words package (its lists,
# BSD-3-Clause: docs/memory.md "Full text in other languages" says why this one), folded as
# words() folds. They are dropped beside the English ones only when a text reads as one of those
# languages ("son", "die" and "hat" are function words there, and a son, dying and a hat in
# English), and pooled: language() tells English from them surely, and them from one another less
# surely (Portuguese is read as Spanish when they share most of its words).
_OTHER_LANGUAGES = ("de", "es", "fr", "pt", "it")
_OTHER_STOPWORDS = STOPWORDS | frozenset(fold(w) for lang in _OTHER_LANGUAGES for w in get_stop_words(lang))


def stopwords(text: str) -> frozenset[str]:
    """The words of `text` that say nothing about a topic: the English ones, and where it reads as
    another Latin-script language, theirs."""
    return _OTHER_STOPWORDS if language(text) in _OTHER_LANGUAGES else STOPWORDS


def words(text: str) -> list[str]:
    """Non-CJK word tokens, folded."""
    folded = fold(text)
    if folded.isascii():  # the same words, found faster without Unicode classes
        return _ASCII_WORD.findall(folded)
    return _WORD.findall(_CJK.sub(" ", folded))


def length(text: str) -> int:
    """Words plus CJK characters: a document's length for BM25 (no folding needed to count)."""
    if text.isascii():
        return len(text.split())
    runs = _CJK.findall(text)
    return len(_WORD.findall(_CJK.sub(" ", text) if runs else text)) + sum(len(r) for r in runs)


def stems(word_list: list[str]) -> list[str]:
    """Each word's porter stem (prefers, preferred -> prefer), as the search index stores it."""
    return _stems.stems(word_list)


def content_words(text: str, limit: int | None = None) -> dict[str, str]:
    """The words that carry meaning: stem -> the first word written with it, in order of
    appearance (stop words and asking verbs dropped); from the first `limit` such words."""
    stop = stopwords(text)
    kept = list(dict.fromkeys(w for w in words(text) if w not in stop and (len(w) > 1 or w.isdigit())))
    kept = kept[:limit]
    out: dict[str, str] = {}
    for word, stem in zip(kept, stems(kept)):
        out.setdefault(stem, word)
    return out


def content_terms(text: str) -> list[str]:
    """Distinct stems of the words that carry meaning, in order of appearance."""
    return list(content_words(text))


def cjk_runs(text: str) -> list[str]:
    return [] if text.isascii() else _CJK.findall(text)


def cjk_grams(text: str) -> list[str]:
    """Distinct bigrams and trigrams of every CJK run (words there are mostly 1-3 characters)."""
    seen: dict[str, None] = {}
    for run in cjk_runs(text):
        for n in (3, 2):
            for i in range(len(run) - n + 1):
                seen.setdefault(run[i:i + n], None)
    return list(seen)


_KANA_ONLY = re.compile(r"[\u3040-\u309f]+")


def cjk_query_grams(text: str) -> list[str]:
    """cjk_grams without those made of hiragana only: in Japanese these are mostly particles
    and endings (です, ますか), which would match almost any Japanese memory."""
    return [g for g in cjk_grams(text) if not _KANA_ONLY.fullmatch(g)]


def features(text: str) -> set[str]:
    """What two texts are compared by: content-word stems and CJK trigrams."""
    return set(content_terms(text)) | set(cjk_grams(text))


def similarity(a: str, b: str) -> float:
    """Jaccard overlap of features, 0..1."""
    fa, fb = features(a), features(b)
    if not fa or not fb:
        return 1.0 if normalized(a) == normalized(b) else 0.0
    return len(fa & fb) / len(fa | fb)


def containment(inner: str, outer: str) -> float:
    """How much of inner's features outer has, 0..1."""
    fi, fo = features(inner), features(outer)
    if not fi:
        return 1.0 if normalized(inner) == normalized(outer) else 0.0
    return len(fi & fo) / len(fi)


def normalized(text: str) -> str:
    return " ".join(fold(text).split()).strip(" .!")


def keywords(text: str, limit: int = 8) -> list[str]:
    """Up to `limit` meaningful words (and CJK runs) of a text, as written, lowercased."""
    out: dict[str, None] = {}
    stop = stopwords(text)
    for w in words(text):
        if w not in stop and len(w) > 2 and not w.isdigit():
            out.setdefault(w, None)
    for run in cjk_runs(text):
        out.setdefault(run[:12], None)
    return list(out)[:limit]


def clean_words(words: Iterable[str]) -> list[str]:
    """Tags and keywords, privacy-filtered like texts, blanks and repeats dropped."""
    cleaned = (redact(w).text.strip() for w in words)
    return list(dict.fromkeys(w for w in cleaned if w))
