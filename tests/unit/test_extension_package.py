"""`whiteboard extension path | pack` from this (editable) install: the checkout's extension/
is the folder, and the store zip is every file of it with a manifest that has no `key`."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from whiteboard.config import FIREFOX_ADDON_ID
from whiteboard.install.extension import extension_dir, pack

ROOT = Path(__file__).resolve().parents[2]
WHITEBOARD = str(Path(sys.executable).with_name("whiteboard"))


def test_path_is_the_checkouts_extension_in_an_editable_install():
    assert extension_dir() == ROOT / "extension"
    out = subprocess.run([WHITEBOARD, "extension", "path"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == str(ROOT / "extension")


def test_pack_writes_every_file_and_a_manifest_without_key_the_same_bytes_each_time(tmp_path):
    folder = tmp_path / "ext"
    (folder / "popup").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"manifest_version": 3, "version": "1.2.3", "key": "K"}))
    (folder / "popup" / "popup.js").write_text("// popup\n")
    (folder / ".DS_Store").write_text("finder litter")
    first = pack(tmp_path / "a.zip", "chrome", folder)
    with zipfile.ZipFile(first) as zf:
        assert sorted(zf.namelist()) == ["manifest.json", "popup/popup.js"]
        assert json.loads(zf.read("manifest.json")) == {"manifest_version": 3, "version": "1.2.3"}
    assert pack(tmp_path / "b.zip", "chrome", folder).read_bytes() == first.read_bytes()
    assert "key" in json.loads((folder / "manifest.json").read_text())  # the source is left alone


def test_each_browser_gets_a_zip_with_only_the_keys_it_reads(tmp_path):
    source = json.loads((ROOT / "extension" / "manifest.json").read_text())
    out = subprocess.run([WHITEBOARD, "extension", "pack"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    zips = {p.name.rsplit("-", 1)[1]: p for p in tmp_path.glob("whiteboard-*.zip")}
    assert set(zips) == {"chrome.zip", "firefox.zip"}
    manifests = {}
    for name, path in zips.items():
        with zipfile.ZipFile(path) as zf:
            manifests[name] = json.loads(zf.read("manifest.json"))
    chrome, firefox = manifests["chrome.zip"], manifests["firefox.zip"]
    assert chrome["background"] == {"service_worker": "background/worker.js", "type": "module"}
    assert firefox["background"] == {"scripts": ["background/worker.js"], "type": "module"}
    assert "browser_specific_settings" not in chrome and "key" not in chrome and "minimum_chrome_version" in chrome
    assert firefox["browser_specific_settings"]["gecko"]["id"] == FIREFOX_ADDON_ID
    assert "key" not in firefox and "minimum_chrome_version" not in firefox
    for manifest in (chrome, firefox):
        assert {k: v for k, v in manifest.items() if k != "background"}.items() <= source.items()


def test_the_source_manifest_serves_both_browsers():
    manifest = json.loads((ROOT / "extension" / "manifest.json").read_text())
    assert manifest["browser_specific_settings"]["gecko"]["id"] == FIREFOX_ADDON_ID  # the host allows this id
    assert manifest["background"]["scripts"] == [manifest["background"]["service_worker"]]
    # Chrome loads a manifest with both background keys from 121 on (before, `scripts` is an error).
    assert int(manifest["minimum_chrome_version"]) >= 121


def test_out_needs_a_browser(tmp_path):
    out = subprocess.run([WHITEBOARD, "extension", "pack", "--out", "x.zip"], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert out.returncode == 2 and "--browser" in out.stderr and not (tmp_path / "x.zip").exists()


def small_extension(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"manifest_version": 3, "version": "1.2.3"}))
    (folder / "popup.js").write_text("// popup\n")
    return folder


def test_pack_never_follows_a_link_planted_at_a_temporary_name(tmp_path):
    """Issue 28 item 5: the zip went through the fixed name .<out>.tmp, and a link planted
    there had its target overwritten."""
    folder = small_extension(tmp_path / "ext")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out" / "w.zip"
    out.parent.mkdir()
    (out.parent / f".{out.name}.tmp").symlink_to(victim)
    pack(out, "chrome", folder)
    assert victim.read_text() == "precious"
    with zipfile.ZipFile(out) as zf:
        assert sorted(zf.namelist()) == ["manifest.json", "popup.js"]
    assert [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()] == []


def test_pack_refuses_links_inside_the_extension(tmp_path):
    """A link inside extension/ was packed with its target's bytes (any file the user can read)."""
    folder = small_extension(tmp_path / "ext")
    secret = tmp_path / "secret.key"
    secret.write_text("KEY-MATERIAL")
    (folder / "icon.png").symlink_to(secret)
    (folder / "lib").symlink_to(tmp_path, target_is_directory=True)
    out = tmp_path / "w.zip"
    with pytest.raises(ValueError, match="symbolic links") as refused:
        pack(out, "chrome", folder)
    assert "icon.png" in str(refused.value) and "lib" in str(refused.value)
    assert not out.exists() and not list(tmp_path.glob(".w.zip.*"))
