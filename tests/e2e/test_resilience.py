"""A send is never lost or delayed much (design §8): the host killed mid-session, the
host too slow, and the port coming back afterwards. Real processes, real signals."""

import signal
import time

from e2e.harness import (
    capture_selection,
    kill_host,
    open_chat,
    sent,
    service_worker,
    session_key,
    the_host,
    type_draft,
    wait_connected,
    wait_for,
)

PAGE = "acb__chatgpt_2026-04-13"
ANSWER = "[data-message-author-role=assistant] .markdown p"



def test_host_killed_mid_session_the_send_goes_unchanged_and_the_port_comes_back(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, ANSWER, key)
    old_pid = kill_host(browser.root)

    type_draft(page, "chatgpt", "Sent while the host is down")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 1, timeout=3, what="the send")
    assert sent(page)[0]["text"] == "Sent while the host is down"

    wait_connected(browser.context)
    new_host = wait_for(lambda: the_host(browser.root), what="a new host process")
    assert new_host.pid != old_pid
    # The new port works end to end: a new selection goes with the next send.
    capture_selection(browser, page, ANSWER, key)
    type_draft(page, "chatgpt", "After the restart")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 2, what="the second send")
    assert sent(page)[1]["text"].startswith("After the restart\n") and "[Whiteboard selection" in sent(page)[1]["text"]


def test_host_slower_than_the_limit_the_send_goes_unchanged_after_it(browser, page):
    open_chat(page, "chatgpt", PAGE, reply="none")
    key = session_key(browser.context, page)
    capture_selection(browser, page, ANSWER, key)
    host = the_host(browser.root)
    host.send_signal(signal.SIGSTOP)
    try:
        type_draft(page, "chatgpt", "Sent while the host is stuck")
        started = time.monotonic()
        page.keyboard.press("Enter")
        wait_for(lambda: len(sent(page)) == 1, timeout=4, what="the send")
        waited = time.monotonic() - started
        assert sent(page)[0]["text"] == "Sent while the host is stuck"
        assert 0.9 <= waited <= 2.0, f"the send waited {waited:.2f}s; the limit is about 1 s"
    finally:
        host.send_signal(signal.SIGCONT)
    # The late reply is dropped and used nothing up: the selection the stuck send could not
    # carry goes with the next one, on the same port.
    type_draft(page, "chatgpt", "Host back")
    page.keyboard.press("Enter")
    wait_for(lambda: len(sent(page)) == 2, what="the second send")
    assert "[Whiteboard selection · 1 passage]" in sent(page)[1]["text"]
    assert the_host(browser.root).pid == host.pid
    assert service_worker(browser.context).evaluate("() => globalThis.Whiteboard.worker.status().state") == "connected"
