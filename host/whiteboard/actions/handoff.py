"""handoff.summary: the tab's conversation as a six-section note for another chat site."""

from __future__ import annotations

from ..llm.errors import Cancelled
from ..protocol.errors import NotFound, Unavailable
from ..protocol.messages.handoff import HandoffSection, HandoffSummary, HandoffSummaryReply
from . import action
from .session import context_for


@action(HandoffSummary, blocking=True)
def handoff_summary(req: HandoffSummary, ctx) -> HandoffSummaryReply:
    from ..llm.handoff import TRANSCRIPT_TOKENS, latest_request, make_handoff  # loads with its first request

    app = ctx.app
    with app.sessions.lock:
        session = app.sessions.get(req.key)
        messages = session.all_messages() if session is not None else []
    if not messages:
        raise NotFound("no conversation in this tab to hand off (nothing captured yet, or it was cleared)")
    # Built first: building folds what it leaves out into the summary read next.
    conversation = context_for(app, req.key, TRANSCRIPT_TOKENS, "follow_up", query=latest_request(messages)).context
    with app.sessions.lock:
        summary = session.summary
    try:
        made = make_handoff(messages, summary, conversation, app.tokens, app.llm, req.budget, ctx.cancelled)
    except Cancelled:
        raise Unavailable("the handoff was cancelled") from None
    return HandoffSummaryReply(sections=[HandoffSection(id=i, title=t, text=x) for i, t, x in made.sections],
                               text=made.text, language=made.language, method=made.method, tokens=made.tokens)
