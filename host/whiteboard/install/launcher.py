"""The launcher a manifest's "path" names: a tiny script that starts the host.

Browsers start the host with their own working directory and PATH, so everything in it
is absolute: the interpreter is the one `whiteboard install` ran under (a venv's python
keeps its venv). `-P` keeps the working directory off sys.path, so a stray `whiteboard`
folder there cannot shadow the package. It exports the allowed origins, so the host's
own argv[1] check accepts exactly the extension ids the manifests name.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Mapping

from ..files import atomic_write

MARKER = "Whiteboard native-messaging host launcher, written by the Whiteboard installer"
HOST_MODULE = "whiteboard.server.main"
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# cmd.exe would expand or split on these even inside set "K=V".
BAT_UNSAFE = re.compile(r'["%\r\n]')


def default_python() -> str:
    return sys.executable


def launcher_env(origins: list[str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {"WHITEBOARD_ALLOWED_ORIGINS": ",".join(sorted(origins))}
    for name, value in (extra or {}).items():
        if not ENV_NAME_RE.fullmatch(name):
            raise ValueError(f"{name!r} is not a valid environment variable name")
        env[name] = value
    return env


def render_posix(python: str, env: Mapping[str, str]) -> str:
    lines = ["#!/bin/sh", f"# {MARKER}.",
             "# Started by the browser with any cwd and PATH: all paths here are absolute."]
    for name, value in env.items():
        lines += [f"{name}={shlex.quote(value)}", f"export {name}"]
    lines.append(f"exec {shlex.quote(python)} -P -m {HOST_MODULE} \"$@\"")
    return "\n".join(lines) + "\n"


def render_bat(python: str, env: Mapping[str, str]) -> str:
    for name, value in {"interpreter path": python, **env}.items():
        if BAT_UNSAFE.search(value):
            raise ValueError(f"{name}: value cannot be written safely into a .bat file")
    lines = ["@echo off", f"rem {MARKER}."]
    lines += [f'set "{name}={value}"' for name, value in env.items()]
    lines.append(f'"{python}" -P -m {HOST_MODULE} %*')
    return "\r\n".join(lines) + "\r\n"


def write_launcher(path: Path, python: str, origins: list[str], extra_env: Mapping[str, str] | None = None) -> str:
    """Write the launcher atomically, executable; returns "created", "updated" or "unchanged"."""
    if not Path(python).is_absolute():
        raise ValueError(f"interpreter path {python} is not absolute")
    if not Path(python).exists():
        raise ValueError(f"interpreter {python} does not exist")
    env = launcher_env(origins, extra_env)
    if path.suffix.lower() == ".bat":
        return atomic_write(path, render_bat(python, env), 0o755)
    return atomic_write(path, render_posix(python, env), 0o755)


def is_our_launcher(path: Path) -> bool:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as f:
            return MARKER in f.read(512)
    except OSError:
        return False
