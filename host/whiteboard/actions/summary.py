"""session.summary: the rolling summary of what left a tab's context (design §4)."""

from __future__ import annotations

from ..protocol.errors import NotFound
from ..protocol.messages.summary import SessionSummary, SessionSummaryReply
from . import action
from .session import context_for


@action(SessionSummary)
def session_summary(req: SessionSummary, ctx) -> SessionSummaryReply:
    app = ctx.app
    if app.sessions.get(req.key) is None:
        raise NotFound("no session for that key (nothing captured in this tab yet, or it was cleared)")
    # Building the context folds whatever was dropped since the last fold.
    context_for(app, req.key, app.config.limits.default_budget, "follow_up")
    with app.sessions.lock:
        session = app.sessions.get(req.key)
        if session is None:
            raise NotFound("the session was cleared")
        summary, method = session.summary, session.summary_method
        refining = app.summarizer.refining(session)
    return SessionSummaryReply(summary=summary, tokens=app.tokens.count(summary), method=method, refining=refining)
