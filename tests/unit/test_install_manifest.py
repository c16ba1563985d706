"""Manifest content, validation, extension ids, and the manifests/ templates matching the code."""

import json
from pathlib import Path

import pytest

from whiteboard.config import EXTENSION_ID
from whiteboard.install.launcher import launcher_env
from whiteboard.install.manifest import (
    ManifestError,
    build_manifest,
    field_problems,
    origin_for,
    read_manifest,
    render,
    validate_extension_id,
    write_manifest,
)
from whiteboard.server.origin import is_firefox_caller

REPO = Path(__file__).resolve().parents[2]
ORIGIN = f"chrome-extension://{EXTENSION_ID}/"
LAUNCHER = Path("/opt/wb/bin/whiteboard-host")


def test_manifest_has_exactly_the_fields_chrome_reads():
    m = build_manifest(LAUNCHER, [ORIGIN])
    assert m == {
        "name": "com.whiteboard.host",
        "description": m["description"],
        "path": "/opt/wb/bin/whiteboard-host",
        "type": "stdio",
        "allowed_origins": ["chrome-extension://bahaoeoalppkecdpddkhegpgkngpniel/"],
    }
    assert m["description"] and field_problems(m) == []


def test_relative_host_path_is_refused():
    with pytest.raises(ValueError, match="not absolute"):
        build_manifest(Path("bin/whiteboard-host"), [ORIGIN])


@pytest.mark.parametrize("origins", [[], ["chrome-extension://*/"], ["https://chatgpt.com/"],
                                     ["chrome-extension://bahaoeoalppkecdpddkhegpgkngpniel"]])
def test_bad_origins_are_refused(origins):
    with pytest.raises(ValueError, match="allowed origins"):
        build_manifest(LAUNCHER, origins)


@pytest.mark.parametrize("bad", ["", "abc", "bahaoeoalppkecdpddkhegpgkngpnie", "bahaoeoalppkecdpddkhegpgkngpnielq",
                                 "BAHAOEOALPPKECDPDDKHEGPGKNGPNIEL", "bahaoeoalppkecdpddkhegpgkngpnizl",
                                 "bahaoeoalppkecdpddkhegpgkngpn el"])
def test_extension_id_must_be_32_letters_a_to_p(bad):
    with pytest.raises(ValueError, match="32 letters a-p"):
        validate_extension_id(bad)


def test_extension_id_accepted_and_origin_formed():
    assert validate_extension_id(EXTENSION_ID) == EXTENSION_ID
    assert origin_for("a" * 32) == f"chrome-extension://{'a' * 32}/"


def test_field_problems_name_each_fault():
    good = build_manifest(LAUNCHER, [ORIGIN])
    assert "missing \"path\"" in field_problems({k: v for k, v in good.items() if k != "path"})
    assert any("must be \"stdio\"" in p for p in field_problems({**good, "type": "socket"}))
    assert any("com.whiteboard.host" in p for p in field_problems({**good, "name": "com.other"}))
    assert any("no wildcards" in p for p in field_problems({**good, "allowed_origins": ["chrome-extension://*/"]}))
    assert any("list of strings" in p for p in field_problems({**good, "allowed_origins": "x"}))


def test_write_then_read_round_trips_and_is_idempotent(tmp_path):
    path = tmp_path / "deep" / "com.whiteboard.host.json"
    m = build_manifest(LAUNCHER, [ORIGIN])
    assert write_manifest(path, m) == "created"
    assert write_manifest(path, m) == "unchanged"
    assert read_manifest(path) == m
    assert write_manifest(path, build_manifest(LAUNCHER, [origin_for("a" * 32)])) == "updated"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


@pytest.mark.parametrize("content, message", [("{not json", "not valid JSON"), ("[1, 2]", "not an object"),
                                              (b"\xff\xfe", "cannot read")])
def test_read_manifest_says_what_is_wrong(tmp_path, content, message):
    path = tmp_path / "m.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ManifestError, match=message):
        read_manifest(path)
    with pytest.raises(ManifestError, match="no manifest"):
        read_manifest(tmp_path / "absent.json")


def _render_template(name: str, **values: str) -> dict:
    text = (REPO / "manifests" / name / "com.whiteboard.host.json").read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", json.dumps(value)[1:-1])
    assert "@" not in text.replace("@example", ""), "a placeholder was left unrendered"
    return json.loads(text)


def test_chrome_template_renders_to_exactly_what_the_code_writes():
    launcher = Path('/home/a "quoted" user/bin/whiteboard-host')
    rendered = _render_template("chrome", HOST_PATH=str(launcher), EXTENSION_ID=EXTENSION_ID)
    assert rendered == build_manifest(launcher, [ORIGIN])
    assert json.loads(render(build_manifest(launcher, [ORIGIN]))) == rendered


def test_firefox_template_renders_to_exactly_what_the_code_writes():
    firefox = _render_template("firefox", HOST_PATH=str(LAUNCHER), ADDON_ID="whiteboard@example.org")
    assert firefox == build_manifest(LAUNCHER, [ORIGIN, "whiteboard@example.org"], firefox=True)
    assert field_problems(firefox, firefox=True) == [] and field_problems(firefox) == ['missing "allowed_origins"']


@pytest.mark.parametrize("ids", [["whiteboard@example.org"], [ORIGIN, "{8a3c2d1e-0b4f-4c2a-9e7d-1f2a3b4c5d6e}"]])
def test_each_kind_of_manifest_takes_only_its_own_callers(ids):
    firefox = [i for i in ids if not i.startswith("chrome-extension://")]
    assert build_manifest(LAUNCHER, ids, firefox=True)["allowed_extensions"] == firefox
    if ORIGIN in ids:
        assert build_manifest(LAUNCHER, ids)["allowed_origins"] == [ORIGIN]
    else:
        with pytest.raises(ValueError, match="no chrome-extension"):
            build_manifest(LAUNCHER, ids)


@pytest.mark.parametrize("bad", ["whiteboard", "a@b@c", "white board@example.org", "{not-a-guid}", "x" * 90 + "@y"])
def test_a_malformed_firefox_add_on_id_is_refused(bad):
    with pytest.raises(ValueError, match="name@domain"):
        validate_extension_id(bad)


@pytest.mark.parametrize("caller", ["evil@x.com\n", "a" * 32 + "\n", "chrome-extension://" + "a" * 32 + "/\n",
                                    "{01234567-89ab-cdef-0123-456789abcdef}\n"])
def test_an_id_is_matched_whole_not_before_a_final_newline(caller):
    """Issue 28: `$` matched before a final newline, so --extension-id $'evil@x.com\\n' was taken."""
    with pytest.raises(ValueError):
        validate_extension_id(caller)
    assert not is_firefox_caller(caller)
    with pytest.raises(ValueError):
        build_manifest(Path("/opt/wb/host"), [caller], firefox=caller.startswith(("evil", "{")))
    with pytest.raises(ValueError):
        launcher_env([], {"WHITEBOARD_X\n": "1"})
