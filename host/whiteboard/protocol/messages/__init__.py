"""Every message the host understands, defined once (see docs/protocol.md).

Each module of this package holds one family of request and reply models. The registry
is derived from them: every module here is imported, and every Request subclass with a
one-value `type` Literal is a message, its reply the model it names (`reply_model`).
Adding a message is defining its two models in a module here (plus its handler, with
@action, and its section in docs/protocol.md); a type defined twice, or a request with
no reply, stops the host at start-up.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from typing import Annotated, Union

from pydantic import Field, TypeAdapter, ValidationError

from ..errors import BadRequest, UnknownType
from .base import Event, Reply, Request


def _all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_all_subclasses(sub)]
    return found


def _reply_of(model: type[Request]) -> type[Reply]:
    named = getattr(model, "reply_model", None)
    reply = getattr(sys.modules[model.__module__], named, None) if isinstance(named, str) else named
    if not (isinstance(reply, type) and issubclass(reply, Reply)):
        raise RuntimeError(f"{model.__name__} names no Reply model (reply_model = {named!r})")
    model.reply_model = reply  # resolved once: the dispatch core checks replies against it
    return reply


def derive_registry(models) -> dict[str, tuple[type[Request], type[Reply]]]:
    """type -> (request model, reply model) for every message model (one with a one-value `type`)."""
    table: dict[str, tuple[type[Request], type[Reply]]] = {}
    for model in models:
        type_name = model.message_type()
        if type_name is None:
            continue
        if type_name in table:
            raise RuntimeError(f"message type {type_name!r} defined twice")
        table[type_name] = (model, _reply_of(model))
    return table


def _message_models() -> list[type[Request]]:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return [m for m in _all_subclasses(Request) if m.__module__.startswith(f"{__name__}.")]


# type -> (request model, reply model)
REQUESTS = derive_registry(_message_models())

_request_union = TypeAdapter(
    # A union of a tuple built at run time: there is no `|` spelling for it.
    Annotated[Union[tuple(model for model, _ in REQUESTS.values())], Field(discriminator="type")]  # noqa: UP007
)


def parse_request(raw: dict) -> Request:
    """Validate a decoded request; UnknownType / BadRequest say what is wrong, never echo content."""
    if not isinstance(raw.get("type"), str):
        raise BadRequest("type: must be a string naming the message")
    try:
        return _request_union.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        if first["type"] == "union_tag_invalid":
            raise UnknownType(f"unknown message type {str(raw.get('type'))[:64]!r}") from None
        raise BadRequest(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError) -> str:
    """'field: problem; ...' without the offending values (they may be message content)."""
    parts = []
    for err in exc.errors(include_input=False, include_url=False, include_context=False)[:5]:
        where = ".".join(str(p) for p in err["loc"][1:] if p is not None) or "message"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


__all__ = ["REQUESTS", "Event", "Reply", "Request", "derive_registry", "describe_validation_error", "parse_request"]
