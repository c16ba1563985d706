"""The API key never shows up in plaintext anywhere, over real pipes to the real host process:
replies, events, stderr, or any file under the host's HOME/XDG/TMP dirs."""

import base64

from support.fake_openai import fail
from support.host import HostProcess, files_under, isolated_env

API_KEY = "sk-proj-NEVER-LEAK-0123456789abcdefghijklmnopqrstuv"


def test_the_api_key_never_appears_in_plaintext(tmp_path, fake_openai):
    root = tmp_path / "env"
    env = isolated_env(root, WHITEBOARD_LOG_LEVEL="DEBUG")
    fake_openai.require_api_key = API_KEY
    seen = []
    with HostProcess(env=env) as host:
        seen.append(host.request("llm.settings.set", base_url=fake_openai.base_url, model="fake-model",
                                 api_key=API_KEY))
        seen.append(host.request("llm.test"))
        seen.append(host.request("session.add", key="claude.ai:3", role="user", content="We chose Postgres."))
        host.send({"id": "ask", "type": "ask.start", "key": "claude.ai:3", "question": "Why?"})
        while True:
            msg = host.recv()
            seen.append(msg)
            if msg.get("id") == "ask":
                break
        seen.append(host.request("handoff.summary", key="claude.ai:3"))
        fake_openai.script(fail(401), fail(500, times=3))
        seen.append(host.request("llm.test"))  # refused: the error must not echo the key
        seen.append(host.request("llm.test"))
        seen.append(host.request("llm.settings.set", base_url="https://u:p@example.org/v1"))
    assert seen[1]["ok"] and seen[-4]["ok"] and seen[-3]["error"]["code"] == "unavailable"
    assert all(API_KEY not in str(m) for m in seen)
    assert API_KEY not in host.stderr_text
    needle = API_KEY.encode()
    files = list(files_under(root))
    assert any(p.name == "llm.json" for p in files)
    for path in files:
        data = path.read_bytes()
        assert needle not in data and base64.b64encode(needle) not in data, f"{path} holds the API key"
    # On the wire to the model: only in the Authorization header.
    for req in fake_openai.requests:
        assert needle not in req.body and API_KEY not in req.path
        assert [k for k, v in req.headers.items() if API_KEY in v] == ["authorization"]
