"""vbrief.*: a tab's session as a vBRIEF document, its tiers within a budget, and back."""

from __future__ import annotations

from ..protocol.errors import NotFound
from ..protocol.messages import vbrief as m
from ..sessions.summary import fold_pending
from . import action

# vBRIEF's code loads with its first request, not with the host (design §1).


@action(m.VbriefExport, blocking=True)
def vbrief_export(req: m.VbriefExport, ctx) -> m.VbriefExportReply:
    from ..vbrief.compress import LayerSummary
    from ..vbrief.export import copy_session, export_session

    app = ctx.app
    app.tokens.wait_ready(5.0)
    with app.sessions.lock:
        session = app.sessions.get(req.key)
        if session is None:
            raise NotFound("no session for that key (nothing captured in this tab yet, or it was cleared)")
        # Messages the cap dropped join the rolling summary the document carries, or they would be lost.
        # Only those: folding what a context build leaves out would make two exports differ.
        fold_pending(session, app.summarizer, app.tokens, app.config.limits.summary_max_tokens)
        copy = copy_session(session)
        cache = session.export_summaries
    model = LayerSummary(app.llm, ctx.cancelled, cache) if app.llm.configured() else None
    return m.VbriefExportReply(document=export_session(copy, app.tokens, model, agent=req.agent))


@action(m.VbriefLoad)
def vbrief_load(req: m.VbriefLoad, ctx) -> m.VbriefLoadReply:
    ctx.app.tokens.wait_ready(5.0)
    from ..vbrief.load import load_tiers

    result = load_tiers(req.document.session_snapshot.memory_tiers, req.budget, ctx.app.tokens)
    return m.VbriefLoadReply(
        loaded=[m.LoadedTier(tier=t.tier, label=t.label, content=t.content, token_cost=t.token_cost)
                for t in result.loaded],
        remaining=[m.RemainingTier(tier=t.tier, label=t.label, token_cost=t.token_cost) for t in result.remaining],
        used_tokens=result.used_tokens, budget=result.budget)


@action(m.VbriefImport)
def vbrief_import(req: m.VbriefImport, ctx) -> m.VbriefImportReply:
    from ..vbrief.restore import restore_session

    restored = restore_session(ctx.app.sessions, req.key, req.document, req.replace)
    return m.VbriefImportReply(count=restored.session.count, redacted=restored.redacted)
