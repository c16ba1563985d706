"""`whiteboard export`: a tab's session as a vBRIEF document, from a running host.

The host lives in the browser (one process per browser profile that connected), so
this talks to each running host over its local control socket (server/control.py),
which answers only ping, session.list and vbrief.export. Without --key it lists the
sessions of every running host; with --key it exports the one session that has that
key (--pid picks the host when several have it). The document goes to stdout, or to a
new file readable by you alone with -o.
"""

from __future__ import annotations

import json
import socket
import sys
from datetime import datetime
from pathlib import Path

import click

from ..files import create_private
from ..protocol.framing import HEADER, read_frame
from ..server.control import MAX_REPLY, runtime_dir, sockets_by_pid
from . import main

TIMEOUT_SECONDS = 60.0


class HostUnreachable(Exception):
    pass


class ControlClient:
    def __init__(self, path: Path, timeout: float = TIMEOUT_SECONDS):
        self.path = path
        self.pid = int(path.stem.removeprefix("host-"))
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(str(path))
        except OSError as exc:
            self._sock.close()
            raise HostUnreachable(str(exc)) from None
        self._in = self._sock.makefile("rb")
        self._next_id = 0

    def request(self, type_: str, **fields) -> dict:
        """One request, its reply (events for it skipped); HostUnreachable if the host goes away."""
        self._next_id += 1
        body = json.dumps({"id": self._next_id, "type": type_, **fields}).encode()
        try:
            try:
                self._sock.sendall(HEADER.pack(len(body)) + body)
            except BrokenPipeError:
                pass  # a host that refuses this user answers at connect and closes: read that answer
            while True:
                frame = read_frame(self._in, MAX_REPLY)
                if frame is None:
                    raise HostUnreachable("the host closed the connection")
                reply = json.loads(frame)
                if reply.get("id") in (self._next_id, None):
                    return reply
        except (OSError, EOFError) as exc:
            raise HostUnreachable(str(exc)) from None

    def close(self) -> None:
        self._in.close()
        self._sock.close()

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def host_sockets() -> list[Path]:
    """Every host socket, newest first (stale ones are skipped when they refuse)."""
    directory = runtime_dir()
    if not directory.is_dir():
        return []
    return sorted(sockets_by_pid(directory).values(), key=lambda p: p.stat().st_mtime, reverse=True)


def sessions_by_host(pid: int | None) -> list[tuple[ControlClient, list[dict]]]:
    """(a closed client naming the host, its sessions) for each reachable host."""
    out = []
    for path in host_sockets():
        if pid is not None and path.stem != f"host-{pid}":
            continue
        try:
            with ControlClient(path) as client:
                reply = client.request("session.list")
        except HostUnreachable:
            continue
        if reply.get("ok"):
            out.append((client, reply["sessions"]))
    return out




@main.command("export")
@click.option("--key", help="The session to export, e.g. chatgpt.com:412 (list them without --key).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the document to this new file (mode 0600) instead of standard output.")
@click.option("--pid", type=int, help="Ask only this host process (when several browsers run one).")
def export(key: str | None, output: Path | None, pid: int | None) -> None:
    """Export a tab's session as a vBRIEF document, or list the sessions without --key."""
    hosts = sessions_by_host(pid)
    if not hosts:
        raise click.ClickException(
            f"no running host with pid {pid}" if pid is not None else
            f"no running Whiteboard host found in {runtime_dir()}: the browser starts it when the extension "
            "connects (Windows has no control socket)")
    if key is None:
        _print_sessions(hosts)
        return
    holders = [host for host, sessions in hosts if any(s["key"] == key for s in sessions)]
    if not holders:
        raise click.ClickException(f"no session {key!r} in any running host (run `whiteboard export` to list them)")
    if len(holders) > 1:
        pids = ", ".join(str(h.pid) for h in holders)
        raise click.ClickException(f"{len(holders)} hosts have a session {key!r} (pids {pids}); choose one with --pid")
    try:
        with ControlClient(holders[0].path) as client:
            reply = client.request("vbrief.export", key=key)
    except HostUnreachable as exc:
        raise click.ClickException(f"the host went away during the export ({exc})") from None
    if not reply.get("ok"):
        error = reply.get("error", {})
        raise click.ClickException(f"{error.get('code', 'error')}: {error.get('message', 'the export failed')}")
    _write(json.dumps(reply["document"], indent=2, ensure_ascii=False) + "\n", output)


def _print_sessions(hosts: list[tuple[ControlClient, list[dict]]]) -> None:
    rows = [(s["key"], str(s["count"]), datetime.fromtimestamp(s["started_at"]).strftime("%Y-%m-%d %H:%M"),
             str(host.pid)) for host, sessions in hosts for s in sessions]
    if not rows:
        click.echo("no sessions in the running host(s)", err=True)
        return
    header = ("KEY", "MESSAGES", "STARTED", "HOST PID")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        # A new file only, written whole: an export holds the conversation; never overwrite or
        # widen something, never leave half of it.
        create_private(output, text)
    except FileExistsError:
        raise click.ClickException(f"{output} already exists; choose a new file name") from None
    except OSError as exc:
        raise click.ClickException(f"cannot create {output}: {exc.strerror or type(exc).__name__}; "
                                   "nothing was written") from None
    click.echo(f"wrote {output}", err=True)
