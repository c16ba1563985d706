"""Model settings: how the stored ones change, and their resolution with the environment.

The file (preset, base URL, model, time limits and the API key encrypted with AES-GCM) is
read and written by the encrypted settings store below this layer (whiteboard/settings_store.py),
which the memory vault shares. WHITEBOARD_LLM_BASE_URL / _MODEL / _API_KEY override the stored
values. Nothing here puts the API key in a message or a log.

A base URL with http:// to anything but this computer (loopback) is refused unless the user
allowed it explicitly (`allow_insecure`, stored with the URL; WHITEBOARD_LLM_ALLOW_INSECURE=1
for WHITEBOARD_LLM_BASE_URL): the key and the prompts would go out unencrypted.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field, replace
from typing import Mapping
from urllib.parse import urlsplit

from ..protocol.bounds import MAX_TIMEOUT_SECONDS
from ..protocol.errors import BadRequest, Unavailable
from ..settings_store import SettingsFile, StoredSettings
from .endpoint import Endpoint, Timeouts
from .errors import InsecureUrl, InsecureUrlInForce
from .presets import PRESETS

ENV_BASE_URL, ENV_MODEL, ENV_API_KEY = "WHITEBOARD_LLM_BASE_URL", "WHITEBOARD_LLM_MODEL", "WHITEBOARD_LLM_API_KEY"
ENV_ALLOW_INSECURE = "WHITEBOARD_LLM_ALLOW_INSECURE"
ENV_TIMEOUTS = {"connect": "WHITEBOARD_LLM_CONNECT_TIMEOUT", "read": "WHITEBOARD_LLM_READ_TIMEOUT",
                "total": "WHITEBOARD_LLM_TOTAL_TIMEOUT"}


@dataclass(frozen=True)
class Resolved:
    """The settings in force: stored values with environment overrides applied."""

    preset: str
    base_url: str
    model: str
    api_key: str | None = field(repr=False)
    key_source: str  # "env", "stored" or "none"
    from_env: tuple[str, ...]
    timeouts: Timeouts
    allow_insecure: bool = False

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    def endpoint(self) -> Endpoint:
        """Where requests go; InsecureUrlInForce rather than a key sent in cleartext."""
        if not self.allow_insecure and insecure_host(self.base_url):
            raise InsecureUrlInForce(f"the model base URL {self.base_url} is http:// to another computer: "
                                     f"{_INSECURE_WHY}. {_INSECURE_HOW}")
        return Endpoint(self.base_url, self.model, self.api_key)


_INSECURE_WHY = "the API key and every prompt would cross the network unencrypted"
_INSECURE_HOW = ("Use https://, or allow it explicitly (`whiteboard config set --allow-insecure`, or confirm "
                 "on the options page) only on a network you trust")


def insecure_host(url: str) -> str | None:
    """The host of an http:// URL that is not this computer (loopback), else None."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.scheme != "http" or host == "localhost":
        return None
    try:
        return None if ipaddress.ip_address(host).is_loopback else host
    except ValueError:
        return host  # a name: it may resolve anywhere


def check_base_url(url: str, allow_insecure: bool = False) -> str:
    """An http(s) URL with a host and nothing secret in it; returned without a trailing slash."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadRequest("base_url: must be an http:// or https:// URL with a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise BadRequest("base_url: must not hold credentials, a query or a fragment (give the API key separately)")
    host = insecure_host(url)
    if host and not allow_insecure:
        raise InsecureUrl(f"base_url: http:// to {host}: {_INSECURE_WHY}. {_INSECURE_HOW}")
    return url.strip().rstrip("/")


def check_api_key(api_key: str) -> str:
    """It goes into an HTTP header: printable ASCII without spaces (the message never quotes it)."""
    api_key = api_key.strip()
    if not all(33 <= ord(c) <= 126 for c in api_key):
        raise BadRequest("api_key: must be printable ASCII without spaces (check for a stray character)")
    return api_key


class SettingsStore(SettingsFile):
    """The stored model settings and how they change: presets, checked URLs and keys."""

    def update(self, *, preset: str | None = None, base_url: str | None = None, model: str | None = None,
               api_key: str | None = None, clear_api_key: bool = False, read_timeout: float | None = None,
               total_timeout: float | None = None, allow_insecure: bool = False) -> StoredSettings:
        """Change the given fields; a preset fills in its base URL and default model unless given.

        `allow_insecure` is the user's consent to an http:// base URL to another computer: it is
        stored with the URL and a new URL needs it again."""
        current = self.load()
        changes: dict = {"allow_insecure": allow_insecure} if allow_insecure else {}
        if preset is not None:
            if preset not in PRESETS:
                raise BadRequest(f"preset: must be one of {', '.join(PRESETS)}")
            changes["preset"] = preset
            changes["base_url"] = PRESETS[preset].base_url
            changes["model"] = PRESETS[preset].default_model
            changes["allow_insecure"] = allow_insecure
        if base_url is not None:
            changes["base_url"] = check_base_url(base_url, allow_insecure) if base_url.strip() else ""
            changes["allow_insecure"] = allow_insecure
            chosen = PRESETS.get(changes.get("preset", current.preset))
            if chosen is None or chosen.base_url != changes["base_url"]:
                changes["preset"] = "custom"
        if model is not None:
            changes["model"] = model.strip()
        if clear_api_key:
            changes["api_key_enc"] = ""
        if api_key is not None and api_key.strip():
            plain = check_api_key(api_key).encode()
            changes["api_key_enc"] = self.seal_api_key(plain)
        for name, value in (("read_timeout", read_timeout), ("total_timeout", total_timeout)):
            if value is not None:
                if not 0 < value <= MAX_TIMEOUT_SECONDS:
                    raise BadRequest(f"{name}: must be between 0 and {MAX_TIMEOUT_SECONDS} seconds")
                changes[name] = float(value)
        updated = replace(current, **changes)
        self.save(updated)
        return updated


def resolve(store: SettingsStore, env: Mapping[str, str] | None = None) -> Resolved:
    env = os.environ if env is None else env
    stored = store.load()
    from_env = tuple(name for name, var in (("base_url", ENV_BASE_URL), ("model", ENV_MODEL),
                                            ("api_key", ENV_API_KEY)) if env.get(var))
    if env.get(ENV_BASE_URL):
        allow_insecure = env.get(ENV_ALLOW_INSECURE, "").strip() == "1"
        base_url = _env_base_url(env[ENV_BASE_URL])
    else:
        base_url, allow_insecure = stored.base_url, stored.allow_insecure
    if env.get(ENV_API_KEY):
        api_key, key_source = _env_api_key(env[ENV_API_KEY]), "env"
    else:
        api_key = store.api_key(stored)
        key_source = "stored" if api_key else "none"
    defaults = Timeouts()
    timeouts = Timeouts(connect=_env_seconds(env, "connect", defaults.connect),
                        read=_env_seconds(env, "read", stored.read_timeout or defaults.read),
                        total=_env_seconds(env, "total", stored.total_timeout or defaults.total))
    return Resolved(preset=stored.preset if not env.get(ENV_BASE_URL) else "custom", base_url=base_url,
                    model=env.get(ENV_MODEL, "").strip() or stored.model, api_key=api_key,
                    key_source=key_source, from_env=from_env, timeouts=timeouts, allow_insecure=allow_insecure)


def _env_base_url(url: str) -> str:
    # Not the request's fault: a misconfigured environment makes the model unavailable. An http://
    # URL to another computer is refused when a request would use it (Resolved.endpoint).
    try:
        return check_base_url(url, allow_insecure=True)
    except BadRequest as exc:
        raise Unavailable(f"{ENV_BASE_URL}: {exc.message.removeprefix('base_url: ')}") from None


def _env_api_key(api_key: str) -> str:
    try:
        return check_api_key(api_key)
    except BadRequest as exc:
        raise Unavailable(f"{ENV_API_KEY}: {exc.message.removeprefix('api_key: ')}") from None


def _env_seconds(env: Mapping[str, str], which: str, default: float) -> float:
    raw = env.get(ENV_TIMEOUTS[which])
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_TIMEOUT_SECONDS:
        raise Unavailable(f"{ENV_TIMEOUTS[which]} must be a number of seconds between 0 and {MAX_TIMEOUT_SECONDS}")
    return value
