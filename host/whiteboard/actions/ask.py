"""ask.start / ask.cancel: a question to the configured model, answered as a stream.

The tab's context is built per design §4 in the request's mode; the answer streams
back as ask.delta events, then one reply. The exchange (selection, question, answer)
joins the tab's session after privacy.redact, like anything captured.
"""

from __future__ import annotations

from ..llm.errors import Cancelled
from ..llm.prompts import ask_messages
from ..privacy import redact
from ..protocol.errors import BadRequest
from ..protocol.messages.ask import AskCancel, AskCancelReply, AskStart, AskStartReply
from . import action
from .session import context_for


@action(AskStart, blocking=True)
def ask_start(req: AskStart, ctx) -> AskStartReply:
    app = ctx.app
    client = app.llm.client()  # no model -> unavailable, saying where to configure one
    question = redact(req.question).text.strip()
    if not question:
        raise BadRequest("question: nothing is left once private text is removed")
    selection = redact(req.selection).text.strip() if req.selection else None
    # A selection the extension already captured is sent once, as the selection, not again as context.
    selection_seq = _captured_seq(app, req.key, selection)
    # The selection says what the question is about ("what does this mean?").
    query = f"{question}\n{selection}" if selection else question
    built = context_for(app, req.key, req.budget, req.mode, selection_seq, query=query)
    parts: list[str] = []
    cancelled = False
    try:
        for text in client.stream(ask_messages(req.mode, built.context, question, selection), cancel=ctx.cancelled):
            parts.append(text)
            ctx.emit("ask.delta", text=text)
    except Cancelled:
        cancelled = True
    answer = "".join(parts)
    if answer:
        _remember(app, req.key, question, selection if selection_seq is None else None, answer)
    return AskStartReply(answer=answer, used_tokens=built.used_tokens, budget=built.budget,
                         distilled=built.distilled, cancelled=cancelled)


@action(AskCancel, inline=True)
def ask_cancel(req: AskCancel, ctx) -> AskCancelReply:
    """Cancels any in-flight model request by its id (ask.start, handoff.summary, llm.test).
    On the reader thread: inflight_lock is only ever held for a dict lookup or change."""
    with ctx.app.inflight_lock:
        target = ctx.app.inflight.get(req.ref)
    if target is None:
        return AskCancelReply(cancelled=False)  # finished already, or never existed
    target.cancelled.set()
    return AskCancelReply(cancelled=True)


def _captured_seq(app, key: str, selection: str | None) -> int | None:
    if not selection:
        return None
    with app.sessions.lock:
        session = app.sessions.get(key)
        if session is None:
            return None
        for m in reversed(session.all_messages()):
            if m.content.strip() == selection:
                return m.seq
    return None


def _remember(app, key: str, question: str, new_selection: str | None, answer: str) -> None:
    with app.sessions.lock:
        if new_selection:
            app.sessions.add(key, "user", new_selection, "selection")
        app.sessions.add(key, "user", question)
        app.sessions.add(key, "assistant", redact(answer).text)
