"""A sentence the user wrote about themself, as a memory: a short statement with the
subject dropped, in the sentence's own language ("I've been vegan since 2020" -> "Has been
vegan since 2020", "Je suis végétarien" -> "Est végétarien", "我对海鲜过敏" -> "对海鲜过敏").

Rules per language, deliberately small: drop the first-person subject and put the first
verb in the third person (a table of the common irregular ones, then the regular ending).
Possessives stay the user's own ("Prefers TypeScript for all my projects", "Habite à Lyon
avec ma femme"): memories go to the model as background about the user, in the user's
voice, as the rule extractor writes them. A language without rules (Italian, Russian...)
keeps the sentence as written, minus the end punctuation: still a readable memory.
Measured against the labelled memory texts in tests/bench/bench_extract.py.
"""

from __future__ import annotations

import re

from ...language import language
from .extract import third_person
from .rules import LEAD_IN, REMEMBER

# The sentence opens with the writer as its subject: a pronoun, or in the languages that drop
# it, a first-person verb form. A feature of the classifier (the vectors carry this weakly).
_FIRST_PERSON = {
    "en": re.compile(r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|im|ive)\b", re.I),
    "fr": re.compile(r"^(?:je|j'|nous|on|moi)\b", re.I),
    "es": re.compile(r"^(?:yo|nosotros|nosotras|soy|estoy|voy|doy|me|nos|(?!no\b)[a-záéíóúñ]{2,}o)\b", re.I),
    "pt": re.compile(r"^(?:eu|nós|a gente|sou|estou|vou|dou|me|(?!no\b|do\b)[a-záéíóúâêôãõç]{2,}o)\b", re.I),
    "de": re.compile(r"^(?:ich|wir)\b", re.I),
    "it": re.compile(r"^(?:io|sono|ho|mi)\b", re.I),
    "zh": re.compile(r"^(?:我们|我)(?!的|们的)"),
    "ja": re.compile(r"^(?:私|僕|俺|わたし|あたし)(?:は|も|が)"),
    "ko": re.compile(r"^(?:저는|나는|제가|내가|저도|나도)"),
}


def first_person(sentence: str) -> bool:
    text = sentence.strip().replace("’", "'")
    pattern = _FIRST_PERSON.get(language(text))
    return bool(pattern and pattern.match(LEAD_IN.sub("", text)))


def statement(sentence: str) -> str:
    """The memory text for a sentence about the writer (see the module's doc)."""
    text = " ".join(sentence.replace("’", "'").split()).strip()
    lang = language(text)
    text = _TRAILING.sub("", text)
    rewrite = _REWRITERS.get(lang)
    if rewrite is not None:
        text = rewrite(text).strip()
    text = _TRAILING.sub("", text)
    return text[:1].upper() + text[1:] if text else sentence.strip()


_TRAILING = re.compile(r"[\s.!。！,，;；]+$")


# ---- English ----------------------------------------------------------------------------

_EN_FIXED = [
    (re.compile(r"^(?:please,? )?(?:always |only )?(?:answer|reply|respond|write|talk)(?: to me)? "
                r"(?P<x>(?:in|with|using) .+)", re.I), "Wants answers {x}"),
    (re.compile(r"^(?:i|we)(?:'ve| have) (?P<x>been .+)", re.I), "Has {x}"),
    (re.compile(r"^(?:i|we)(?:'ve| have) (?P<x>(?:\w+ed|known|grown|done|seen|taught|written|worked|lived|played) .+)",
                re.I), "Has {x}"),
    (re.compile(r"^i(?:'m| am) (?P<x>.+)", re.I), "Is {x}"),
    (re.compile(r"^we(?:'re| are) (?P<x>.+)", re.I), "Is {x}"),
    (re.compile(r"^i was (?P<x>.+)", re.I), "Was {x}"),
    (re.compile(r"^(?:i|we)(?:'d| would) rather (?P<x>.+)", re.I), "Would rather {x}"),
    (re.compile(r"^(?:i|we)(?:'d| would) (?:like|love) to (?P<x>.+)", re.I), "Wants to {x}"),
    (re.compile(r"^(?:i|we) (?:do not|don't|dont) (?P<x>.+)", re.I), "Does not {x}"),
    (re.compile(r"^(?:i|we) (?:can't|cannot) (?P<x>.+)", re.I), "Can't {x}"),
    (re.compile(r"^(?:i|we)(?:'ll| will) (?P<x>.+)", re.I), "Will {x}"),
    (re.compile(r"^(?:i|we) (?P<x>(?:can|could|never|just|also) .+)", re.I), "{x}"),
    (re.compile(r"^my (?P<x>.+)", re.I), "{x}"),
]
_EN_VERB = re.compile(r"^(?:i|we) (?P<adv>(?:(?:really|usually|mostly|mainly|always|generally|normally|often|"
                      r"still|currently|now|only|actually|totally|absolutely|also|basically) )*)(?P<verb>[a-z]+)"
                      r"(?P<x>.*)", re.I)
# Past tenses stay as they are ("I grew up in Lagos" -> "Grew up in Lagos").
_EN_PAST = frozenset("grew moved was were had did went made got took came left started knew taught wrote ran met lost "
                     "found bought spent said began became sold built".split())
# Base forms a second clause may start with: "I'm 34 and live alone" -> "... and lives alone".
_EN_SECOND = re.compile(r"\b(?P<and>and|but) (?P<verb>do|live|work|use|try|volunteer|teach|write|run|play|speak|love|"
                        r"like|have|go|need|want|make|cook|read|prefer|hate|study|own|drive|eat|drink)\b")
_EN_FRONT = re.compile(r"^(?P<lead>(?:at|in|for) (?:work|my (?:job|company|work|team)|our (?:company|team))),? "
                       r"(?P<rest>(?:i|we) .+)", re.I)
# What follows is the request the statement was context for: "I'm vegan, so give me ...".
_EN_REQUEST_TAIL = re.compile(r",? (?:so|and) (?=(?:please|give|tell|can|could|make|show|suggest|write|help)\b)"
                              r"|,? please\b|, (?=(?:so )?you\b)", re.I)


def _english(text: str) -> str:
    text = LEAD_IN.sub("", REMEMBER.sub("", text))
    text = _EN_REQUEST_TAIL.split(text, 1)[0]
    tail = ""
    front = _EN_FRONT.match(text)
    if front:
        text, tail = front.group("rest"), " " + front.group("lead").lower()
    for pattern, template in _EN_FIXED:
        m = pattern.match(text)
        if m:
            return _en_rest(template.format(x=m.group("x"))) + tail
    m = _EN_VERB.match(text)
    if m:
        verb = m.group("verb").lower()
        verb = verb if verb in _EN_PAST or verb.endswith("ed") else third_person(verb)
        return _en_rest(f"{m.group('adv')}{verb}{m.group('x')}") + tail
    return _en_rest(text) + tail


def _en_rest(text: str) -> str:
    return _EN_SECOND.sub(lambda m: f"{m.group('and')} {third_person(m.group('verb'))}", text)


# ---- French, Spanish, Portuguese, German --------------------------------------------------
# Each: the subject pattern, a table of first-person verbs (irregular ones), the regular
# rule. A verb right after "and" + subject is put in the third person too.

_FR_VERBS = {"suis": "est", "ai": "a", "vais": "va", "fais": "fait", "peux": "peut", "veux": "veut", "sais": "sait",
             "dois": "doit", "vis": "vit", "bois": "boit", "conduis": "conduit", "prends": "prend",
             "apprends": "apprend", "écris": "écrit", "lis": "lit", "viens": "vient", "tiens": "tient",
             "connais": "connaît", "sors": "sort", "dors": "dort", "cours": "court", "mets": "met", "crois": "croit",
             "vois": "voit", "finis": "finit"}


def _fr_verb(verb: str) -> str:
    verb = verb.lower()
    if verb in _FR_VERBS:
        return _FR_VERBS[verb]
    if verb.endswith("x"):
        return verb[:-1] + "t"
    if verb.endswith(("ds", "cs")):
        return verb[:-1]
    if verb.endswith("is"):
        return verb[:-1] + "t"
    return verb  # -er verbs: "j'habite" -> "habite"


_ES_VERBS = {"soy": "es", "estoy": "está", "voy": "va", "tengo": "tiene", "hago": "hace", "doy": "da", "sé": "sabe",
             "puedo": "puede", "quiero": "quiere", "prefiero": "prefiere", "vengo": "viene", "digo": "dice",
             "conozco": "conoce", "juego": "juega", "duermo": "duerme", "pienso": "piensa", "vivo": "vive",
             "como": "come", "bebo": "bebe", "escribo": "escribe", "leo": "lee", "aprendo": "aprende",
             "corro": "corre", "entiendo": "entiende", "siento": "siente", "sigo": "sigue", "conduzco": "conduce",
             "salgo": "sale"}
_PT_VERBS = {"sou": "é", "estou": "está", "tenho": "tem", "vou": "vai", "faço": "faz", "dou": "dá", "sei": "sabe",
             "posso": "pode", "quero": "quer", "prefiro": "prefere", "bebo": "bebe", "como": "come",
             "escrevo": "escreve", "leio": "lê", "dirijo": "dirige", "vivo": "vive", "aprendo": "aprende",
             "corro": "corre", "venho": "vem", "digo": "diz", "durmo": "dorme", "sinto": "sente", "sigo": "segue"}


def _iberian_verb(verb: str, table: dict[str, str], past: str) -> str:
    verb = verb.lower()
    if verb in table:
        return table[verb]
    if verb.endswith("amos"):
        return verb[:-4] + past  # "nos mudamos" (we moved): the past is the common case in a statement
    if verb.endswith("o") and len(verb) > 2:
        return verb[:-1] + "a"  # the -ar verbs, by far the most common
    return verb


_DE_VERBS = {"bin": "ist", "habe": "hat", "kann": "kann", "will": "will", "muss": "muss", "mag": "mag",
             "weiß": "weiß", "darf": "darf", "soll": "soll", "möchte": "möchte", "fahre": "fährt",
             "spreche": "spricht", "lese": "liest", "esse": "isst", "sehe": "sieht", "gebe": "gibt", "nehme": "nimmt",
             "trage": "trägt", "schlafe": "schläft", "laufe": "läuft", "halte": "hält", "lasse": "lässt",
             "helfe": "hilft", "treffe": "trifft", "vergesse": "vergisst", "sind": "ist", "haben": "hat",
             "werde": "wird", "tue": "tut"}


def _de_verb(verb: str) -> str:
    verb = verb.lower()
    if verb in _DE_VERBS:
        return _DE_VERBS[verb]
    if verb.endswith("en") and len(verb) > 3:  # "wir wohnen"
        return verb[:-2] + ("et" if verb[-3] in "td" else "t")
    if verb.endswith("e") and len(verb) > 2:
        return verb[:-1] + ("et" if verb[-2] in "td" else "t")
    return verb


_LATIN = {
    # language: (subject at the start, subject after "and", and, third-person verb)
    "fr": (r"(?:moi,? )?(?:je |j'|nous |on )", r"(?:je |j')", "et", _fr_verb),
    "es": (r"(?:yo |nosotros |nosotras )?", "", "y", lambda v: _iberian_verb(v, _ES_VERBS, "ó")),
    "pt": (r"(?:eu |nós |a gente )?", "", "e", lambda v: _iberian_verb(v, _PT_VERBS, "ou")),
    "de": (r"(?:ich |wir )", "", "und", _de_verb),
}
_NEGATION = {"fr": "ne |n'", "es": "no ", "pt": "não ", "de": "(?!)"}  # German says "nicht" after the verb
_REFLEXIVE = {"me": "se", "m'": "s'", "nos": "se", "mich": "sich"}
_ES_PT_LIKE = frozenset("gusta gustan encanta encantan interesa interesan".split())
_LETTERS = "[\\wáàâäãéèêëíîïóôöõúùûüçñœß]"
# Compiled here, once per language, like every pattern of the host (tests/unit/test_regex_hostile.py).
_LATIN_START = {lang: re.compile(rf"^{subject}(?P<neg>{_NEGATION[lang]})?(?P<refl>me |m'|nos )?(?P<verb>{_LETTERS}+)"
                                 rf"(?P<x>.*)", re.I) for lang, (subject, _, _, _) in _LATIN.items()}
_LATIN_AND = {lang: re.compile(rf"\b{and_word} {and_subject}(?P<v>{_LETTERS}+)")
              for lang, (_, and_subject, and_word, _) in _LATIN.items()}
_REFLEXIVE_AFTER_VERB = re.compile(r"^ (?:me|mich)(?= )", re.I)


def _latin(text: str, lang: str) -> str:
    and_word, verb3 = _LATIN[lang][2:]
    m = _LATIN_START[lang].match(text)
    if not m:
        return text
    verb, refl, rest = m.group("verb").lower(), (m.group("refl") or "").lower(), m.group("x")
    if refl and verb in _ES_PT_LIKE:  # "me gusta" -> "le gusta"
        return f"{m.group('neg') or ''}le {verb}{rest}"
    reflexive = _REFLEXIVE.get(refl.strip(), "")
    reflexive += " " if reflexive and not reflexive.endswith("'") else ""
    # "estou me preparando", "bereite mich vor": the reflexive right after the verb.
    rest = _REFLEXIVE_AFTER_VERB.sub(lambda r: " " + _REFLEXIVE[r.group(0).strip().lower()], rest)
    text = f"{m.group('neg') or ''}{reflexive}{verb3(verb)}{rest}"
    return _LATIN_AND[lang].sub(lambda n: f"{and_word} {_second_verb(n.group('v'), verb3, lang)}", text)


def _second_verb(word: str, verb3, lang: str) -> str:
    """The verb after "and": only first-person forms change (a noun there stays as it is)."""
    lower = word.lower()
    known = {"fr": _FR_VERBS, "es": _ES_VERBS, "pt": _PT_VERBS, "de": _DE_VERBS}[lang]
    if lower in known or lang == "fr" or (lang in ("es", "pt") and lower.endswith("o") and len(lower) > 2) \
            or (lang == "de" and lower.endswith("e") and len(lower) > 3):
        return verb3(word)
    return word


# ---- Chinese, Japanese, Korean -------------------------------------------------------------

_ZH_SUBJECT = re.compile(r"^(?:我的|我们(?!家)|我(?!们))")
_JA_SUBJECT = re.compile(r"^(?:私|僕|俺|わたし|あたし)(?:は|も)、?")
_KO_SUBJECT = re.compile(r"^(?:저는|나는|제가|내가|저도|나도)\s*|^(?:제|내)\s+(?=목표|꿈|이름)")


def _chinese(text: str) -> str:
    return _ZH_SUBJECT.sub("", text)


_JA_PLAIN = [("ています", "ている"), ("でいます", "でいる"), ("あります", "ある"), ("います", "いる"), ("ました", "た"),
             ("たいです", "たい"), ("です", ""), ("せます", "せる"), ("えます", "える"), ("べます", "べる"),
             ("めます", "める"), ("れます", "れる"), ("けます", "ける"), ("きます", "く"), ("みます", "む"),
             ("ります", "る"), ("します", "する")]


def _japanese(text: str) -> str:
    text = _JA_SUBJECT.sub("", text)
    for polite, plain in _JA_PLAIN:
        if text.endswith(polite):
            return text[:-len(polite)] + plain
    return text


def _korean(text: str) -> str:
    return _KO_SUBJECT.sub("", text)


_REWRITERS = {"en": _english, "fr": lambda t: _latin(t, "fr"), "es": lambda t: _latin(t, "es"),
              "pt": lambda t: _latin(t, "pt"), "de": lambda t: _latin(t, "de"), "zh": _chinese, "ja": _japanese,
              "ko": _korean}
