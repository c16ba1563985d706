"""Per-site settings: off by default, persisted atomically, bad files reported."""

import os
import stat

import pytest

from whiteboard.protocol.errors import BadRequest, Unavailable
from whiteboard.sites import SiteStore, site_of_key


def test_default_off_and_persisted(tmp_path):
    store = SiteStore(tmp_path)
    assert not store.get("claude.ai").long_term and not (tmp_path / "sites.json").exists()
    store.update("Claude.AI.", long_term=True)
    store.update("claude.ai", paused=True)
    again = SiteStore(tmp_path).get("claude.ai")
    assert (again.long_term, again.paused, again.memory_on) == (True, True, False)
    assert stat.S_IMODE(os.stat(tmp_path / "sites.json").st_mode) == 0o600
    assert [s.site for s in store.all()] == ["claude.ai"]
    assert [p.name for p in tmp_path.iterdir()] == ["sites.json"]  # no temp file left behind


def test_bad_names_and_files(tmp_path):
    store = SiteStore(tmp_path)
    for bad in ("", "a b", "https://claude.ai", "claude.ai/x", "-x.com"):
        with pytest.raises(BadRequest):
            store.get(bad)
    assert site_of_key("chatgpt.com:412") == "chatgpt.com"
    (tmp_path / "sites.json").write_text("{broken")
    with pytest.raises(Unavailable) as err:
        store.get("claude.ai")
    assert "sites.json" in err.value.message
