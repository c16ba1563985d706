from __future__ import annotations

from .. import version
from ..protocol import PROTOCOL_VERSION
from ..protocol.messages.core import Ping, PingReply
from . import action


@action(Ping, inline=True)
def ping(req: Ping, ctx) -> PingReply:
    return PingReply(version=version(), protocol=PROTOCOL_VERSION, tokenizer_ready=ctx.app.tokens.ready)
