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
