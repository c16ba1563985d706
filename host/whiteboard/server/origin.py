"""Who launched us: the caller's origin from argv (design §2).

A caller is named one way per browser family, and each is parsed strictly: Chrome passes
`chrome-extension://<32 letters a-p>/` as argv[1]; Firefox passes the absolute path of the
host manifest it read as argv[1] and the add-on id as argv[2]. Anything else names no caller
(None), which no allowed list contains.
"""

from __future__ import annotations

import os
import re

CHROME_ORIGIN_RE = re.compile(r"^chrome-extension://[a-p]{32}/$")
# Firefox add-on ids: an email-like id or a {GUID} (as Firefox's own manifest schema has them).
GECKO_ID_RE = re.compile(r"^(?:[A-Za-z0-9._-]{1,80}@[A-Za-z0-9._-]{1,80}|\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-"
                         r"[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\})$")


def is_firefox_caller(caller: str) -> bool:
    return bool(GECKO_ID_RE.fullmatch(caller))


def caller_origin(argv: list[str]) -> str | None:
    """The Chrome origin or the Firefox add-on id that started us, else None. Windows adds
    --parent-window=N (Chrome); other `--` arguments are ignored."""
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        return None
    first = args[0] if args[0].endswith("/") or not args[0].startswith("chrome-extension://") else args[0] + "/"
    if CHROME_ORIGIN_RE.fullmatch(first):
        return first
    if len(args) >= 2 and args[0].lower().endswith(".json") and os.path.isabs(args[0]) \
            and GECKO_ID_RE.fullmatch(args[1]):
        return args[1]
    return None


def describe_refused(argv: list[str]) -> str:
    """The refusal log line's words: what argv named, shortened, never anything the page sent."""
    args = [a[:100] for a in argv[1:3]]
    return f"refusing caller {args!r}: not an allowed Chrome origin or Firefox add-on id"
