"""chat.*: a send on a chat site gets the tab's selections, background and long-term
memories injected; chat.preview shows the memories first.

chat.prepare_send records the user's message (Whiteboard blocks stripped, privacy
filter applied) and returns the text to send: the draft as typed, followed by the
blocks of design §5 framing. Each block opens with a `---` line and a
`[Whiteboard <kind> ...]` header and closes with `---`, so strip_blocks removes them
from captured turns and nothing Whiteboard injected is ever recorded as the user's words.
Every message recorded restarts the tab's extraction timer on an opted-in site.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from ..blocks import fence, strip_blocks
from ..privacy import redact
from ..protocol.errors import BadRequest, WhiteboardError
from ..protocol.messages import chat
from ..sites import site_of_key
from . import action
from .session import context_for

SELECTION_FOOTER = "(Text I selected on a page before writing this message; my message may refer to it.)"


@dataclass(frozen=True)
class Block:
    kind: str
    text: str
    items: int
    memory_ids: tuple[str, ...] = ()  # a memory block's memories, for their usage count


def memory_site(key: str) -> str | None:
    """The site whose long-term memory settings apply: the key's hostname (None if it is not one)."""
    try:
        return site_of_key(key)
    except BadRequest:
        return None


def memory_state(app, key: str) -> bool | None:
    """Whether the key's site has long-term memory on and not paused, read once per request:
    False for a key that names no site, None when the site settings file cannot be read.
    Every chat reply says it (`memory_on`; off when unknown): the file is shared by all
    browsers' hosts, so a browser's mirror of it may be out of date. Off loads none of
    memory's code (design §1); unknown is left to the memory path, which reports it."""
    site = memory_site(key)
    if site is None:
        return False
    try:
        return app.sites.get(site).memory_on
    except WhiteboardError:
        return None


def note_turn(app, key: str, state: bool | None) -> None:
    """A turn was recorded: on an opted-in site, its conversation's extraction timer (re)starts."""
    if state is not False:
        from ..memory import hub

        hub.note_message(app, key, memory_site(key))


def memory_parts(app, req: chat.ChatPrepareSend, room: int, state: bool | None) -> tuple[list[Block], str | None]:
    """Long-term memories for this send (design §5), the pinned ones first: none unless the
    tab's site opted in and the user did not leave them out of this send; within the `room`
    left in the budget (recalled ones go first when it is short); and recall's note (why
    full text only, or none). Never fails the send, nor holds it up behind the vault
    (MemoryService.turn). The tab's draft vector (chat.draft) goes."""
    if not req.memories or state is False:
        app.forget_draft(req.key)
        return [], None
    from ..memory import hub

    result = hub.recall_for_send(app, memory_site(req.key), req.draft, room, key=req.key)
    app.forget_draft(req.key)
    if not result.block:
        return [], result.note
    return [Block("memory", result.block, len(result.memories), tuple(m.id for m in result.memories))], result.note


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.strip().splitlines())


def selection_block(app, selections: list[str], budget: int) -> Block | None:
    """The selections quoted, oldest first; the last one that does not fit is cut, later ones left out."""
    tokens = app.tokens
    kept: list[str] = []
    for text in selections:
        candidate = [*kept, text]
        block = _render_selections(candidate)
        if tokens.count(block) <= budget:
            kept = candidate
            continue
        # Cut to the room left; quoting adds a little per line, so shrink until it fits.
        allowance = budget - tokens.count(_render_selections([*kept, ""])) - 2
        while allowance > 0:
            cut = tokens.truncate(text, allowance)
            over = tokens.count(_render_selections([*kept, cut])) - budget if cut else 0
            if cut and over <= 0:
                kept.append(cut)
                break
            allowance -= max(over, 1)
        break
    if not kept:
        return None
    return Block("selection", _render_selections(kept), len(kept))


def _render_selections(texts: list[str]) -> str:
    noun = "passage" if len(texts) == 1 else "passages"
    body = "\n>\n".join(_quote(t) for t in texts)
    return fence(f"[Whiteboard selection · {len(texts)} {noun}]", f"{body}\n{SELECTION_FOOTER}")


def background_block(app, key: str, budget: int, exclude: set[int], draft: str) -> Block | None:
    """The tab's earlier content in the new-selection (background only) mode of design §4,
    what the draft is about first."""
    header = "[Whiteboard background · earlier in this tab]"
    overhead = app.tokens.count(fence(header, "")) + 1
    if budget <= overhead:
        return None
    built = context_for(app, key, budget - overhead, "new_selection", exclude_seq=exclude, query=draft)
    if not built.context:
        return None
    block = fence(header, built.context)
    if app.tokens.count(block) > budget:
        return None
    return Block("background", block, 1)


@action(chat.ChatPrepareSend)
def prepare_send(req: chat.ChatPrepareSend, ctx) -> chat.ChatPrepareSendReply:
    app = ctx.app
    draft = strip_blocks(req.draft).strip()
    if not draft:
        raise BadRequest("draft: nothing to send once Whiteboard blocks are removed")
    filtered = redact(draft)
    state = memory_state(app, req.key)
    app.tokens.wait_ready(5.0)  # exact counts for the budget (the byte estimate would starve it)
    budget = req.budget or app.config.limits.default_budget
    with app.sessions.lock:
        session = app.sessions.get_or_create(req.key)
        pending = list(session.pending_selections)
        session.pending_selections.clear()
        pending_seqs = {m.seq for m in pending}
        had_earlier = any(m.seq not in pending_seqs for m in session.all_messages())
        recorded_seq = None
        if filtered.text.strip():
            session = app.sessions.add(req.key, "user", filtered.text, "chat", redacted=filtered.kinds,
                                       learn=req.learn)
            recorded_seq = session.messages[-1].seq
        count = session.count
    if recorded_seq is not None:
        note_turn(app, req.key, state)

    blocks: list[Block] = []
    remaining = budget
    selections = [m.content for m in pending if m.content.strip()]
    if selections:
        block = selection_block(app, selections, remaining)
        if block is not None:
            blocks.append(block)
            remaining -= app.tokens.count(block.text)
    if req.conversation_new and had_earlier:
        exclude = pending_seqs | ({recorded_seq} if recorded_seq is not None else set())
        block = background_block(app, req.key, remaining, exclude, filtered.text)
        if block is not None:
            blocks.append(block)
            remaining -= app.tokens.count(block.text)
    memory_blocks, memory_note = memory_parts(app, req, remaining, state)
    blocks.extend(memory_blocks)

    if req.answer_by is not None and time.time() > req.answer_by:
        # The draft already went as typed (it is recorded: it was sent); the selections wait.
        with app.sessions.lock:
            session.pending_selections[:0] = pending
        return chat.ChatPrepareSendReply(text=draft, injected=False, parts=[], count=count,
                                         redacted=filtered.count, late=True, memory_on=state is True,
                                         memory_note=memory_note)
    used = [i for b in blocks for i in b.memory_ids]
    if used:  # only now: these go with the send
        from ..memory import hub

        hub.count_use(app, used)
    text = "\n\n".join([draft, *(b.text for b in blocks)])
    parts = [chat.InjectedPart(kind=b.kind, tokens=app.tokens.count(b.text), items=b.items) for b in blocks]
    return chat.ChatPrepareSendReply(text=text, injected=bool(blocks), parts=parts, count=count,
                                     redacted=filtered.count, memory_on=state is True,
                                     memory_note=memory_note)


def _same(text: str) -> str:
    return " ".join(text.split())


@action(chat.ChatAttach)
def attach(req: chat.ChatAttach, ctx) -> chat.ChatAttachReply:
    """Record the turns a page shows; those the session already holds (a reload) are skipped.

    Matching counts repeats, so a conversation that says "yes" twice keeps both.
    """
    app = ctx.app
    cleaned = []
    for turn in req.turns:
        filtered = redact(strip_blocks(turn.content) if turn.role == "user" else turn.content)
        text = filtered.text.strip()
        if text:
            cleaned.append((turn.role, text, filtered.kinds))
    with app.sessions.lock:
        session = app.sessions.get(req.key)
        held = Counter((m.role, _same(m.content)) for m in session.all_messages()
                       if m.source == "chat") if session else Counter()
        seen: Counter = Counter()
        recorded = 0
        for role, text, kinds in cleaned:
            seen[(role, _same(text))] += 1
            if seen[(role, _same(text))] > held[(role, _same(text))]:
                session = app.sessions.add(req.key, role, text, "chat", redacted=kinds, learn=req.learn)
                recorded += 1
        count = session.count if session else 0
    state = memory_state(app, req.key)
    if recorded:
        note_turn(app, req.key, state)
    return chat.ChatAttachReply(recorded=recorded, count=count, memory_on=state is True)


@action(chat.ChatPreview, blocking=True)
def preview(req: chat.ChatPreview, ctx) -> chat.ChatPreviewReply:
    """The memories a send of this draft would carry, for the user to see first. Unlike a
    send it records nothing: no session message, no usage count, no extraction timer."""
    app = ctx.app
    app.tokens.wait_ready(5.0)  # the same exact counts as the send, so the same block
    site = memory_site(req.key)
    enabled = site is not None and app.sites.get(site).memory_on
    if not enabled:
        return chat.ChatPreviewReply(enabled=False, memories=[], block="", tokens=0)
    service = app.memory
    try:  # busy for a send is busy for its preview: say so, as it is
        result = service.for_send(app.tokens, req.draft, key=req.key)
    except WhiteboardError as exc:  # the same failure a send would skip over, said here
        return chat.ChatPreviewReply(enabled=True, memories=[], block="", tokens=0, note=exc.message)
    memories = [chat.PreviewMemory(memory_id=m.id, type=m.type, text=m.text, pinned=m.pinned)
                for m in result.memories]
    return chat.ChatPreviewReply(enabled=True, memories=memories, block=result.block, tokens=result.tokens,
                                 note=result.note)


@action(chat.ChatDraft, blocking=True)
def draft(req: chat.ChatDraft, ctx) -> chat.ChatDraftReply:
    """The tab's draft as typing pauses: embedded on the drafts' own thread (memory/meaning/drafts.py,
    capped per tab, in all and in CPU), its vector kept in RAM for this tab's next send; and,
    where the user turned it on, rewritten by the configured model on its own such thread.
    Records nothing: no session message, no log line, nothing on disk. A vault busy with an
    import, a wipe or its opening answers "busy" within MEMORY_WAIT (100 ms) rather than hold a
    worker for it."""
    app = ctx.app
    if memory_state(app, req.key) is not True:
        app.forget_draft(req.key)
        return chat.ChatDraftReply(state="off", memory_on=False)
    state, rewrite = app.memory.offer_draft(req.key, req.draft)
    return chat.ChatDraftReply(state=state, memory_on=True, rewrite=rewrite)
