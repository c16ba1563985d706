"""`whiteboard mcp`: the memory vault for desktop apps over MCP (docs/mcp.md): serve it,
turn it on or off, see which apps read it, register it with an app."""

from __future__ import annotations

import sys
import time

import click

from ..mcp.apps import APPS, LeftAlone, config_path, install, registered, snippet
from ..memory import hub
from ..protocol.errors import WhiteboardError
from . import main


@main.group("mcp", invoke_without_command=True)
@click.pass_context
def mcp_group(ctx: click.Context) -> None:
    """Serve long-term memory to desktop apps (Claude Desktop, Cursor, VS Code...) over MCP on
    stdin/stdout: what an app runs. Off until `whiteboard mcp enable`."""
    if ctx.invoked_subcommand is None:
        from ..mcp.server import run  # the SDK loads here only

        if sys.stdin.isatty():  # a person, not an app: say what this is (stderr: stdout is the app's)
            click.echo("whiteboard mcp serves desktop apps over stdin/stdout; an app starts it (see "
                       "`whiteboard mcp install --help`). Ctrl-D ends it.", err=True)
        run()


def _switch(enabled: bool) -> None:
    try:
        hub.desktop_apps().update(enabled=enabled)
    except WhiteboardError as exc:
        raise click.ClickException(exc.message) from None


@mcp_group.command("enable")
def enable_cmd() -> None:
    """Let desktop apps that start `whiteboard mcp` search and list memories and suggest new ones."""
    _switch(True)
    click.echo("Desktop apps (MCP) are on: apps you registered (whiteboard mcp install) can read your memories.")


@mcp_group.command("disable")
def disable_cmd() -> None:
    """Stop handing memories to desktop apps (their calls then answer how to turn it on)."""
    _switch(False)
    click.echo("Desktop apps (MCP) are off: no memory leaves through MCP.")


@mcp_group.command("status")
def status_cmd() -> None:
    """On or off, the apps that started the server with the last time each read memories,
    and the apps registered here."""
    try:
        apps = hub.desktop_apps().load()
    except WhiteboardError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"Desktop apps (MCP): {'on' if apps.enabled else 'off (turn on: whiteboard mcp enable)'}")
    if apps.clients:
        click.echo("Apps that connected:")
    for c in apps.clients:
        read = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.last_read)) if c.last_read else "never"
        click.echo(f"  {c.name}: last read memories {read}")
    for app in APPS.values():
        path = config_path(app)
        if registered(app, path) is not None:
            click.echo(f"Registered with {app.label} ({path})")


@mcp_group.command("install")
@click.option("--client", "client", required=True, type=click.Choice(list(APPS)), help="The app to register with.")
@click.option("--print", "print_only", is_flag=True,
              help="Print the JSON to paste into the app's file; change nothing.")
def install_cmd(client: str, print_only: bool) -> None:
    """Add Whiteboard to an app's MCP servers: the file is backed up and merged, never replaced."""
    app = APPS[client]
    path = config_path(app)
    if print_only:
        click.echo(snippet(app))
        click.echo(f"Paste it into {path} (merge \"whiteboard\" into \"{app.servers_key}\" if that is there).",
                   err=True)
        return
    try:
        done = install(app, path)
    except (LeftAlone, OSError, WhiteboardError) as exc:
        raise click.ClickException(f"{exc}; nothing was changed. Add this to it yourself:\n{snippet(app)}") from None
    if done.outcome == "unchanged":
        click.echo(f"{app.label} already has Whiteboard: {path}")
    else:
        click.echo(f"Added Whiteboard to {app.label}: {path}" + (f" (backup: {done.backup})" if done.backup else ""))
    click.echo(f"Restart {app.label} to load it." + ("" if hub.desktop_apps().load().enabled
                                                       else " Then turn it on: whiteboard mcp enable"))
