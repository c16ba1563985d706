"""memory.* and site.settings: the long-term memory service seen from the wire.

Every handler touching the vault (disk, decryption, maybe a model) runs blocking=True,
on the worker pool, so the reader keeps serving sessions meanwhile.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from ..privacy import redact
from ..protocol.errors import BadRequest
from ..protocol.messages import memory as msg
from ..sites import check_site
from . import action

# Long-term memory's code loads with its first request, not with the host (design §1).
if TYPE_CHECKING:
    from ..memory.model import Memory, Suggestion

SET_ASIDE_LISTED = 20  # memory.status names this many set-aside memories at most (it is polled)


def out(m: Memory) -> msg.MemoryOut:
    return msg.MemoryOut(memory_id=m.id, type=m.type, text=m.text, tags=m.tags, keywords=m.keywords,
                         confidence=m.confidence, site=m.site, created_at=m.created_at, updated_at=m.updated_at,
                         usage_count=m.usage_count, last_used_at=m.last_used_at, pinned=m.pinned, rev=m.rev,
                         origin=m.origin)


def detail(m: Memory) -> msg.MemoryDetail:
    return msg.MemoryDetail(**out(m).model_dump(),
                            old_texts=[msg.OldTextOut(text=o.text, replaced_at=o.replaced_at) for o in m.old_texts])


def damaged(service) -> list[msg.DamagedOut]:
    return [msg.DamagedOut(memory_id=d.memory_id, problem=d.problem) for d in service.damaged_rows()]


@action(msg.MemoryAdd, blocking=True)
def memory_add(req: msg.MemoryAdd, ctx) -> msg.MemoryAddReply:
    filtered = redact(req.text)
    site = check_site(req.site) if req.site else None
    memory, created = ctx.app.memory.add(filtered.text, req.memory_type, site=site,
                                         tags=[req.memory_type, *req.tags])
    return msg.MemoryAddReply(memory_id=memory.id, created=created, redacted=filtered.count)


@action(msg.MemoryExtract, blocking=True)
def memory_extract(req: msg.MemoryExtract, ctx) -> msg.MemoryExtractReply:
    outcome = ctx.app.memory.extractor.run(req.key, manual=req.manual)
    return msg.MemoryExtractReply(added=len(outcome.added), updated=len(outcome.updated),
                                  unchanged=outcome.unchanged, method=outcome.method,
                                  memories=[out(m) for m in [*outcome.added, *outcome.updated]],
                                  suggested=[suggestion_out(s) for s in outcome.suggested])


def suggestion_out(s: Suggestion) -> msg.SuggestionOut:
    return msg.SuggestionOut(suggestion_id=s.id, type=s.type, text=s.text, confidence=s.confidence, site=s.site,
                             created_at=s.created_at, origin=s.origin)


@action(msg.MemorySuggestions, blocking=True)
def memory_suggestions(req: msg.MemorySuggestions, ctx) -> msg.MemorySuggestionsReply:
    found, bad = ctx.app.memory.suggestions()
    return msg.MemorySuggestionsReply(suggestions=[suggestion_out(s) for s in found],
                                      damaged=[msg.DamagedOut(memory_id=d.memory_id, problem=d.problem) for d in bad])


@action(msg.MemoryAccept, blocking=True)
def memory_accept(req: msg.MemoryAccept, ctx) -> msg.MemoryReply:
    text = redact(req.text).text if req.text is not None else None
    return msg.MemoryReply(memory=detail(ctx.app.memory.extractor.accept(req.suggestion_id, text, req.memory_type)))


@action(msg.MemoryDiscard, blocking=True)
def memory_discard(req: msg.MemoryDiscard, ctx) -> msg.MemoryDiscardReply:
    ctx.app.memory.drop_suggestion(req.suggestion_id, discarded=True)
    return msg.MemoryDiscardReply(discarded=True)


@action(msg.MemoryRecall, blocking=True)
def memory_recall(req: msg.MemoryRecall, ctx) -> msg.MemoryRecallReply:
    # A search or a preview: usage counts only when memories really go with a send (count_use).
    result = ctx.app.memory.recall(ctx.app.tokens, req.query, req.limit)
    return msg.MemoryRecallReply(memories=[out(m) for m in result.memories], block=result.block,
                                 tokens=result.tokens, method=result.method, note=result.note)


@action(msg.MemoryList, blocking=True)
def memory_list(req: msg.MemoryList, ctx) -> msg.MemoryListReply:
    service = ctx.app.memory
    site = check_site(req.site) if req.site else None
    if req.query and req.query.strip():
        found = service.search(req.query, limit=1000)
        found = [m for m in found if (req.memory_type is None or m.type == req.memory_type)
                 and (site is None or m.site == site)]
    else:
        found = service.list(req.memory_type, site)
    return msg.MemoryListReply(memories=[out(m) for m in found[req.offset:req.offset + req.limit]],
                               total=len(found), damaged=damaged(service))


@action(msg.MemoryGet, blocking=True)
def memory_get(req: msg.MemoryGet, ctx) -> msg.MemoryReply:
    return msg.MemoryReply(memory=detail(ctx.app.memory.get(req.memory_id)))


@action(msg.MemoryUpdate, blocking=True)
def memory_update(req: msg.MemoryUpdate, ctx) -> msg.MemoryReply:
    if req.text is None and req.memory_type is None and req.pinned is None:
        raise BadRequest("give text, memory_type, pinned or some of them")
    text = redact(req.text).text if req.text is not None else None
    return msg.MemoryReply(memory=detail(ctx.app.memory.update(req.memory_id, text, pinned=req.pinned, rev=req.rev,
                                                               type=req.memory_type)))


@action(msg.MemoryDelete, blocking=True)
def memory_delete(req: msg.MemoryDelete, ctx) -> msg.MemoryDeleteReply:
    ctx.app.memory.delete(req.memory_id, rev=req.rev)
    return msg.MemoryDeleteReply(deleted=True)


@action(msg.MemoryExport, blocking=True)
def memory_export(req: msg.MemoryExport, ctx) -> msg.MemoryExportReply:
    service = ctx.app.memory
    document, total, next_offset = service.export_page(req.offset)
    return msg.MemoryExportReply(document=document, total=total, next_offset=next_offset, damaged=damaged(service))


@action(msg.MemoryImport, blocking=True)
def memory_import(req: msg.MemoryImport, ctx) -> msg.MemoryImportReply:
    service = ctx.app.memory
    added, updated, unchanged = service.import_memories(service.read_export(req.document))
    return msg.MemoryImportReply(added=added, updated=updated, unchanged=unchanged)


@action(msg.MemoryImportChats, blocking=True)
def memory_import_chats(req: msg.MemoryImportChats, ctx) -> msg.MemoryImportChatsReply:
    from ..memory import hub

    try:
        chunk = req.text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the page decodes strictly, so not from a file
        hub.cancel_chat_import(ctx.app, req.import_id)
        raise BadRequest("text: not valid Unicode") from None
    turns, facts, summary = hub.chat_import_chunk(ctx.app, req.import_id, req.seq, chunk, req.last)
    if summary is None:
        return msg.MemoryImportChatsReply(import_id=req.import_id, turns=turns, facts=facts, done=False)
    return msg.MemoryImportChatsReply(import_id=req.import_id, turns=turns, facts=facts, done=True,
                                      format=summary.format, conversations=summary.conversations,
                                      already=summary.already, stopped=summary.stopped,
                                      suggested=[suggestion_out(s) for s in summary.suggested])


@action(msg.MemoryImportChatsCancel, blocking=True)
def memory_import_chats_cancel(req: msg.MemoryImportChatsCancel, ctx) -> msg.MemoryImportChatsCancelReply:
    from ..memory import hub

    return msg.MemoryImportChatsCancelReply(cancelled=hub.cancel_chat_import(ctx.app, req.import_id))


@action(msg.MemoryWipe, blocking=True)
def memory_wipe(req: msg.MemoryWipe, ctx) -> msg.MemoryWipeReply:
    return msg.MemoryWipeReply(deleted=ctx.app.memory.wipe())


@action(msg.MemorySettingsRequest, blocking=True)
def memory_settings(req: msg.MemorySettingsRequest, ctx) -> msg.MemorySettingsReply:
    service = ctx.app.memory
    settings = service.settings.update(pinned_tokens=req.pinned_tokens, suggest_below=req.suggest_below,
                                       rewrite_drafts=req.rewrite_drafts)
    if not settings.rewrite_drafts:
        service.forget_rewrites()  # turned off: what the model gave goes from RAM at once
    return msg.MemorySettingsReply(**asdict(settings))


@action(msg.MemoryDesktopRequest, blocking=True)
def memory_desktop(req: msg.MemoryDesktopRequest, ctx) -> msg.MemoryDesktopReply:
    apps = ctx.app.memory.desktop_apps.update(enabled=req.enabled)
    return msg.MemoryDesktopReply(enabled=apps.enabled, clients=[
        msg.DesktopClientOut(name=c.name, last_read=c.last_read) for c in apps.clients])


@action(msg.MemoryStatus, blocking=True)
def memory_status(req: msg.MemoryStatus, ctx) -> msg.MemoryStatusReply:
    service = ctx.app.memory
    service.ready()
    bad = service.meanings.damaged_vectors() if service.meanings is not None else []
    aside = service.meanings.set_aside_memories()[:SET_ASIDE_LISTED] if service.meanings is not None else []
    return msg.MemoryStatusReply(
        memories=len(service.index), suggestions=service.suggestion_count(),
        meanings=msg.MeaningsOut(**meanings(service)), damaged=damaged(service),
        damaged_vectors=[msg.DamagedOut(memory_id=d.memory_id, problem=d.problem) for d in bad],
        set_aside=[msg.SetAsideOut(memory_id=s.memory_id, problem=s.problem) for s in aside],
        synced=synced(service))


def synced(service) -> msg.SyncedOut | None:
    from ..memory.hub import sync_for

    status = sync_for(service).status()
    if not status or not status.get("arrived_at"):
        return None
    return msg.SyncedOut(arrived=status["arrived"], at=status["arrived_at"], computers=status.get("arrived_from", []))


def meanings(service) -> dict:
    if service.meanings is None:
        return {"state": "off", "indexed": 0, "total": len(service.index), "model": None,
                "reason": "no embedding model in this process"}
    p = service.meanings.progress()
    return {"state": p.state, "indexed": p.indexed, "total": p.total, "model": p.model, "reason": p.reason,
            "set_aside": p.set_aside,
            "drafts": service.meanings.drafts.counts()[0]}


@action(msg.SiteSettingsRequest, blocking=True)
def site_settings(req: msg.SiteSettingsRequest, ctx) -> msg.SiteSettingsReply:
    sites = ctx.app.sites  # reading or pausing a site loads no memory code; turning memory on does
    if req.long_term is None and req.paused is None:
        settings = sites.get(req.site)
    else:
        settings = sites.update(req.site, long_term=req.long_term, paused=req.paused)
    if settings.memory_on:
        ctx.app.memory.ready()  # open the vault and build the index now, before the first send needs it
    return msg.SiteSettingsReply(site=settings.site, long_term=settings.long_term, paused=settings.paused)
