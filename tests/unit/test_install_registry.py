"""The Windows path: WinRegistry driving a fake `winreg` module, and install/uninstall on it.

The fake behaves like winreg where it matters: keys are case-insensitive, missing keys
raise FileNotFoundError, DeleteKeyEx refuses keys with subkeys, and a hive can be made
read-only (HKLM without Administrator rights).
"""

import json
import sys

import pytest

from whiteboard.install import BROWSERS, InstallError, Platform, Target, install, uninstall
from whiteboard.install.registry import WinRegistry

CHROME_KEY = r"Software\Google\Chrome\NativeMessagingHosts\com.whiteboard.host"
EDGE_KEY = r"Software\Microsoft\Edge\NativeMessagingHosts\com.whiteboard.host"
OTHER_ID = "a" * 32


class FakeWinreg:
    HKEY_CURRENT_USER = "HKCU"
    HKEY_LOCAL_MACHINE = "HKLM"
    KEY_READ, KEY_WRITE, KEY_WOW64_64KEY, REG_SZ = 0x20019, 0x20006, 0x0100, 1

    def __init__(self, read_only=()):
        self.keys: dict[tuple[str, str], dict[str, tuple[object, int]]] = {}
        self.read_only = set(read_only)
        self.calls: list[tuple] = []

    class Handle:
        def __init__(self, values):
            self.values = values

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    @staticmethod
    def _norm(sub):
        return sub.lower().strip("\\")

    def OpenKey(self, root, sub, reserved=0, access=KEY_READ):
        self.calls.append(("OpenKey", root, sub, access))
        try:
            return self.Handle(self.keys[(root, self._norm(sub))])
        except KeyError:
            raise FileNotFoundError(2, "The system cannot find the file specified") from None

    def CreateKeyEx(self, root, sub, reserved=0, access=KEY_WRITE):
        self.calls.append(("CreateKeyEx", root, sub, access))
        if root in self.read_only:
            raise PermissionError(5, "Access is denied")
        parts = self._norm(sub).split("\\")
        for i in range(1, len(parts) + 1):  # like winreg: intermediate keys come into being too
            self.keys.setdefault((root, "\\".join(parts[:i])), {})
        return self.Handle(self.keys[(root, self._norm(sub))])

    def QueryValueEx(self, handle, name):
        try:
            return handle.values[name]
        except KeyError:
            raise FileNotFoundError(2, "The system cannot find the file specified") from None

    def SetValueEx(self, handle, name, reserved, kind, value):
        handle.values[name] = (value, kind)

    def DeleteKeyEx(self, root, sub, access=KEY_WOW64_64KEY, reserved=0):
        self.calls.append(("DeleteKeyEx", root, sub, access))
        key = (root, self._norm(sub))
        if key not in self.keys:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        if any(r == root and k.startswith(key[1] + "\\") for r, k in self.keys):
            raise PermissionError(5, "Access is denied")  # winreg cannot delete a key with subkeys
        del self.keys[key]

    def default(self, root, sub):
        values = self.keys.get((root, self._norm(sub)))
        return None if values is None or "" not in values else values[""][0]


@pytest.fixture
def fake():
    return FakeWinreg()


@pytest.fixture
def reg(fake):
    return WinRegistry(fake)


@pytest.fixture
def target(tmp_path):
    p = Platform(os="win32", home=tmp_path / "home", data_dir=tmp_path / "data",
                 env={"LOCALAPPDATA": str(tmp_path / "local"), "PROGRAMDATA": str(tmp_path / "programdata")})
    return Target(p)


def test_winregistry_set_get_delete_default_value(fake, reg):
    assert reg.get_default("HKCU", CHROME_KEY) is None
    reg.set_default("HKCU", CHROME_KEY, r"C:\wb\com.whiteboard.host.json")
    assert fake.default("HKCU", CHROME_KEY) == r"C:\wb\com.whiteboard.host.json"
    assert fake.keys[("HKCU", CHROME_KEY.lower())][""] == (r"C:\wb\com.whiteboard.host.json", fake.REG_SZ)
    assert reg.get_default("HKCU", CHROME_KEY.upper()) == r"C:\wb\com.whiteboard.host.json"
    assert reg.get_default("HKLM", CHROME_KEY) is None  # the other hive is separate
    assert reg.delete_key("HKCU", CHROME_KEY) is True
    assert reg.delete_key("HKCU", CHROME_KEY) is False
    assert ("HKCU", r"software\google\chrome\nativemessaginghosts") in fake.keys  # parent left alone
    assert all(call[3] & fake.KEY_WOW64_64KEY for call in fake.calls), "every call must use the 64-bit view"


def test_winregistry_permission_error_becomes_install_error():
    reg = WinRegistry(FakeWinreg(read_only={"HKLM"}))
    with pytest.raises(InstallError, match="Administrator"):
        reg.set_default("HKLM", CHROME_KEY, "x")


def test_install_writes_one_manifest_bat_launcher_and_hkcu_values(fake, reg, target):
    changes = install(target, ["chrome", "edge"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    manifest = target.windows_manifest_path
    assert manifest.is_file() and target.launcher_path.name == "whiteboard-host.bat"
    bat = target.launcher_path.read_bytes().decode()
    assert bat.startswith("@echo off\r\n")
    assert 'set "WHITEBOARD_ALLOWED_ORIGINS=chrome-extension://bahaoeoalppkecdpddkhegpgkngpniel/"' in bat
    assert f'"{sys.executable}" -P -m whiteboard.server.main %*' in bat
    assert fake.default("HKCU", CHROME_KEY) == str(manifest)
    assert fake.default("HKCU", EDGE_KEY) == str(manifest)
    assert {(c.what, c.action) for c in changes} == {("launcher", "created"), ("manifest", "created"),
                                                    ("registry", "created")}


def test_install_twice_is_harmless(reg, target):
    install(target, ["chrome"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    again = install(target, ["chrome"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    assert {c.action for c in again} == {"unchanged"}


def test_system_install_uses_hklm_and_programdata(fake, reg, target):
    system = Target(target.platform, system=True)
    install(system, ["edge"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    assert fake.default("HKLM", EDGE_KEY) == str(system.windows_manifest_path)
    assert "programdata" in str(system.windows_manifest_path)
    assert fake.default("HKCU", EDGE_KEY) is None


def test_system_install_without_admin_rights_is_a_clear_error(target):
    reg = WinRegistry(FakeWinreg(read_only={"HKLM"}))
    with pytest.raises(InstallError, match=r"HKLM\\Software\\Microsoft\\Edge.*Administrator"):
        install(Target(target.platform, system=True), ["edge"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)


def test_uninstall_twice_removes_ours_then_reports_absent(fake, reg, target):
    install(target, ["chrome", "edge"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    first = uninstall(target, ["chrome", "edge", "vivaldi"], registry=reg)
    assert fake.default("HKCU", CHROME_KEY) is None and fake.default("HKCU", EDGE_KEY) is None
    assert not target.windows_manifest_path.exists() and not target.launcher_path.exists()
    assert {(c.what, c.action) for c in first} == {("registry", "removed"), ("manifest", "removed"),
                                                  ("launcher", "removed")}
    second = uninstall(target, ["chrome", "edge", "vivaldi"], registry=reg)
    assert {c.action for c in second} == {"absent"}


def test_uninstall_leaves_a_value_naming_someone_elses_manifest(fake, reg, target):
    reg.set_default("HKCU", CHROME_KEY, r"C:\Other\their.json")
    changes = uninstall(target, ["chrome"], registry=reg)
    assert fake.default("HKCU", CHROME_KEY) == r"C:\Other\their.json"
    assert [c.action for c in changes if c.what == "registry"] == ["kept"]


def test_uninstalling_vivaldi_keeps_the_key_chrome_shares(fake, reg, target):
    install(target, ["chrome", "vivaldi"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    changes = uninstall(target, ["vivaldi"], registry=reg)
    assert fake.default("HKCU", CHROME_KEY) == str(target.windows_manifest_path)
    kept = [c for c in changes if c.what == "registry"]
    assert kept[0].action == "kept" and "Google Chrome" in kept[0].note
    assert target.launcher_path.exists() and target.windows_manifest_path.exists()


def test_uninstall_one_browser_keeps_files_the_other_still_uses(fake, reg, target):
    install(target, ["chrome", "edge"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    uninstall(target, ["edge"], registry=reg)
    assert fake.default("HKCU", EDGE_KEY) is None
    assert fake.default("HKCU", CHROME_KEY) == str(target.windows_manifest_path)
    assert target.windows_manifest_path.exists() and target.launcher_path.exists()


def test_reinstall_with_another_id_updates_the_shared_manifest(reg, target):
    install(target, ["chrome"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    changes = install(target, ["edge"], [OTHER_ID], registry=reg)
    assert OTHER_ID in target.windows_manifest_path.read_text()
    assert OTHER_ID in target.launcher_path.read_text()
    assert ("manifest", "updated") in {(c.what, c.action) for c in changes}


def test_bat_launcher_refuses_values_cmd_would_mangle(tmp_path):
    from whiteboard.install.launcher import write_launcher

    with pytest.raises(ValueError, match="cannot be written safely"):
        write_launcher(tmp_path / "h.bat", sys.executable, ["chrome-extension://" + OTHER_ID + "/"],
                       {"WHITEBOARD_DATA_DIR": "C:\\100%\\data"})
    assert not (tmp_path / "h.bat").exists()


def test_doctor_reads_the_registry_then_checks_the_manifest_it_names(reg, target):
    from whiteboard.install import diagnose

    origin = "chrome-extension://bahaoeoalppkecdpddkhegpgkngpniel/"
    [missing] = diagnose(target, origin, ["edge"], registry=reg)
    assert missing.failed and missing.location == "HKCU\\" + EDGE_KEY
    assert missing.checks[0].fix == "Run: whiteboard install --browser edge"

    install(target, ["edge"], ["bahaoeoalppkecdpddkhegpgkngpniel"], registry=reg)
    [report] = diagnose(target, origin, ["edge"], registry=reg, timeout=2)
    checks = [(c.ok, c.label) for c in report.checks]
    assert checks[0] == (True, f"registry HKCU\\{EDGE_KEY} names {target.windows_manifest_path}")
    assert all(ok for ok, _ in checks[1:6]), checks  # manifest, fields, absolute, runnable .bat, origin
    # (the .bat itself can only run on Windows; here the launch is expected to fail)


FIREFOX_KEY = r"Software\Mozilla\NativeMessagingHosts\com.whiteboard.host"
ADDON = "whiteboard@example.org"


def test_firefox_gets_its_own_manifest_and_the_mozilla_key(fake, reg, target):
    install(target, ["chrome", "firefox"], ["bahaoeoalppkecdpddkhegpgkngpniel", ADDON], registry=reg)
    firefox_manifest = target.manifest_path(BROWSERS["firefox"])
    assert firefox_manifest != target.windows_manifest_path
    assert fake.default("HKCU", FIREFOX_KEY) == str(firefox_manifest)
    assert fake.default("HKCU", CHROME_KEY) == str(target.windows_manifest_path)
    assert json.loads(firefox_manifest.read_text())["allowed_extensions"] == [ADDON]
    assert "allowed_extensions" not in json.loads(target.windows_manifest_path.read_text())
    assert ADDON in target.launcher_path.read_text()
    # Firefox alone goes; Chrome's file, key and the launcher stay.
    uninstall(target, ["firefox"], registry=reg)
    assert fake.default("HKCU", FIREFOX_KEY) is None and not firefox_manifest.exists()
    assert fake.default("HKCU", CHROME_KEY) and target.windows_manifest_path.exists() and target.launcher_path.exists()
    uninstall(target, ["chrome", "vivaldi"], registry=reg)  # Vivaldi reads Chrome's key
    assert not target.windows_manifest_path.exists() and not target.launcher_path.exists()
