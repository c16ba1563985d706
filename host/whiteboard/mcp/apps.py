"""Registering `whiteboard mcp` with desktop apps (docs/mcp.md): where each app keeps its MCP
configuration on macOS, Linux and Windows, the entry it wants, and writing it into what is
there: the file backed up first, every other entry and setting kept, a file that is not
plain JSON or is a symbolic link left alone (the entry is printed to paste instead)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..files import atomic_write

SERVER_NAME = "whiteboard"  # the entry's key in an app's list of servers
# What an app runs: this Python and its Whiteboard (python -m whiteboard.mcp: no PATH lookup,
# which apps started from a dock or a start menu do without the shell's PATH).
# Where the vault and its settings are, when not the default: the folders set here (absolute
# ones only) go into the entry, since an app started from a dock has not the shell's
# environment and would open another, empty vault. Not XDG_RUNTIME_DIR: the session's own.
ENV_CARRIED = ("WHITEBOARD_CONFIG_DIR", "WHITEBOARD_DATA_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME")


@dataclass(frozen=True)
class App:
    key: str
    label: str
    servers_key: str  # the object in the app's file that holds the servers by name
    paths: dict[str, str]  # platform ("darwin", "linux", "win32") -> path with ~ and %APPDATA%
    typed: bool = False  # its entries say "type": "stdio" (VS Code)


APPS: dict[str, App] = {a.key: a for a in (
    App("claude-desktop", "Claude Desktop", "mcpServers", {
        "darwin": "~/Library/Application Support/Claude/claude_desktop_config.json",
        "linux": "~/.config/Claude/claude_desktop_config.json",
        "win32": "%APPDATA%/Claude/claude_desktop_config.json"}),
    App("cursor", "Cursor", "mcpServers", {p: "~/.cursor/mcp.json" for p in ("darwin", "linux", "win32")}),
    App("vscode", "VS Code", "servers", {
        "darwin": "~/Library/Application Support/Code/User/mcp.json",
        "linux": "~/.config/Code/User/mcp.json",
        "win32": "%APPDATA%/Code/User/mcp.json"}, typed=True),
    App("windsurf", "Windsurf", "mcpServers",
        {p: "~/.codeium/windsurf/mcp_config.json" for p in ("darwin", "linux", "win32")}),
    App("zed", "Zed", "context_servers", {
        "darwin": "~/.config/zed/settings.json", "linux": "~/.config/zed/settings.json",
        "win32": "%APPDATA%/Zed/settings.json"}),
    App("lm-studio", "LM Studio", "mcpServers", {p: "~/.lmstudio/mcp.json" for p in ("darwin", "linux", "win32")}),
)}


class LeftAlone(Exception):
    """The app's file cannot be merged safely: it is left alone (the entry is printed to paste)."""


class NotPlainJson(LeftAlone):
    """The app's file is not a JSON object (comments, a syntax error): it is left alone."""


class SymbolicLink(LeftAlone):
    """The app's file is a symbolic link (a dotfiles repository's, say): writing it would
    replace the link with a file, so it is left alone."""


def config_path(app: App, platform: str | None = None, home: Path | None = None,
                appdata: str | None = None) -> Path:
    platform = platform or ("win32" if sys.platform == "win32" else "darwin" if sys.platform == "darwin" else "linux")
    raw = app.paths[platform]
    home = home or Path.home()
    if raw.startswith("%APPDATA%"):
        base = appdata or os.environ.get("APPDATA") or str(home / "AppData" / "Roaming")
        return Path(base) / raw[len("%APPDATA%/"):]
    return home / raw[2:]


def entry(app: App) -> dict:
    """The app's entry for this Whiteboard: this Python running `whiteboard.mcp`."""
    server = {"command": sys.executable, "args": ["-m", "whiteboard.mcp"]}
    env = {name: os.environ[name] for name in ENV_CARRIED if os.path.isabs(os.environ.get(name) or "")}
    if env:
        server["env"] = env
    return {"type": "stdio", **server} if app.typed else server


def snippet(app: App) -> str:
    """The JSON to paste into the app's file (what `--print` shows)."""
    return json.dumps({app.servers_key: {SERVER_NAME: entry(app)}}, indent=2)


def read_config(path: Path) -> dict | None:
    """The app's configuration; None when there is no file. NotPlainJson when it cannot be merged."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise NotPlainJson(f"{path} cannot be read ({type(exc).__name__})") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        raise NotPlainJson(f"{path} is not plain JSON (comments or a syntax error)") from None
    if not isinstance(data, dict):
        raise NotPlainJson(f"{path} does not hold a JSON object")
    return data


@dataclass(frozen=True)
class Installed:
    path: Path
    outcome: str  # "created", "updated", "unchanged"
    backup: Path | None


def install(app: App, path: Path) -> Installed:
    """Add (or bring up to date) this Whiteboard's entry in the app's file; every other
    server and setting stays as it was, and the file as it was is copied beside it first.
    SymbolicLink when the file is a link: the new file would replace the link, not its target."""
    if path.is_symlink():
        raise SymbolicLink(f"{path} is a symbolic link (to {os.readlink(path)}); writing it would replace the "
                           "link with a file")
    data = read_config(path)
    servers = (data or {}).get(app.servers_key, {})
    if not isinstance(servers, dict):
        raise NotPlainJson(f"{path}: \"{app.servers_key}\" is not an object")
    wanted = entry(app)
    if data is not None and servers.get(SERVER_NAME) == wanted:
        return Installed(path, "unchanged", None)
    backup = None
    if data is not None:
        backup = path.with_name(f"{path.name}.whiteboard-backup-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.copy2(path, backup)
    merged = dict(data or {})
    merged[app.servers_key] = {**servers, SERVER_NAME: wanted}
    mode = (path.stat().st_mode & 0o777) if data is not None else 0o600
    path.parent.mkdir(parents=True, exist_ok=True)
    outcome = atomic_write(path, json.dumps(merged, indent=2, ensure_ascii=False) + "\n", mode)
    return Installed(path, outcome, backup)


def registered(app: App, path: Path) -> dict | None:
    """The Whiteboard entry the app's file holds, or None."""
    try:
        data = read_config(path)
    except NotPlainJson:
        return None
    servers = (data or {}).get(app.servers_key)
    found = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return found if isinstance(found, dict) else None


def check_registered(app: App, path: Path) -> tuple[bool | None, str, str] | None:
    """`whiteboard doctor`'s look at one app: None when Whiteboard is not registered there;
    else (ok, what was found, the next step). ok None: a warning (the doctor does not fail)."""
    found = registered(app, path)
    if found is None:
        return None
    reinstall = f"whiteboard mcp install --client {app.key}"
    command, args = found.get("command"), found.get("args")
    if not isinstance(command, str) or not os.path.isfile(command) or not os.access(command, os.X_OK):
        return False, f"{app.label}: {path} runs {command!r}, which is not a program here", f"Run: {reinstall}"
    if found != entry(app):
        return None, f"{app.label}: {path} runs {command} {' '.join(map(str, args or []))}, not this Whiteboard", \
            f"To use this one, run: {reinstall}"
    return True, f"{app.label}: registered ({path})", ""
