"""Model-layer benchmarks over real pipes against the loopback OpenAI-compatible test server
(issue 4). Run: python tests/bench/run.py llm. The server answers at once,
so the figures are the host's own overhead, not a model's speed.

- ask.start -> first ask.delta, and -> reply (short answer, 40-message tab): p50 / p99
- streamed deltas per second through the host (one 5000-chunk answer)
- ask.cancel -> ask.start's reply while the model is silent: p50 / max
- session.context round trip while a slow model summary is being made: p50 / p99
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from support.fake_openai import FakeOpenAI, hang, reply
from support.host import HostProcess, isolated_env

KEY = "chatgpt.com:1"


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def host_for(fake: FakeOpenAI, root: str, **extra) -> HostProcess:
    return HostProcess(env=isolated_env(Path(root), WHITEBOARD_LLM_BASE_URL=fake.base_url,
                                        WHITEBOARD_LLM_MODEL="bench", **extra))


def fill(host: HostProcess, n: int) -> None:
    for i in range(n):
        host.request("session.add", key=KEY, role="user" if i % 2 == 0 else "assistant",
                     content=f"Message {i}: we decided to use plan {i} with a budget of {i * 10} dollars. " * 3)


def bench_first_delta(fake: FakeOpenAI, root: str, rounds: int = 100) -> dict:
    fake.chat_answer = "A short answer of a few words."
    first, total = [], []
    with host_for(fake, root) as host:
        fill(host, 40)
        for i in range(rounds):
            t = time.perf_counter()
            host.send({"id": i, "type": "ask.start", "key": KEY, "question": "What was decided?"})
            msg = host.recv()
            first.append((time.perf_counter() - t) * 1000)
            while msg.get("id") != i:
                msg = host.recv()
            total.append((time.perf_counter() - t) * 1000)
            host.request("session.clear", key=KEY)
            fill(host, 40)
    return {"first_p50": statistics.median(first), "first_p99": percentile(first, 99),
            "reply_p50": statistics.median(total), "reply_p99": percentile(total, 99)}


def bench_delta_rate(fake: FakeOpenAI, root: str, chunks: int = 5000) -> float:
    fake.script(reply(chunks=[f"w{i} " for i in range(chunks)]))
    with host_for(fake, root) as host:
        t = time.perf_counter()
        host.send({"id": "big", "type": "ask.start", "key": KEY, "question": "Go."})
        n = 0
        while True:
            msg = host.recv()
            if msg.get("id") == "big":
                break
            n += 1
        assert n == chunks and msg["ok"]
        return n / (time.perf_counter() - t)


def bench_cancel(fake: FakeOpenAI, root: str, rounds: int = 15) -> dict:
    times = []
    with host_for(fake, root) as host:
        for i in range(rounds):
            fake.script(hang(30))
            host.send({"id": i, "type": "ask.start", "key": KEY, "question": "Hello?"})
            time.sleep(0.2)
            t = time.perf_counter()
            host.send({"id": f"c{i}", "type": "ask.cancel", "ref": i})
            got = set()
            while i not in got:
                got.add(host.recv()["id"])
            times.append((time.perf_counter() - t) * 1000)
    return {"p50": statistics.median(times), "max": max(times)}


def bench_context_during_model_summary(fake: FakeOpenAI, root: str, rounds: int = 500) -> dict:
    fake.script(reply("- a model summary", first_delay=5))
    times = []
    with host_for(fake, root, WHITEBOARD_MAX_MESSAGES="10") as host:
        fill(host, 30)
        assert host.request("session.summary", key=KEY)["refining"]
        for _ in range(rounds):
            t = time.perf_counter()
            host.request("session.context", key=KEY, budget=2000)
            times.append((time.perf_counter() - t) * 1000)
        assert host.request("session.summary", key=KEY)["refining"]  # still waiting on the model
    return {"p50": statistics.median(times), "p99": percentile(times, 99)}


def main() -> None:
    with FakeOpenAI() as fake, tempfile.TemporaryDirectory() as root:
        first = bench_first_delta(fake, root)
        rate = bench_delta_rate(fake, root)
        cancel = bench_cancel(fake, root)
        ctx = bench_context_during_model_summary(fake, root)
    rows = [
        ("ask.start -> first ask.delta, 40-message tab, p50 / p99",
         f"{first['first_p50']:.1f} / {first['first_p99']:.1f} ms"),
        ("ask.start -> reply (7 deltas), p50 / p99", f"{first['reply_p50']:.1f} / {first['reply_p99']:.1f} ms"),
        ("streamed deltas through the host", f"{rate:,.0f} per s"),
        ("ask.cancel -> reply while the model is silent, p50 / max", f"{cancel['p50']:.1f} / {cancel['max']:.1f} ms"),
        ("session.context while a 5 s model summary runs, p50 / p99", f"{ctx['p50']:.2f} / {ctx['p99']:.2f} ms"),
    ]
    print("| measure | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
