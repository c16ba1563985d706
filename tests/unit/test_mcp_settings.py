"""The desktop apps' switch and names (memory/store/desktop.py) and where each app keeps its
MCP configuration on each platform (mcp/apps.py): docs/mcp.md."""

import contextlib
from pathlib import Path

import pytest

from whiteboard.mcp.apps import APPS, config_path
from whiteboard.memory.store.desktop import MAX_CLIENT_NAME, MAX_CLIENTS, DesktopAppsStore, client_name
from whiteboard.protocol.errors import Unavailable


def test_off_by_default_and_the_switch_survives_apps_noted_beside_it(tmp_path):
    store = DesktopAppsStore(tmp_path)
    assert store.load().enabled is False and not (tmp_path / "mcp.json").exists()
    store.saw("Claude", None)
    assert store.load().enabled is False  # noting an app turns nothing on
    assert store.update(enabled=True).enabled is True
    store.saw("Claude", 1000.0)
    store.saw("Cursor", 2000.0)
    apps = store.load()
    assert apps.enabled is True and [(c.name, c.last_read) for c in apps.clients] == [("Cursor", 2000.0),
                                                                                     ("Claude", 1000.0)]
    store.saw("Claude", 1010.0)  # within READ_PRECISION of the one noted: not written again
    store.saw("Claude", None)  # a restart keeps its last read
    assert {c.name: c.last_read for c in store.load().clients}["Claude"] == 1000.0
    store.saw("Claude", 3000.0)
    assert store.load().clients[0].name == "Claude"
    assert (tmp_path / "mcp.json").stat().st_mode & 0o777 == 0o600


def test_names_are_one_printable_line_and_only_the_latest_apps_are_kept(tmp_path):
    assert client_name("Claude\n\x1b[31mDesktop\u202e\t") == "Claude [31mDesktop"
    assert client_name("x" * 10_000) == "x" * MAX_CLIENT_NAME
    assert client_name(None) == client_name("  \n ") == "unnamed app"
    store = DesktopAppsStore(tmp_path)
    for i in range(MAX_CLIENTS + 5):
        store.saw(f"app {i}", 100.0 + 100 * i)
    names = [c.name for c in store.load().clients]
    assert len(names) == MAX_CLIENTS and names[0] == f"app {MAX_CLIENTS + 4}" and "app 0" not in names


@pytest.mark.parametrize("text", ["{", "[]", '{"enabled": "yes"}', '{"enabled": true, "clients": 5}'])
def test_a_damaged_file_is_named_and_counts_as_off_nowhere(tmp_path, text):
    (tmp_path / "mcp.json").write_text(text)
    with pytest.raises(Unavailable) as failed:
        DesktopAppsStore(tmp_path).load()
    assert str(tmp_path / "mcp.json") in failed.value.message


def test_each_app_has_a_file_on_every_platform(tmp_path):
    home = tmp_path / "home"
    appdata = str(tmp_path / "AppData" / "Roaming")
    assert config_path(APPS["claude-desktop"], "darwin", home) == \
        home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    assert config_path(APPS["claude-desktop"], "linux", home) == home / ".config/Claude/claude_desktop_config.json"
    assert config_path(APPS["claude-desktop"], "win32", home, appdata) == \
        Path(appdata) / "Claude" / "claude_desktop_config.json"
    assert config_path(APPS["vscode"], "win32", home, appdata) == Path(appdata) / "Code" / "User" / "mcp.json"
    assert config_path(APPS["cursor"], "win32", home, appdata) == home / ".cursor" / "mcp.json"
    for app in APPS.values():
        assert {config_path(app, p, home, appdata).name for p in ("darwin", "linux", "win32")}


def test_an_apps_suggestion_says_which_app_within_the_origin_fields_limit():
    """Audit: `remember` set no origin, so once accepted it read "origin: live chat"; an
    origin over the export's 40 characters would make that export fail to import."""
    from whiteboard.mcp.desk import Desk
    from whiteboard.memory.store.transfer import _Entry

    class Service:
        def turn(self, wait):
            return contextlib.nullcontext()

        def suggest(self, suggestions):
            self.got = suggestions
            return suggestions

    class Apps:
        def load(self):
            return type("Loaded", (), {"enabled": True})()

    for client, origin in (("Claude", "suggested by Claude"),
                           ("A Very Long Desktop Application Name Indeed", None)):
        service = Service()
        desk = Desk(open_service=lambda service=service: service)
        desk._apps = Apps()
        desk.client = client
        assert "Saved as suggestion" in desk.remember("Drinks oat milk", "preference")
        got = service.got[0].origin
        assert got == origin if origin else (got.startswith("suggested by A Very") and len(got) == 40), got
        _Entry.model_validate({"type": "preference", "text": "x", "origin": got})


def test_the_entry_carries_the_folders_set_absolute_only(monkeypatch):
    from whiteboard.mcp.apps import entry

    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "WHITEBOARD_CONFIG_DIR",
                 "WHITEBOARD_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert "env" not in entry(APPS["cursor"])
    monkeypatch.setenv("XDG_CONFIG_HOME", "/elsewhere/config")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")  # never carried: a path relative to the app's folder
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")  # this session's, not the vault's
    monkeypatch.setenv("WHITEBOARD_DATA_DIR", "/vault")
    assert entry(APPS["cursor"])["env"] == {"XDG_CONFIG_HOME": "/elsewhere/config", "WHITEBOARD_DATA_DIR": "/vault"}
