"""The encrypted settings store: the model settings file (config_dir()/llm.json) with its API
key sealed by the shared key, and the names of the files that key encrypts.

Below both its users: the model layer (llm/settings.py adds presets, URL checks and the
environment) and the memory vault (memory/store/vault.py), which share the one key file
(whiteboard.crypto). Each asks here, not the other, which files a new key would orphan.
The file is written atomically (temp file + rename, mode 0600); nothing here puts the API
key in a message or a log.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from . import crypto
from .config import config_dir, data_dir
from .files import atomic_write, read_json, unwritable
from .protocol.bounds import MAX_TIMEOUT_SECONDS
from .protocol.errors import Unavailable

SETTINGS_FILE = "llm.json"
KEY_FILE = "secret.key"  # the shared key: the API key here, the vault's rows
VAULT_FILE = "memories.db"
API_KEY_AAD = b"whiteboard:llm:api_key"


def default_paths() -> tuple[Path, Path]:
    """The user's vault and the shared key file."""
    return data_dir() / VAULT_FILE, config_dir() / KEY_FILE


@dataclass(frozen=True)
class StoredSettings:
    preset: str = ""
    base_url: str = ""
    model: str = ""
    api_key_enc: str = ""  # base64(nonce || ciphertext+tag)
    read_timeout: float | None = None
    total_timeout: float | None = None
    allow_insecure: bool = False  # the user allowed this http:// base URL to another computer


class SettingsFile:
    """llm.json: read and written whole; the API key in it sealed with the shared key."""

    def __init__(self, directory: Path | None = None, vault_path: Path | None = None):
        self.directory = directory or config_dir()
        self.path = self.directory / SETTINGS_FILE
        self.key_path = self.directory / KEY_FILE
        # The memory vault shares the key file: with it missing, no new key is made while
        # the vault exists. Defaults to the user's vault only for the user's config dir.
        if vault_path is None and directory is None:
            vault_path = default_paths()[0]
        self.vault_path = vault_path

    def encrypted_files(self) -> list[Path]:
        """This store's files holding data encrypted with the shared key (for crypto.KeyMissing)."""
        try:
            return [self.path] if self.load().api_key_enc else []
        except Unavailable:
            return [self.path]  # unreadable: it may hold a key, so never orphan it

    def signature(self) -> tuple[int, int] | None:
        """Changes whenever the file does (the CLI may write it while the host runs)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return st.st_mtime_ns, st.st_size

    def load(self) -> StoredSettings:
        raw = read_json(self.path, f"the model settings file {self.path} cannot be read; "
                                   "fix it or reset it with `whiteboard config clear`")
        if raw is None:
            return StoredSettings()
        if not isinstance(raw, dict):
            raise Unavailable(f"the model settings file {self.path} is not a settings object; "
                              "reset it with `whiteboard config clear`")
        values = {f.name: raw[f.name] for f in fields(StoredSettings) if f.name in raw}
        for name, value in values.items():
            wanted = (int, float) if name.endswith("_timeout") else bool if name == "allow_insecure" else str
            well_typed = isinstance(value, wanted) and (wanted is bool or not isinstance(value, bool))
            # A timeout as `update` allows it (NaN, 1e300 or 0 would hang or fail every call).
            if value is not None and not (well_typed and (not name.endswith("_timeout")
                                                          or 0 < value <= MAX_TIMEOUT_SECONDS)):
                raise Unavailable(f"the model settings file {self.path} has a malformed {name}; "
                                  "set it again or reset with `whiteboard config clear`")
        return StoredSettings(**values)

    def save(self, settings: StoredSettings) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.path, json.dumps(asdict(settings), indent=2), 0o600)
        except OSError as exc:
            raise unwritable(exc, self.path) from None

    def seal_api_key(self, plain: bytes) -> str:
        """The API key encrypted with the shared key (made now unless that would orphan files), for api_key_enc."""
        return base64.b64encode(crypto.encrypt(self._encryption_key(), plain, API_KEY_AAD)).decode()

    def _encryption_key(self) -> bytes:
        vault = [self.vault_path] if self.vault_path and self.vault_path.exists() \
            and self.vault_path.stat().st_size > 0 else []
        try:
            return crypto.load_or_create_key(self.key_path, [*vault, *self.encrypted_files()])
        except crypto.KeyMissing as exc:
            raise Unavailable(f"{exc}; the API key was not saved", reason="key_missing") from None
        except crypto.KeyFileError as exc:
            raise Unavailable(f"{exc}; the API key was not saved", reason="key_unreadable") from None
        except OSError as exc:
            raise unwritable(exc, self.key_path) from None

    def clear(self) -> bool:
        """Forget the stored settings (the shared encryption key file stays: the vault uses it too)."""
        existed = self.path.exists()
        self.path.unlink(missing_ok=True)
        return existed

    def api_key(self, settings: StoredSettings) -> str | None:
        if not settings.api_key_enc:
            return None
        try:
            blob = base64.b64decode(settings.api_key_enc, validate=True)
            return crypto.decrypt(crypto.load_key(self.key_path), blob, API_KEY_AAD).decode()
        except (ValueError, crypto.KeyFileError, crypto.DecryptError):
            raise Unavailable("the stored API key cannot be decrypted (the key file changed or the settings "
                              "were edited); set it again with `whiteboard config set --api-key`") from None
