"""`whiteboard extension path | pack` from this (editable) install: the checkout's extension/
is the folder, and the store zip is every file of it with a manifest that has no `key`."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

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
