"""Host settings: limits from design §4 with environment overrides, and the user dirs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import platformdirs

from . import HOST_NAME
from .protocol.framing import DEFAULT_INBOUND_CAP, HARD_INBOUND_CAP

APP_NAME = "whiteboard"
# The bundled extension's id, fixed by the `key` in extension/manifest.json.
EXTENSION_ID = "bahaoeoalppkecdpddkhegpgkngpniel"
# The same extension's add-on id in Firefox, fixed by browser_specific_settings.gecko.id.
FIREFOX_ADDON_ID = "whiteboard@whiteboard.local"


# The directories named by the environment: the XDG base directories (the spec says a
# relative one is invalid) and Whiteboard's own overrides.
DIRECTORY_VARIABLES = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
                       "WHITEBOARD_CONFIG_DIR", "WHITEBOARD_DATA_DIR", "WHITEBOARD_RUNTIME_DIR")


class RelativeDirectory(ValueError):
    """A directory variable holds a relative path: files would go wherever Whiteboard runs from."""


def check_directory_variables(env=None) -> None:
    """RelativeDirectory for the first directory variable set to a relative path."""
    env = os.environ if env is None else env
    for name in DIRECTORY_VARIABLES:
        value = env.get(name)
        if value and not os.path.isabs(value):
            raise RelativeDirectory(f"{name}={value[:200]!r} is a relative path: Whiteboard's files (and the browsers' "
                                    f"host manifests) would go wherever it is started from. Make {name} an "
                                    "absolute path, or unset it for the default.")


def config_dir() -> Path:
    check_directory_variables()
    return Path(os.environ.get("WHITEBOARD_CONFIG_DIR") or platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    check_directory_variables()
    return Path(os.environ.get("WHITEBOARD_DATA_DIR") or platformdirs.user_data_dir(APP_NAME))


@dataclass(frozen=True)
class Limits:
    max_messages: int = 50
    # UTF-8 bytes of message text a session holds; the oldest go (to the summary) past it.
    max_session_bytes: int = 4 * 1024 * 1024
    max_sessions: int = 100
    ttl_seconds: float = 24 * 3600
    cleanup_interval: float = 30 * 60
    summary_max_tokens: int = 800
    tail_messages: int = 3
    default_budget: int = 2000


# What each limit may be set to (WHITEBOARD_<LIMIT>): a value outside fails the host's start
# with a message naming the variable, not a session that can hold nothing or never expires.
LIMIT_RANGES: dict[str, tuple[float, float]] = {
    "max_messages": (1, 10_000), "max_session_bytes": (1024, 256 * 1024 * 1024), "max_sessions": (1, 10_000),
    "ttl_seconds": (60, 30 * 24 * 3600), "cleanup_interval": (1, 24 * 3600), "summary_max_tokens": (16, 100_000),
    "tail_messages": (0, 1000), "default_budget": (1, 200_000)}


# How often the host's sync thread looks at the sync folder (memory/sync/background.py):
# infinite or huge would overflow the thread's wait and stop sync without a word.
SYNC_SECONDS_VARIABLE = "WHITEBOARD_SYNC_SECONDS"
SYNC_SECONDS_RANGE = (0.2, 24 * 3600)


def _limit_from_env(name: str, raw: str, kind: type) -> int | float:
    return number_from_env(f"WHITEBOARD_{name.upper()}", raw, *LIMIT_RANGES[name], kind)


def number_from_env(variable: str, raw: str, low: float, high: float, kind: type = float) -> int | float:
    """raw as a number from low to high; ValueError naming the variable and its range."""
    try:
        value = kind(raw.strip())
    except ValueError:
        value = None
    if value is None or not low <= value <= high:  # also NaN, which compares false
        noun = "a whole number" if kind is int else "a number"
        raise ValueError(f"{variable} must be {noun} from {low} to {high}, got {raw[:40]!r}")
    return value


@dataclass(frozen=True)
class HostConfig:
    limits: Limits = field(default_factory=Limits)
    inbound_cap: int = DEFAULT_INBOUND_CAP
    # Callers: Chrome origins and Firefox add-on ids (server/origin.py tells them apart).
    allowed_origins: tuple[str, ...] = (f"chrome-extension://{EXTENSION_ID}/", FIREFOX_ADDON_ID)
    host_name: str = HOST_NAME

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> HostConfig:
        """WHITEBOARD_<LIMIT>=n overrides a limit; WHITEBOARD_ALLOWED_ORIGINS=a,b the origins."""
        env = os.environ if env is None else env
        limits = Limits()
        overrides = {}
        for f in fields(Limits):
            raw = env.get(f"WHITEBOARD_{f.name.upper()}")
            if raw:
                overrides[f.name] = _limit_from_env(f.name, raw, float if f.type == "float" else int)
        config = cls(limits=replace(limits, **overrides))
        if env.get("WHITEBOARD_INBOUND_CAP"):
            raw = env["WHITEBOARD_INBOUND_CAP"]
            cap = int(raw) if raw.strip().isdigit() else 0
            if not 0 < cap <= HARD_INBOUND_CAP:
                raise ValueError(f"WHITEBOARD_INBOUND_CAP must be a whole number of bytes from 1 to "
                                 f"{HARD_INBOUND_CAP}, got {raw[:40]!r}")
            config = replace(config, inbound_cap=cap)
        if env.get(SYNC_SECONDS_VARIABLE):  # only checked here: the sync thread reads it itself
            number_from_env(SYNC_SECONDS_VARIABLE, env[SYNC_SECONDS_VARIABLE], *SYNC_SECONDS_RANGE)
        if env.get("WHITEBOARD_ALLOWED_ORIGINS"):
            origins = tuple(o.strip() for o in env["WHITEBOARD_ALLOWED_ORIGINS"].split(",") if o.strip())
            config = replace(config, allowed_origins=origins)
        return config
