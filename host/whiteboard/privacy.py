"""Privacy filter (design §6): applied at capture, before anything is kept or sent.

Removes <private>...</private> spans and replaces secrets with [REDACTED]. Only the
count and kinds of what was removed are kept, never the removed text.

Linear time on every input (issue 12 item 2; design §6): it runs on whatever a page sends,
so no pattern may backtrack over text it already scanned. Quantifiers that backtracking could not
help are possessive (`++`, `*+`), and where the old patterns retried a failed match at every
word boundary inside one run of characters (`foo-foo-…`, `a.a.a…`, random base64url), the search
now consumes that run once and a check in Python decides whether it is a secret.
tests/unit/test_privacy_hostile.py holds this to the old patterns' exact output.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

REDACTED = "[REDACTED]"

_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)

_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL)
_API_KEY = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}+"
    r"|xai-[A-Za-z0-9]{20,}+"
    r"|gh[pousr]_[A-Za-z0-9]{30,}+"
    r"|github_pat_[A-Za-z0-9_]{30,}+"
    r"|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{30,}+"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}+"
    r"|glpat-[A-Za-z0-9_\-]{20,}+)"
)
_BEARER = re.compile(r"(?i)\bbearer\s++[A-Za-z0-9_\-\.=~+/]{8,}+")

# eyJ<8+>.<8+>.<8+> at a word start (the lookbehind keeps the fast literal search). A failed
# candidate consumes the rest of its run when another -eyJ follows in it: that one would fail too.
_JWT = re.compile(r"eyJ(?<!\weyJ)(?:(?P<jwt>[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+)"
                  r"|(?=[A-Za-z0-9_\-]*?-eyJ)[A-Za-z0-9_\-]*+)")

# NAME=value / name: value where a dot/dash/underscore-separated part of NAME is KEY/SECRET/...
# or ends in Key/Secret/... (camelCase), so "monkey" is not one. A name is tried once, from its
# first part (the lookbehinds), never again from each inner word boundary; when a word character
# touches its first part, the old `\b` could only start after the first - or . . Group 1 is kept.
_SECRET_PART = (r"(?:[a-z0-9]*+(?:Key|Secret|Password|Passwd|Token)"
                r"|KEY|SECRET|PASSWORD|PASSWD|TOKEN|key|secret|password|passwd|token)(?![A-Za-z0-9])")
_ASSIGNMENT = re.compile(
    r"(?=[A-Za-z0-9])(?<![A-Za-z0-9])(?<![A-Za-z0-9][_\-.])"
    r"((?>(?<!\w)|[A-Za-z0-9]++(?:_[A-Za-z0-9]++)*+[\-.])"
    rf"(?:(?!{_SECRET_PART})[A-Za-z0-9]++[_\-.])*+{_SECRET_PART}(?:[_\-.][A-Za-z0-9]++)*+"
    r"\s*+[=:]\s*+)(?:\"[^\"]*+\"|'[^']*+'|\S++)")

# An address is tried once per run of address characters, from its first word boundary
# (`skip` is what precedes it); after a match that ended inside a run, _EMAIL_REST tries the
# rest of that run as the old pattern's next search would have.
_EMAIL_ADDRESS = r"(?P<email>[A-Za-z0-9._%+\-]++@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}+\b)"
_EMAIL = re.compile(r"(?=[A-Za-z0-9._%+\-])(?<![A-Za-z0-9._%+\-])(?P<skip>(?>\b|[A-Za-z0-9_]++|[.%+\-]++))"
                    + _EMAIL_ADDRESS)
_INSIDE_ADDRESS_RUN = {".", "%", "+", "-"}  # what may follow a match's top-level domain in one run
_EMAIL_REST = re.compile(r"(?P<skip>(?:\B[A-Za-z0-9._%+\-])*+)\b" + _EMAIL_ADDRESS)

# Long random-looking tokens: 32+ chars of base64/hex alphabet with letters and digits mixed.
# The whole run is matched once and checked in Python (the old lookaheads rescanned it per boundary).
_LONG_TOKEN = re.compile(r"\b(?P<token>[A-Za-z0-9_\-+/]{32,}+)={0,2}")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class Filtered:
    text: str
    count: int = 0
    kinds: tuple[str, ...] = field(default_factory=tuple)


def _needs(*markers: str, fold: bool = False) -> Callable[[str], bool]:
    """A pattern runs only on text holding one of its literal markers: ordinary chat text skips most."""
    def check(text: str) -> bool:
        haystack = text.lower() if fold else text
        return any(mark in haystack for mark in markers)
    return check


def _redact_plain(pattern: re.Pattern[str]) -> Callable[[str], tuple[str, int]]:
    return lambda text: pattern.subn(REDACTED, text)


def _redact_jwts(text: str) -> tuple[str, int]:
    n = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal n
        if m.group("jwt") is None:
            return m.group()
        n += 1
        return REDACTED

    return _JWT.sub(replace, text), n


def _redact_assignments(text: str) -> tuple[str, int]:
    return _ASSIGNMENT.subn(lambda m: m[1] + REDACTED, text)


def _redact_emails(text: str) -> tuple[str, int]:
    out: list[str] = []
    n = kept = 0
    m = _EMAIL.search(text)
    while m is not None:
        out += [text[kept:m.start()], m.group("skip"), REDACTED]
        n += 1
        kept = m.end()
        m = (text[kept:kept + 1] in _INSIDE_ADDRESS_RUN and _EMAIL_REST.match(text, kept)) or _EMAIL.search(text, kept)
    out.append(text[kept:])
    return "".join(out), n


def _redact_long_tokens(text: str) -> tuple[str, int]:
    n = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal n
        token = m.group("token")
        # A digit right after the run counted for the old lookahead too (a Unicode digit, say).
        if not (_DIGIT.search(token) or _DIGIT.match(text, m.end("token"))) or not _LETTER.search(token):
            return m.group()
        n += 1
        return REDACTED

    return _LONG_TOKEN.sub(replace, text), n


# Order matters: specific shapes before the generic long-token rule.
_FILTERS: list[tuple[str, Callable[[str], bool], Callable[[str], tuple[str, int]]]] = [
    ("private_key", _needs("-----BEGIN "), _redact_plain(_PRIVATE_KEY)),
    ("api_key", _needs("sk-", "xai-", "gh", "github_pat_", "AKIA", "AIza", "xox", "glpat-"), _redact_plain(_API_KEY)),
    ("bearer_token", _needs("bearer", fold=True), _redact_plain(_BEARER)),
    ("jwt", _needs("eyJ"), _redact_jwts),
    ("assignment", _needs("=", ":"), _redact_assignments),
    ("email", _needs("@"), _redact_emails),
    ("long_token", lambda text: True, _redact_long_tokens),
]


def redact(text: str) -> Filtered:
    count = 0
    kinds: list[str] = []

    def note(kind: str, n: int) -> None:
        nonlocal count
        if n:
            count += n
            if kind not in kinds:
                kinds.append(kind)

    text, n = _PRIVATE_SPAN.subn("", text)
    note("private", n)
    for kind, may_match, apply in _FILTERS:
        if may_match(text):
            text, n = apply(text)
            note(kind, n)
    return Filtered(text=text, count=count, kinds=tuple(kinds))
