"""Suggestions over real pipes: memory.settings' suggest_below, memory.extract's `suggested`,
memory.suggestions / memory.accept / memory.discard, and a waiting suggestion never sent."""

from support.host import HostProcess, isolated_env, ok
from whiteboard.memory.meaning.embedder import local_embedder

KEY = "claude.ai:4"


def test_suggestions_wait_for_the_user_and_are_never_sent(tmp_path):
    with HostProcess(env=isolated_env(tmp_path)) as host:
        assert ok(host.request("memory.settings"))["suggest_below"] == 0.7
        assert host.request("memory.settings", suggest_below=0.3)["error"]["code"] == "bad_request"
        assert ok(host.request("memory.settings", suggest_below=1.0))["suggest_below"] == 1.0  # everything waits
        ok(host.request("site.settings", site="claude.ai", long_term=True))
        ok(host.request("session.add", key=KEY, role="user", content="I live in Lisbon. I prefer short answers."))
        got = ok(host.request("memory.extract", key=KEY, manual=True))
        assert got["method"] == ("rules" if local_embedder() is None else "classifier")
        assert (got["added"], got["memories"]) == (0, [])
        assert {s["text"] for s in got["suggested"]} == {"Lives in Lisbon", "Prefers short answers"}
        waiting = ok(host.request("memory.suggestions"))
        assert waiting["damaged"] == [] and {s["suggestion_id"] for s in waiting["suggestions"]} == \
            {s["suggestion_id"] for s in got["suggested"]}
        assert all(0.5 <= s["confidence"] < 1 and s["site"] == "claude.ai" for s in waiting["suggestions"])
        by_text = {s["text"]: s["suggestion_id"] for s in waiting["suggestions"]}
        assert ok(host.request("memory.status"))["suggestions"] == 2  # what the popup counts

        # Waiting suggestions are no memories: not listed, not recalled, not sent.
        assert ok(host.request("memory.list"))["total"] == 0
        assert ok(host.request("memory.recall", query="Where do I live, Lisbon?"))["memories"] == []
        send = ok(host.request("chat.prepare_send", key=KEY, site="claude", draft="Any tips for living in Lisbon?"))
        assert send["injected"] is False and "Lisbon" not in send["text"].replace("Any tips for living in Lisbon?", "")

        too_long = host.request("memory.accept", suggestion_id=by_text["Lives in Lisbon"], text="x" * 1001)
        assert too_long["error"]["code"] == "bad_request"
        accepted = ok(host.request("memory.accept", suggestion_id=by_text["Lives in Lisbon"],
                                   text="Lives in Lisbon, Portugal"))["memory"]
        assert (accepted["text"], accepted["confidence"], accepted["site"]) == ("Lives in Lisbon, Portugal", 1.0,
                                                                                 "claude.ai")
        assert ok(host.request("memory.discard", suggestion_id=by_text["Prefers short answers"]))["discarded"] is True
        assert ok(host.request("memory.suggestions"))["suggestions"] == []
        assert ok(host.request("memory.status"))["suggestions"] == 0  # a discarded one no longer counts
        assert [m["text"] for m in ok(host.request("memory.list"))["memories"]] == ["Lives in Lisbon, Portugal"]
        send = ok(host.request("chat.prepare_send", key=KEY, site="claude", draft="Any tips for living in Lisbon?"))
        assert send["injected"] is True and "Lives in Lisbon, Portugal" in send["text"]

        # Neither comes back: the accepted one is a memory, the discarded one is remembered as discarded.
        again = ok(host.request("memory.extract", key=KEY, manual=True))
        assert again["suggested"] == [] and again["added"] == 0
        for request in ("memory.accept", "memory.discard"):
            assert host.request(request, suggestion_id=by_text["Prefers short answers"])["error"]["code"] == \
                "not_found"
            assert host.request(request, suggestion_id="mem_0123")["error"]["code"] == "bad_request"
