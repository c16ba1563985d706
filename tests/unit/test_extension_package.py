"""`whiteboard extension path | pack` from this (editable) install: the checkout's extension/
is the folder, and the store zip is every file of it with a manifest that has no `key`."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from whiteboard.install.extension import extension_dir, pack_chrome

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
    first = pack_chrome(tmp_path / "a.zip", folder)
    with zipfile.ZipFile(first) as zf:
        assert sorted(zf.namelist()) == ["manifest.json", "popup/popup.js"]
        assert json.loads(zf.read("manifest.json")) == {"manifest_version": 3, "version": "1.2.3"}
    assert pack_chrome(tmp_path / "b.zip", folder).read_bytes() == first.read_bytes()
    assert "key" in json.loads((folder / "manifest.json").read_text())  # the source is left alone
