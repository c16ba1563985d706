"""session.*: the RAM store seen from the wire."""

from __future__ import annotations

from typing import Collection

from ..privacy import redact
from ..protocol.errors import NotFound
from ..protocol.messages import core
from ..sessions.context import build_context
from ..sessions.summary import fold_pending
from . import action


def context_for(app, key: str, budget: int, mode: str, exclude_seq: int | Collection[int] | None = None,
                query: str | None = None):
    """Build a session's context (for `query` when there is one) and fold what the budget
    leaves out into the rolling summary. What is folded does not depend on the query: it is
    what the context without one leaves out, so the summary is the same whatever is asked."""
    with app.sessions.lock:
        session = app.sessions.get(key)
        app.tokens.wait_ready(5.0)
        state = _fold_state(session, budget, mode, exclude_seq, app.tokens.ready)
        if query and session is not None and session.fold_checked == state:
            return build_context(session, budget, mode, app.tokens, app.config.limits, exclude_seq, query)
        built = build_context(session, budget, mode, app.tokens, app.config.limits, exclude_seq)
        if session is not None:
            body = [m for m in session.all_messages() if m is not session.seed]
            oldest_kept = min((m.seq for m in body if m.seq not in built.left_out), default=session.next_seq)
            # Only messages older than everything kept, and not folded before, join the summary.
            left_behind = [m for m in body if m.seq in built.left_out
                           and session.folded_through < m.seq < oldest_kept]
            if session.unfolded or left_behind:
                fold_pending(session, app.summarizer, app.tokens, app.config.limits.summary_max_tokens, left_behind)
                built = build_context(session, budget, mode, app.tokens, app.config.limits, exclude_seq)
            else:
                session.fold_checked = state
        if query and session is not None:
            built = build_context(session, budget, mode, app.tokens, app.config.limits, exclude_seq, query)
        return built


def _fold_state(session, budget: int, mode: str, exclude_seq, exact: bool) -> tuple:
    """All a context without a query depends on: when it is unchanged, so is what that context leaves out."""
    if session is None:
        return ()
    excluded = (exclude_seq,) if isinstance(exclude_seq, int) else tuple(sorted(exclude_seq or ()))
    return (budget, mode, excluded, exact, session.next_seq, len(session.messages), session.folded_through,
            session.summary)


def kept_of(built) -> core.Kept:
    return core.Kept(full=built.kept.full, shortened=built.kept.shortened, summarised=built.kept.summarised)


@action(core.SessionAdd)
def session_add(req: core.SessionAdd, ctx) -> core.SessionAddReply:
    filtered = redact(req.content)
    session = ctx.app.sessions.add(req.key, req.role, filtered.text, req.source, redacted=filtered.kinds)
    return core.SessionAddReply(count=session.count, redacted=filtered.count, redacted_kinds=list(filtered.kinds))


@action(core.SessionContext)
def session_context(req: core.SessionContext, ctx) -> core.SessionContextReply:
    built = context_for(ctx.app, req.key, req.budget, req.mode, query=req.query)
    return core.SessionContextReply(context=built.context, used_tokens=built.used_tokens, budget=built.budget,
                                    distilled=built.distilled, mode=built.mode, kept=kept_of(built))


@action(core.SessionGet)
def session_get(req: core.SessionGet, ctx) -> core.SessionGetReply:
    session = ctx.app.sessions.get(req.key)
    if session is None:
        raise NotFound("no session for that key (nothing captured in this tab yet, or it was cleared)")
    budget = ctx.app.config.limits.default_budget
    built = context_for(ctx.app, req.key, budget, "follow_up")
    with ctx.app.sessions.lock:
        messages = [core.MessageOut(role=m.role, content=m.content, timestamp=m.timestamp, source=m.source)
                    for m in session.all_messages()]
        return core.SessionGetReply(messages=messages, summary=session.summary, used_tokens=built.used_tokens,
                                    budget=budget, distilled=built.distilled, kept=kept_of(built))


@action(core.SessionClear)
def session_clear(req: core.SessionClear, ctx) -> core.SessionClearReply:
    ctx.app.forget_draft(req.key)  # the tab closed or left its site: its draft's vector goes too
    return core.SessionClearReply(cleared=ctx.app.sessions.clear(req.key))


@action(core.SessionClearAll)
def session_clear_all(req: core.SessionClearAll, ctx) -> core.SessionClearAllReply:
    ctx.app.forget_draft()
    return core.SessionClearAllReply(cleared=ctx.app.sessions.clear_all())


@action(core.SessionList)
def session_list(req: core.SessionList, ctx) -> core.SessionListReply:
    return core.SessionListReply(sessions=[core.SessionInfo(key=s.key, count=s.count, started_at=s.started_at)
                                           for s in ctx.app.sessions.list()])
