from __future__ import annotations

from .. import PROTOCOL_VERSION, __version__
from ..protocol.messages.core import Ping, PingReply
from . import action


@action(Ping, inline=True)
def ping(req: Ping, ctx) -> PingReply:
    return PingReply(version=__version__, protocol=PROTOCOL_VERSION, tokenizer_ready=ctx.app.tokens.ready)
