"""One module per family of actions; each registers its handlers with @action.

A handler takes (request, RequestContext) and returns the request's Reply model or
raises a WhiteboardError. Where it runs (design §3, server/dispatch.py): by default on
the tab pool, one at a time per tab key in arrival order; `blocking=True` (network, disk,
the vault, model calls) on the bounded worker pool, once its tab's earlier requests are
done; `inline=True` on the reader thread itself, only for what is bounded and waits on
no lock that work holds (ping, ask.cancel: tests/unit/test_dispatch.py lists them).
Start-up refuses a message without a handler and a handler without a message.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ..protocol.messages import REQUESTS, Request


@dataclass(frozen=True)
class Action:
    type: str
    handler: Callable
    blocking: bool
    inline: bool = False


HANDLERS: dict[str, Action] = {}


def action(request_model: type[Request], *, blocking: bool = False, inline: bool = False):
    type_name = request_model.message_type()
    if type_name not in REQUESTS:
        raise RuntimeError(f"{type_name!r} has no entry in protocol.messages.REQUESTS")

    def register(fn: Callable) -> Callable:
        if type_name in HANDLERS:
            raise RuntimeError(f"two handlers for {type_name!r}")
        if blocking and inline:
            raise RuntimeError(f"{type_name!r}: blocking work never runs on the reader thread")
        HANDLERS[type_name] = Action(type_name, fn, blocking, inline)
        return fn

    return register


def load_all() -> dict[str, Action]:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    missing = set(REQUESTS) - set(HANDLERS)
    if missing:
        raise RuntimeError(f"messages without a handler: {sorted(missing)}")
    return HANDLERS
