"""`whiteboard memories`: the long-term memory vault from the command line.

Works on the vault file directly; a running host notices the changes before its next
recall (docs/memory.md). Texts are privacy-filtered here as on the wire.
"""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click

from ..files import write_private
from ..memory import hub
from ..memory.model import MEMORY_TYPES, Memory
from ..memory.service import MemoryService
from ..privacy import redact
from ..protocol.bounds import MAX_PINNED_TOKENS
from ..protocol.errors import WhiteboardError
from ..sites import check_site
from ..tokens import TokenCounter
from . import main

PROGRESS_FROM = 200  # imports at least this long show a progress bar


@contextmanager
def vault_service():
    service = MemoryService()
    try:
        yield service
    except WhiteboardError as exc:
        raise click.ClickException(exc.message) from None
    finally:
        service.close()


def line(m: Memory) -> str:
    month = time.strftime("%Y-%m", time.localtime(m.updated_at))
    site = f"  ({m.site})" if m.site else ""
    pin = "  [pinned]" if m.pinned else ""
    return f"{m.id}  {m.type:<10}  {month}  {' '.join(m.text.split())}{site}{pin}"


def as_json(service: MemoryService, memories: list[Memory]) -> str:
    """The memories as the export document writes them (no open vault needed)."""
    return json.dumps(service.export(memories)["memories"], ensure_ascii=False, indent=2)


@main.group("memories")
def memories_group() -> None:
    """Long-term memories: list, search, show, edit, pin, delete, export, import, wipe;
    the suggestions extraction was less sure about: suggestions, accept, discard."""


@memories_group.command("list")
@click.option("--type", "type_", type=click.Choice(MEMORY_TYPES), help="Only memories of this type.")
@click.option("--site", help="Only memories from this site, e.g. claude.ai.")
@click.option("--json", "json_out", is_flag=True, help="Print JSON instead of lines.")
def list_cmd(type_: str | None, site: str | None, json_out: bool) -> None:
    """Every memory, newest first."""
    with vault_service() as service:
        memories = service.list(type_, site)
        damaged = service.damaged_rows()
    click.echo(as_json(service, memories) if json_out else "\n".join(line(m) for m in memories) or "No memories.")
    for d in damaged:
        click.echo(f"warning: memory {d.memory_id} cannot be read: {d.problem}", err=True)


@memories_group.command("search")
@click.argument("query")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "json_out", is_flag=True, help="Print JSON instead of lines.")
def search_cmd(query: str, limit: int, json_out: bool) -> None:
    """Memories matching QUERY, best first (full-text, as recall ranks them)."""
    with vault_service() as service:
        found = service.search(query, limit)
    click.echo(as_json(service, found) if json_out else "\n".join(line(m) for m in found) or "Nothing found.")


@memories_group.command("show")
@click.argument("memory_id")
def show_cmd(memory_id: str) -> None:
    """One memory with all its fields and earlier texts."""
    with vault_service() as service:
        m = service.get(memory_id)
    stamp = lambda t: time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else "never"  # noqa: E731
    click.echo(f"id:          {m.id}\ntype:        {m.type}\ntext:        {m.text}\n"
               f"tags:        {', '.join(m.tags) or '-'}\nkeywords:    {', '.join(m.keywords) or '-'}\n"
               f"confidence:  {m.confidence:.2f}\nsite:        {m.site or '-'}\ncreated:     {stamp(m.created_at)}\n"
               f"updated:     {stamp(m.updated_at)}\nused:        {m.usage_count} times, last {stamp(m.last_used_at)}\n"
               f"pinned:      {stamp(m.pinned_at) if m.pinned else 'no'}\norigin:      {m.origin or 'live chat'}\n"
               f"revision:    {m.rev}")
    for old in m.old_texts:
        click.echo(f"earlier ({stamp(old.replaced_at)}): {old.text}")


@memories_group.command("edit")
@click.argument("memory_id")
@click.argument("text", required=False)
@click.option("--type", "type_", type=click.Choice(MEMORY_TYPES), help="Change the type too.")
@click.option("--rev", type=click.IntRange(min=0), help="Only if the memory is still at this revision (`show` "
              "prints it): an edit made elsewhere since is not overwritten.")
def edit_cmd(memory_id: str, text: str | None, type_: str | None, rev: int | None) -> None:
    """Give a memory new TEXT ("-" reads it from standard input); the old text is kept
    for undo. (No $EDITOR: an editor's temporary file would hold the text on disk.)"""
    if text is None and type_ is None:
        raise click.UsageError("give the new TEXT, --type, or both")
    if text == "-":
        text = sys.stdin.read().strip()
    with vault_service() as service:
        updated = service.update(memory_id, redact(text).text if text is not None else None, rev=rev, type=type_)
    click.echo(line(updated))


@memories_group.command("suggestions")
def suggestions_cmd() -> None:
    """The facts extraction was less sure about: never sent until accepted."""
    with vault_service() as service:
        waiting, damaged = service.suggestions()
    for s in waiting:
        site = f"  ({s.site})" if s.site else ""
        click.echo(f"{s.id}  {s.type:<10}  {round(s.confidence * 100):>3}%  {' '.join(s.text.split())}{site}")
    for d in damaged:
        click.echo(f"{d.memory_id}: {d.problem}", err=True)
    if not waiting:
        click.echo("No suggestions.")


@memories_group.command("accept")
@click.argument("suggestion_id")
@click.argument("text", required=False)
@click.option("--type", "type_", type=click.Choice(MEMORY_TYPES), help="Keep it with another type.")
def accept_cmd(suggestion_id: str, text: str | None, type_: str | None) -> None:
    """Keep a suggestion as a memory, as it is or as TEXT."""
    with vault_service() as service:
        click.echo(line(hub.accept(service, suggestion_id, redact(text).text if text is not None else None, type_)))


@memories_group.command("discard")
@click.argument("suggestion_id")
def discard_cmd(suggestion_id: str) -> None:
    """Drop a suggestion; the same fact is not suggested again."""
    with vault_service() as service:
        service.drop_suggestion(suggestion_id, discarded=True)
    click.echo("Discarded.")


@memories_group.command("pin")
@click.argument("memory_id")
def pin_cmd(memory_id: str) -> None:
    """Send this memory with every message on an opted-in site (first in the block, within
    the pinned token cap: `whiteboard memories pinned-tokens`)."""
    with vault_service() as service:
        click.echo(line(service.update(memory_id, pinned=True)))
        cap, left_out = service.pinned_left_out(TokenCounter().load_now())
    _report_pinned(cap, left_out)


@memories_group.command("unpin")
@click.argument("memory_id")
def unpin_cmd(memory_id: str) -> None:
    """Stop sending this memory with every message (recall may still pick it)."""
    with vault_service() as service:
        click.echo(line(service.update(memory_id, pinned=False)))


@memories_group.command("pinned-tokens")
@click.argument("tokens", required=False, type=click.IntRange(0, MAX_PINNED_TOKENS))
def pinned_tokens_cmd(tokens: int | None) -> None:
    """Show or set the token cap of the pinned memories in one send (0: none are sent)."""
    with vault_service() as service:
        service.settings.update(pinned_tokens=tokens)
        cap, left_out = service.pinned_left_out(TokenCounter().load_now())
    click.echo(f"Pinned memories get up to {cap} tokens per send.")
    _report_pinned(cap, left_out)


def _report_pinned(cap: int, left_out: list[Memory]) -> None:
    for m in left_out:
        click.echo(f"warning: pinned memory {m.id} does not fit the {cap}-token cap and is not sent", err=True)


@memories_group.command("delete")
@click.argument("memory_id")
@click.option("--yes", is_flag=True, help="Do not ask.")
def delete_cmd(memory_id: str, yes: bool) -> None:
    """Delete one memory."""
    with vault_service() as service:
        memory = service.get(memory_id) if not yes else None
        if memory is not None:
            click.confirm(f"Delete {line(memory)}?", abort=True)
        service.delete(memory_id)
    click.echo(f"Deleted {memory_id}.")


@memories_group.command("export")
@click.argument("path", default="-", type=click.Path(dir_okay=False, allow_dash=True))
def export_cmd(path: str) -> None:
    """Write every memory as JSON to PATH (standard output by default), mode 0600; a file
    already there is replaced whole, a symbolic link is refused."""
    with vault_service() as service:
        document = service.export()
        damaged = service.damaged_rows()
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if path == "-":
        click.echo(text, nl=False)
    else:
        try:
            write_private(Path(path), text)
        except WhiteboardError as exc:
            raise click.ClickException(exc.message) from None
        click.echo(f"Exported {len(document['memories'])} memories to {path}.", err=True)
    for d in damaged:
        click.echo(f"warning: memory {d.memory_id} was not exported: {d.problem}", err=True)


@memories_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
def import_cmd(path: str) -> None:
    """Read memories from a JSON export (all or nothing: a bad entry stops it before any is stored)."""
    try:
        if path == "-":
            raw = json.load(sys.stdin)
        else:
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"{path} is not a JSON file ({type(exc).__name__})") from None
    from tqdm import tqdm

    with vault_service() as service:
        memories = service.read_export(raw)
        with tqdm(total=len(memories), unit="memory", disable=len(memories) < PROGRESS_FROM,
                  file=sys.stderr) as bar:
            added, updated, unchanged = service.import_memories(memories, progress=bar.update)
    click.echo(f"Imported: {added} added, {updated} updated, {unchanged} unchanged.")


@memories_group.command("import-chats")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--yes", is_flag=True, help="Do not ask before reading.")
@click.option("--review", is_flag=True, help="Keep nothing yet: every fact found waits in the suggestions.")
@click.option("--site", help="Record this site (e.g. chatgpt.com) instead of the export's own.")
def import_chats_cmd(path: Path, yes: bool, review: bool, site: str | None) -> None:
    """Learn lasting facts about you from a ChatGPT, Claude or Gemini (Google Takeout) data
    export: PATH is its zip, its folder or its JSON file. Only your own turns are read, on
    this computer; nothing of the conversations is kept but the facts, encrypted. Running
    it again adds nothing new, and continues an import that was stopped."""
    if site is not None:
        try:
            site = check_site(site)
        except WhiteboardError:
            raise click.UsageError("--site needs a host name, e.g. chatgpt.com") from None
    with vault_service() as service:
        found = hub.survey_chats(path)
        click.echo(f"{path}: a {found.format} export, {found.conversations} conversations, "
                   f"{found.turns} turns of yours.", err=True)
        if not yes:
            where = "wait in the suggestions" if review else "are kept (the less sure wait in the suggestions)"
            click.confirm(f"Read them for lasting facts about you? Facts found {where}", abort=True)
        with _import_progress(found.turns) as progress:
            summary = hub.import_chats(service, path, review=review, site=site, progress=progress)
    click.echo(f"Imported {summary.conversations} conversations ({summary.turns} turns; {summary.already} "
               f"imported before): {len(summary.added)} added, {summary.updated} updated, {summary.unchanged} "
               f"already known, {len(summary.suggested)} waiting in the suggestions.")
    if summary.skipped_turns:
        click.echo(f"{summary.skipped_turns} turns longer than a message were skipped (pasted text).", err=True)
    if summary.stopped == "suggestions_full":
        click.echo("The suggestions are full: accept or discard them (`whiteboard memories suggestions`), then "
                   "run the same command again to go on where it stopped.", err=True)


@contextmanager
def _import_progress(total: int):
    """progress(turns, facts): a bar with time left on a terminal, a plain line at most every
    5 s otherwise (a log, a pipe)."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        with tqdm(total=total, unit="turn", file=sys.stderr) as bar:
            def progress(turns: int, facts: int) -> None:
                bar.update(turns - bar.n)
                bar.set_postfix(facts=facts)
            yield progress
        return
    last = [0.0]

    def plain(turns: int, facts: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 5 or turns >= total:
            last[0] = now
            click.echo(f"read {turns} of {total} turns, {facts} facts found", err=True)
    yield plain


@memories_group.command("wipe")
@click.option("--yes", is_flag=True, help="Do not ask.")
def wipe_cmd(yes: bool) -> None:
    """Delete every memory."""
    with vault_service() as service:
        if not yes:
            click.confirm(f"Delete all {len(service.list())} memories? This cannot be undone", abort=True)
        deleted = service.wipe()
    click.echo(f"Deleted {deleted} memories.")
