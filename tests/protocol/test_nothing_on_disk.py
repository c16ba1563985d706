"""Session content lives in RAM only (design §4, §14): after a busy session the host has
written no file that holds message text, anywhere under HOME, the XDG dirs or TMPDIR."""


from support.host import HostProcess, files_under, isolated_env

MARKERS = ["ZEBRA-MARKER-3141", "quokka-secret-plan", "日本語マーカー"]


def test_no_file_holds_message_text(tmp_path):
    env = isolated_env(tmp_path)
    with HostProcess(env=env) as host:
        for i in range(60):
            text = f"{MARKERS[i % 3]} turn {i}: " + "detail " * 40
            assert host.request("session.add", key=f"chatgpt.com:{i % 4}", role="user", content=text)["ok"]
        for i in range(4):
            assert host.request("session.context", key=f"chatgpt.com:{i}", budget=500)["ok"]
            assert host.request("session.get", key=f"chatgpt.com:{i}")["ok"]
        # A failing request must not leak content into a log either.
        host.send({"id": "x", "type": "session.add", "key": "chatgpt.com:1", "role": "nobody",
                   "content": MARKERS[0]})
        host.recv()
    assert MARKERS[0] not in host.stderr_text
    for path in files_under(tmp_path):
        data = path.read_bytes()
        for marker in MARKERS:
            assert marker.encode() not in data, f"{path} holds message text"
