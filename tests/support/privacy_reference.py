"""The privacy filter as it was before it was made linear-time (backtracking `re`, issue 12 item 2).

Kept only as the oracle of the equivalence fuzz in tests/unit/test_privacy_hostile.py: on short
inputs, where backtracking is cheap, whiteboard.privacy.redact must return exactly what this did.
"""

from __future__ import annotations

import re

from whiteboard.privacy import REDACTED, Filtered

_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
                               re.DOTALL)),
    ("api_key", re.compile(
        r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"
        r"|xai-[A-Za-z0-9]{20,}"
        r"|gh[pousr]_[A-Za-z0-9]{30,}"
        r"|github_pat_[A-Za-z0-9_]{30,}"
        r"|AKIA[0-9A-Z]{16}"
        r"|AIza[0-9A-Za-z_\-]{30,}"
        r"|xox[abprs]-[A-Za-z0-9\-]{10,}"
        r"|glpat-[A-Za-z0-9_\-]{20,})"
    )),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9_\-\.=~+/]{8,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("assignment", re.compile(
        r"\b((?:[A-Za-z0-9]+[_\-.])*(?:[a-z0-9]*(?:Key|Secret|Password|Passwd|Token)"
        r"|KEY|SECRET|PASSWORD|PASSWD|TOKEN|key|secret|password|passwd|token)(?:[_\-.][A-Za-z0-9]+)*)"
        r"(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|\S+)"
    )),
    ("email", re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b")),
    ("long_token", re.compile(r"\b(?=[A-Za-z0-9_\-+/]*\d)(?=[A-Za-z0-9_\-+/]*[A-Za-z])[A-Za-z0-9_\-+/]{32,}={0,2}")),
]


def reference_redact(text: str) -> Filtered:
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
    for kind, pattern in _PATTERNS:
        if kind == "assignment":
            text, n = pattern.subn(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
        else:
            text, n = pattern.subn(REDACTED, text)
        note(kind, n)
    return Filtered(text=text, count=count, kinds=tuple(kinds))
