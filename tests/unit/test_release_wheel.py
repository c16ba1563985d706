"""The release path, as a user without a checkout meets it: build the sdist and the wheel
(the wheel from the sdist, as `python -m build` does), install the wheel alone into a new
virtualenv, `whiteboard install` into a throwaway HOME, `whiteboard doctor` pings the host
through the registered launcher, the extension packs, and the wheel holds nothing but the
package, its extension and its licences."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from support.host import isolated_env

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "extension"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
# Nothing of these may ship: tests, benchmarks and their data, tools, dotfiles, caches.
FORBIDDEN = ("tests/", "bench", "node_modules", "/tools/", "__pycache__", ".pyc", "/.", "conftest")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name == "nt", reason="POSIX venv layout")]


def run(cmd, env=None, cwd=None, timeout=600):
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, cwd=cwd,
                            timeout=timeout)
    assert result.returncode == 0, f"{cmd} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def extension_files() -> set[str]:
    return {p.relative_to(EXTENSION).as_posix() for p in EXTENSION.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(EXTENSION).parts)}


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    # Built from a copy of the tree (as it is, uncommitted edits too): the build's egg-info
    # must not land in host/, where the editable install would find a second distribution.
    source = tmp_path_factory.mktemp("source") / "whiteboard"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache", ".hypothesis"))
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", out, source], cwd=out)
    return out


def test_the_wheel_holds_the_package_its_extension_and_licences_only(dist, capsys):
    [wheel] = dist.glob(f"whiteboard-{VERSION}-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    info = f"whiteboard-{VERSION}.dist-info/"
    assert all(n.startswith(("whiteboard/", info)) for n in names), sorted(names)
    assert [n for n in names if any(bad in "/" + n for bad in FORBIDDEN)] == []
    shipped = {n.removeprefix("whiteboard/extension/") for n in names if n.startswith("whiteboard/extension/")}
    assert shipped == extension_files()
    assert {f"{info}licenses/LICENSE", f"{info}licenses/THIRD_PARTY_NOTICES.md"} <= set(names)
    with capsys.disabled():
        print(f"\n{wheel.name}: {wheel.stat().st_size / 1024:.0f} KiB, {len(names)} files")

    [sdist] = dist.glob(f"whiteboard-{VERSION}.tar.gz")
    members = [m.removeprefix(f"whiteboard-{VERSION}/") for m in tarfile.open(sdist).getnames()]
    assert "extension/manifest.json" in members and "LICENSE" in members
    assert [m for m in members if m.startswith(("tests", "tools", ".")) or "node_modules" in m] == []


def test_from_the_wheel_alone_it_installs_registers_answers_doctor_and_packs(dist, tmp_path):
    [wheel] = dist.glob("*.whl")
    env = isolated_env(tmp_path / "env", PYTHONIOENCODING="utf-8")
    # pip's own cache stays the user's, so the dependencies are not fetched again.
    pip_env = {**env, "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")}
    venv.create(tmp_path / "venv", with_pip=True)
    bin_dir = tmp_path / "venv" / "bin"
    run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel],
        env=pip_env, cwd=tmp_path)
    whiteboard = bin_dir / "whiteboard"
    assert run([bin_dir / "python", "-c", "import whiteboard; print(whiteboard.__file__)"], env=env,
               cwd=tmp_path).startswith(str(tmp_path / "venv"))
    assert run([whiteboard, "--version"], env=env).strip() == f"whiteboard, version {VERSION}"

    installed = run([whiteboard, "install", "--browser", "chromium"], env=env, cwd=tmp_path)
    folder = Path(run([whiteboard, "extension", "path"], env=env, cwd=tmp_path).strip())
    assert folder.is_relative_to(tmp_path / "venv") and (folder / "manifest.json").is_file()
    assert f"choose: {folder}" in installed
    manifest = Path(env["XDG_CONFIG_HOME"], "chromium", "NativeMessagingHosts", "com.whiteboard.host.json")
    launcher = Path(json.loads(manifest.read_text())["path"])
    assert f"exec {bin_dir / 'python'} -P -m whiteboard.server.main" in launcher.read_text()

    doctor = subprocess.run([whiteboard, "doctor", "--browser", "chromium"], capture_output=True, text=True,
                            env={**env, "PATH": "/usr/bin:/bin"}, cwd=tmp_path, timeout=120)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "host answers ping through that path" in doctor.stdout and f"version {VERSION}" in doctor.stdout

    packed = tmp_path / "store.zip"
    run([whiteboard, "extension", "pack", "--browser", "chrome", "--out", packed], env=env, cwd=tmp_path)
    with zipfile.ZipFile(packed) as zf:
        assert set(zf.namelist()) == extension_files()
        store_manifest = json.loads(zf.read("manifest.json"))
    checkout_manifest = json.loads((EXTENSION / "manifest.json").read_text())
    assert "key" not in store_manifest and "key" in checkout_manifest
    assert store_manifest == {k: v for k, v in checkout_manifest.items()
                              if k not in ("key", "browser_specific_settings", "background")} | \
        {"background": {k: v for k, v in checkout_manifest["background"].items() if k != "scripts"}}
    assert store_manifest["version"] == VERSION

    shutil.rmtree(tmp_path / "venv")  # a few hundred MB: not left for the rest of the run
