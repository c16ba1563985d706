"""The extraction window: runs after 30 s without a new message (design §5)."""

import threading
import time

import pytest

from support.waiting import wait_for
from whiteboard.config import Limits
from whiteboard.memory.extract.conversation import ConversationExtractor
from whiteboard.memory.extract.schedule import DEFAULT_DELAY, ExtractionScheduler, delay_from_env
from whiteboard.memory.service import MemoryService
from whiteboard.sessions.store import SessionStore
from whiteboard.sites import SiteStore


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_default_window_is_30_seconds_of_quiet_per_conversation():
    clock, ran = FakeClock(), []
    scheduler = ExtractionScheduler(ran.append, clock=clock, worker=False)
    assert scheduler.delay == DEFAULT_DELAY == 30.0
    scheduler.note("a:1")
    clock.now += 15
    scheduler.note("b:2")
    clock.now += 5
    scheduler.note("a:1")  # a new message restarts the timer
    clock.now += 24.9
    assert scheduler.pending() == {"a:1": pytest.approx(5.1), "b:2": pytest.approx(0.1)}
    assert scheduler.run_pending() == [] and ran == []
    clock.now += 0.1  # b:2 has been quiet for 30 s
    assert scheduler.run_pending() == ["b:2"]
    clock.now += 5.0  # a:1 too, counted from its second message
    assert scheduler.run_pending() == ["a:1"]
    clock.now += 300
    assert scheduler.run_pending() == [] and ran == ["b:2", "a:1"]


def test_conversation_extracted_30_seconds_after_its_last_message(tmp_path, monkeypatch):
    monkeypatch.delenv("WHITEBOARD_MEMORY_EXTRACT_DELAY", raising=False)
    service = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                            sites=SiteStore(tmp_path / "config"))
    service.sites.update("claude.ai", long_term=True)
    clock, sessions = FakeClock(), SessionStore(Limits())
    extractor = ConversationExtractor(service, sessions, clock=clock, worker=False)
    sessions.add("claude.ai:1", "user", "I live in Berlin.")
    extractor.note_message("claude.ai:1", "claude.ai")
    clock.now += 29.9
    assert extractor.scheduler.run_pending() == [] and service.list() == []
    clock.now += 0.1
    assert extractor.scheduler.run_pending() == ["claude.ai:1"]
    assert [m.text for m in service.list()] == ["Lives in Berlin"]


def test_delay_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("WHITEBOARD_MEMORY_EXTRACT_DELAY", raising=False)
    assert delay_from_env() == 30.0
    monkeypatch.setenv("WHITEBOARD_MEMORY_EXTRACT_DELAY", "0.5")
    assert delay_from_env() == 0.5
    monkeypatch.setenv("WHITEBOARD_MEMORY_EXTRACT_DELAY", "soon")
    assert delay_from_env() == 30.0


@pytest.fixture
def setup(tmp_path):
    service = MemoryService(tmp_path / "data" / "memories.db", tmp_path / "config" / "secret.key",
                            sites=SiteStore(tmp_path / "config"))
    service.sites.update("claude.ai", long_term=True)
    sessions = SessionStore(Limits())
    stop = threading.Event()
    extractor = ConversationExtractor(service, sessions, delay=0.4, stop=stop)
    yield service, sessions, extractor
    stop.set()
    extractor.scheduler.stop()
    service.close()


def test_short_window_with_the_real_thread(setup):
    service, sessions, extractor = setup
    sessions.add("claude.ai:1", "user", "I live in Berlin.")
    extractor.note_message("claude.ai:1", "claude.ai")
    time.sleep(0.25)
    sessions.add("claude.ai:1", "user", "I speak French.")
    extractor.note_message("claude.ai:1", "claude.ai")
    last = time.monotonic()
    time.sleep(0.25)  # 0.5 s after the first message, 0.25 s after the second: not yet
    assert service.list() == []
    assert wait_for(lambda: len(service.list()) == 2)
    assert time.monotonic() - last >= 0.4
    assert {m.text for m in service.list()} == {"Lives in Berlin", "Speaks French"}


def test_no_timer_on_a_site_without_long_term_memory(setup):
    service, sessions, extractor = setup
    sessions.add("chatgpt.com:1", "user", "I live in Berlin.")
    extractor.note_message("chatgpt.com:1", "chatgpt.com")
    assert extractor.scheduler.pending() == {}
    time.sleep(0.6)
    assert service.list() == []
