"""llm.settings.get / llm.settings.set / llm.test: the options page's model settings.

The API key is write-only here: it is stored encrypted and replies only say whether
one is set and where it comes from.
"""

from __future__ import annotations

import time

from ..llm.errors import Cancelled
from ..llm.presets import PRESETS
from ..llm.prompts import ping_messages
from ..llm.settings import Resolved
from ..protocol.errors import Unavailable
from ..protocol.messages.llm import LlmSettingsGet, LlmSettingsReply, LlmSettingsSet, LlmTest, LlmTestReply, PresetOut
from . import action

SAMPLE_CHARS = 200


def settings_reply(s: Resolved) -> LlmSettingsReply:
    return LlmSettingsReply(
        configured=s.configured, preset=s.preset, base_url=s.base_url, model=s.model,
        api_key_set=s.api_key is not None, api_key_source=s.key_source, overridden_by_env=list(s.from_env),
        read_timeout=s.timeouts.read, total_timeout=s.timeouts.total,
        presets=[PresetOut(name=p.name, label=p.label, base_url=p.base_url, default_model=p.default_model,
                           needs_key=p.needs_key, note=p.note) for p in PRESETS.values()])


@action(LlmSettingsGet)
def llm_settings_get(req: LlmSettingsGet, ctx) -> LlmSettingsReply:
    return settings_reply(ctx.app.llm.settings())


@action(LlmSettingsSet, blocking=True)
def llm_settings_set(req: LlmSettingsSet, ctx) -> LlmSettingsReply:
    layer = ctx.app.llm
    layer.store.update(preset=req.preset, base_url=req.base_url, model=req.model, api_key=req.api_key,
                       clear_api_key=req.clear_api_key, read_timeout=req.read_timeout,
                       total_timeout=req.total_timeout, allow_insecure=req.allow_insecure)
    layer.invalidate()
    return settings_reply(layer.settings())


@action(LlmTest, blocking=True)
def llm_test(req: LlmTest, ctx) -> LlmTestReply:
    layer = ctx.app.llm
    client = layer.client()
    started = time.monotonic()
    try:
        sample = client.complete(ping_messages(), cancel=ctx.cancelled)
    except Cancelled:
        raise Unavailable("the test was cancelled") from None
    return LlmTestReply(model=client.endpoint.model, endpoint=client.endpoint.origin,
                        latency_ms=round((time.monotonic() - started) * 1000), sample=sample.strip()[:SAMPLE_CHARS])
