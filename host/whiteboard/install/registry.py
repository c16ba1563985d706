"""The Windows registry, behind a three-call interface.

Chrome-family browsers on Windows find a host through the default value of
`<HKCU|HKLM>\\<vendor key>\\NativeMessagingHosts\\<host name>`: the manifest's path.
`WinRegistry` drives the `winreg` module; tests hand it a fake module with the same calls.
"""

from __future__ import annotations

from typing import Protocol

from .errors import InstallError


class Registry(Protocol):
    def get_default(self, hive: str, key: str) -> str | None: ...
    def set_default(self, hive: str, key: str, value: str) -> None: ...
    def delete_key(self, hive: str, key: str) -> bool: ...


class WinRegistry:
    def __init__(self, winreg_module=None):
        if winreg_module is None:
            import winreg as winreg_module  # Windows only; imported when first needed.
        self.winreg = winreg_module

    def _root(self, hive: str):
        return {"HKCU": self.winreg.HKEY_CURRENT_USER, "HKLM": self.winreg.HKEY_LOCAL_MACHINE}[hive]

    def _access(self, access: int) -> int:
        # One view of HKLM\Software for 32- and 64-bit Python alike; Chrome reads this one.
        return access | self.winreg.KEY_WOW64_64KEY

    def get_default(self, hive: str, key: str) -> str | None:
        try:
            with self.winreg.OpenKey(self._root(hive), key, 0, self._access(self.winreg.KEY_READ)) as k:
                value, _kind = self.winreg.QueryValueEx(k, "")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InstallError(f"cannot read {hive}\\{key}: {exc.strerror or exc}") from None
        return value if isinstance(value, str) else None

    def set_default(self, hive: str, key: str, value: str) -> None:
        try:
            with self.winreg.CreateKeyEx(self._root(hive), key, 0, self._access(self.winreg.KEY_WRITE)) as k:
                self.winreg.SetValueEx(k, "", 0, self.winreg.REG_SZ, value)
        except PermissionError:
            hint = ": run from an Administrator prompt for --system" if hive == "HKLM" else ""
            raise InstallError(f"no permission to write {hive}\\{key}{hint}") from None
        except OSError as exc:
            raise InstallError(f"cannot write {hive}\\{key}: {exc.strerror or exc}") from None

    def delete_key(self, hive: str, key: str) -> bool:
        """Delete our host's key (it has no subkeys); False if it was not there."""
        try:
            self.winreg.DeleteKeyEx(self._root(hive), key, self.winreg.KEY_WOW64_64KEY, 0)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise InstallError(f"cannot delete {hive}\\{key}: {exc.strerror or exc}") from None
        return True


def default_registry(registry: Registry | None = None) -> Registry:
    """The given registry, else the real one (only on Windows)."""
    return registry if registry is not None else WinRegistry()
