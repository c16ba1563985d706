"""Who launched us: the caller's origin from argv (design §2)."""

from __future__ import annotations


def caller_origin(argv: list[str]) -> str | None:
    """Chrome: argv[1] = chrome-extension://<id>/. Firefox: argv[1] = manifest path,
    argv[2] = add-on id. Windows adds --parent-window=N; other extras are ignored."""
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        return None
    if args[0].startswith("chrome-extension://"):
        return args[0] if args[0].endswith("/") else args[0] + "/"
    if args[0].endswith(".json") and len(args) > 1:
        return args[1]
    return args[0]
