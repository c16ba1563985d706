"""One module per family of actions; each registers its handlers with @action.

A handler takes (request, RequestContext) and returns the request's Reply model or
raises a WhiteboardError. `blocking=True` (network, disk, model calls) runs it on the
bounded worker pool (server/pool.py) so the reader keeps serving; everything else runs
inline, in order. Start-up refuses a message without a
handler and a handler without a message.
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


HANDLERS: dict[str, Action] = {}


def action(request_model: type[Request], *, blocking: bool = False):
    type_name = request_model.message_type()
    if type_name not in REQUESTS:
        raise RuntimeError(f"{type_name!r} has no entry in protocol.messages.REQUESTS")

    def register(fn: Callable) -> Callable:
        if type_name in HANDLERS:
            raise RuntimeError(f"two handlers for {type_name!r}")
        HANDLERS[type_name] = Action(type_name, fn, blocking)
        return fn

    return register


def load_all() -> dict[str, Action]:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    missing = set(REQUESTS) - set(HANDLERS)
    if missing:
        raise RuntimeError(f"messages without a handler: {sorted(missing)}")
    return HANDLERS
