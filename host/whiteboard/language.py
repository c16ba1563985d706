"""The language a text is written in, as far as recall and extraction need it: one of the eight
languages memories are extracted in (and Italian), read off its script, its first-person
pronoun and its function words. Small and linear-time: a text is read up to READ characters.
"""

from __future__ import annotations

import re

READ = 2000  # characters: more never changes the answer for a draft or a sentence

_HANGUL = re.compile(r"[\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_LATIN_WORD = re.compile(r"[a-zà-ÿœß']+")

# Function words and first-person verbs that tell the Latin-script languages apart.
_MARKERS = {
    "en": "i i'm i've i'd my me we our the and is am are have has with at in to for of a an been don't can't you your "
          "this that it how what do does please thanks just so be was on not",
    "fr": "je j' suis ai mon ma mes nous on le la les des du et est une un avec au aux pas ne depuis à de en ce cette "
          "tu vous merci comment d' c' qu' peux",
    "es": "yo soy estoy tengo vivo mi mis el los las y una un con por del que hace desde me gusta encanta nos de en no "
          "para como este esta muy hoy gracias vale cómo qué cuál doy tomo trabajo hablo odio acabo",
    "de": "ich bin habe mein meine meiner und der die das mit ein eine nicht ist wir seit auf bei zu du diesen diese "
          "dieser den dem im ins für bitte danke klar alles gerade heute kannst wie was sind",
    "pt": "eu sou estou tenho moro meu minha os as e um uma com em no na não há nós dou falo de para como este esta "
          "essa esse muito hoje obrigado obrigada valeu qual você acabei detesto adoro trabalho do da dos das nos "
          "nas ao é me dê agora depois responda traduza corrija escreva",
    "it": "io sono ho mio mia il lo gli e di che con una un per non da sto mi",
}
_MARKER_SETS = {lang: frozenset(words.split()) for lang, words in _MARKERS.items()}
_ACCENT_HINTS = {"ñ": "es", "¿": "es", "¡": "es", "ã": "pt", "õ": "pt", "ß": "de", "ä": "de", "ö": "de", "ü": "de",
                 "è": "fr", "œ": "fr"}
# A sentence starting with the first-person pronoun says its language at once.
_PRONOUNS = {"i": "en", "i'm": "en", "i've": "en", "i'd": "en", "je": "fr", "j'": "fr", "yo": "es", "eu": "pt",
             "ich": "de", "io": "it"}


def language(text: str) -> str:
    """'zh', 'ja', 'ko', 'en', 'fr', 'es', 'de', 'pt', 'it', or '' when unknown (other scripts)."""
    text = text[:READ]
    if _HANGUL.search(text):
        return "ko"
    if _KANA.search(text):
        return "ja"
    if _HAN.search(text):
        return "zh"
    lower = text.lower().replace("’", "'")
    tokens = _LATIN_WORD.findall(lower)
    if not tokens:
        return ""
    first = tokens[0] if not tokens[0].startswith("j'") else "j'"
    if first in _PRONOUNS:
        return _PRONOUNS[first]
    scores = {lang: sum(t in words or t.split("'")[0] + "'" in words for t in tokens)
              for lang, words in _MARKER_SETS.items()}
    for char, lang in _ACCENT_HINTS.items():
        if char in lower:
            scores[lang] += 1
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] == 0:
        return "en" if text.isascii() else ""
    return best
