"""Adversarial inputs for the privacy filter (issue 12 item 2), generated systematically.

Every pattern of whiteboard.privacy is attacked by repeating a short unit made of one of its
prefixes or near-matches (ATOMS) and a separator (SEPARATORS) to the wanted size (`foo-foo-…`,
`a.a.a…`, `x=x=…`, `@@@…`), by one prefix followed by a long run of one filler character, and by
random text over the alphabets the patterns scan (base64url, hex, the email alphabet).
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from re import _compiler, _parser  # the parser's internals: what a pattern is made of
from re import _constants as c

# Prefixes, keywords and near-misses of every pattern in whiteboard/privacy.py.
ATOMS = [
    "a", "A", "1", "é", "_", "foo", "monkey", "key", "Key", "KEY", "apiKey", "token", "password", "Secret",
    "sk", "sk-", "sk-proj-", "xai-", "ghp_", "github_pat_", "AKIA", "AIza", "xoxb-", "glpat-",
    "eyJ", "eyJa.", "bearer", "Bearer ", "<private>", "</private>", "-----BEGIN ", "-----END ",
    "PRIVATE KEY", "PRIVATE KEY-----", "x@", "@a.", "a.b", "a1", "A1-",
]
SEPARATORS = ["", "-", ".", "_", "=", ":", "@", " ", "/", "+", "%", "\"", "'", "\n", "~", "a"]
FILLERS = ["a", "1", "A", "-", ".", " ", "=", "_", "@", "\"", "/"]

BASE64URL = string.ascii_letters + string.digits + "-_"
HEX = "0123456789abcdef"
EMAIL_LOCAL = string.ascii_letters + string.digits + "._%+-"


def repeat_to(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def random_text(alphabet: str, size: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choices(alphabet, k=size))


def hostile_inputs(size: int) -> Iterator[tuple[str, str]]:
    """(name, text) pairs, each text `size` characters long."""
    for atom in ATOMS:
        for sep in SEPARATORS:
            if atom + sep:
                yield f"repeat {atom + sep!r}", repeat_to(atom + sep, size)
        for filler in FILLERS:
            yield f"{atom!r} then {filler!r}*", atom + repeat_to(filler, size - len(atom))
    for name, alphabet in (("base64url", BASE64URL), ("hex", HEX), ("email alphabet", EMAIL_LOCAL),
                           ("email alphabet and @", EMAIL_LOCAL + "@"), ("printable", string.printable)):
        yield f"random {name}", random_text(alphabet, size, seed=size)


# The audit's reproductions (issue 12 item 2) and one worst case per pattern found while fixing it.
AUDIT_CASES = {
    "foo-foo-": "foo-",
    "a.a.a.": "a.",
    "key-key-": "key-",
    "eyJ-eyJ-": "eyJ-",
    "x=x=x=": "x=",
    "@@@": "@",
    "a.a@": "a.a@",
}


# One unit per pattern, and texts dense with real secrets (every match costs output).
PER_PATTERN = ["sk-", "xai-a", "ghp_", "AKIA", "AIza-", "xoxb-", "glpat-", "bearer ", "Bearer\t", "eyJa.",
               "eyJ-", "eyJ-eyJ ", "key-", "apiKey.", "a_b-", "KEY =", "a.a@", "x@a.", "@a-", "+-", "a" * 31 + "-",
               "<private>", "-----BEGIN ", "-----END ", "PRIVATE KEY ", "é-key-", "=",
               "key=a ", "x@a.bc ", "sk-" + "a" * 16 + " ", "a1" * 16 + " "]


def per_pattern_inputs(size: int) -> Iterator[tuple[str, str]]:
    for unit in PER_PATTERN:
        yield f"repeat {unit!r}", repeat_to(unit, size)


def audit_inputs(size: int) -> Iterator[tuple[str, str]]:
    for name, unit in AUDIT_CASES.items():
        yield name, repeat_to(unit, size)
    yield "random base64url", random_text(BASE64URL, size, seed=1)
    yield "a 100,000-character chat turn of base64url", random_text(BASE64URL, 100_000, seed=2)


# ---- Worst cases generated from any compiled pattern (issue 20 item 2) ----------------------
# A pattern is parsed (re._parser) into the pieces it reacts to: every character class, literal
# and literal word, what its anchors and word boundaries look at (newline, space, a letter).
# Backtracking blows up when a run of such pieces can be matched in many ways and then fails,
# so the inputs are long runs of one piece, of two alternating, and of one word then a run of
# one piece (and the reverse).

# Characters a class is probed with: ASCII, whitespace, and the scripts and punctuation the
# host's patterns name (Latin accents, CJK, kana, Hangul, full-width marks, quotes).
PROBE_CHARS = (string.printable + "\u00a0éàßœñç١“”«»「」『』。！？，；：、" + "我的们中文か한국のア" + "\u2028")
MAX_CLASS_SAMPLES = 3  # members taken from each class: the first, a separator-like one, a letter
MAX_WORDS = 24  # literal words kept per pattern (alternations of dozens of keywords)


def _compile_node(node, state, flags):
    sub = _parser.SubPattern(state, [node])
    code = _compiler._code(sub, flags)
    return _compiler._sre.compile(None, flags | state.flags, code, 0, {}, (None,))


def _class_members(node, state, flags) -> list[str]:
    matcher = _compile_node(node, state, flags)
    members = [c for c in PROBE_CHARS if matcher.match(c)]
    picks = members[:1]
    picks += [c for c in members if not c.isalnum()][:1]
    picks += [c for c in members if c.isalpha()][:1]
    return list(dict.fromkeys(picks))[:MAX_CLASS_SAMPLES]


def pattern_pieces(pattern) -> tuple[list[str], list[str]]:
    """(characters, words) a compiled pattern reacts to."""
    tree = _parser.parse(pattern.pattern, pattern.flags)
    state, flags = tree.state, pattern.flags
    chars: dict[str, None] = {}
    words: dict[str, None] = {}

    def walk(seq):
        run = ""
        for op, av in seq:
            if op is c.LITERAL:
                run += (_class_members((op, av), state, flags) or [chr(av)])[0]
                continue
            flush(run)
            run = ""
            if op in (c.IN, c.NOT_LITERAL, c.ANY):
                chars.update(dict.fromkeys(_class_members((op, av), state, flags)))
            elif op is c.AT:
                chars.update(dict.fromkeys(" \na"))
            elif op is c.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                walk(av[2])
            elif op is c.SUBPATTERN:
                walk(av[3])
            elif op in (c.ATOMIC_GROUP,):
                walk(av)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                walk(av[1])
            elif op is c.GROUPREF_EXISTS:
                walk(av[1])
                if av[2]:
                    walk(av[2])
        flush(run)

    def flush(run):
        (words if len(run) > 1 else chars).update(dict.fromkeys([run] if run else []))

    walk(tree)
    return list(chars), list(words)[:MAX_WORDS]


def pattern_units(pattern) -> list[tuple[str, str]]:
    """(kind, unit) pairs: a `repeat` unit is repeated to size, a `then` unit is a prefix followed
    by a run of its last character, a `before` unit is a run of its first character then the rest."""
    chars, words = pattern_pieces(pattern)
    units = [("repeat", ch) for ch in chars]
    units += [("repeat", a + b) for a in chars for b in chars if a != b]
    for word in words:
        units.append(("repeat", word))
        units += [("repeat", word + ch) for ch in chars]
        units += [("then", word + ch) for ch in chars]
        units += [("before", ch + word) for ch in chars]
    return list(dict.fromkeys(units))


def unit_text(kind: str, unit: str, size: int) -> str:
    if kind == "repeat":
        return repeat_to(unit, size)
    if kind == "then":
        return unit[:-1] + unit[-1] * (size - len(unit) + 1)
    return unit[0] * (size - len(unit) + 1) + unit[1:]
