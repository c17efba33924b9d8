"""`skillproxy serve --workers 2`, a real subprocess in front of the fake upstream.

Many three-turn conversations run at once, each request on a new connection, so the two
workers share them out. Whichever worker answers, the prompt forwarded for turn N+1
extends turn N's (plus the answer) message for message, byte for byte, and the routes are
those of one process:
- with the in-memory default, because a worker that lacks a record recomputes it, and the
  computation depends only on the conversation (the log shows it happened);
- with `state: redis://...`, because the workers share the records (nothing is recomputed).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from .redis_server import free_port
from .test_skill_tool_loop import SQL, assert_extends

REPO = Path(__file__).resolve().parents[2]
CONVERSATIONS = 12
TURNS = (SQL, "and the same query is still slow with the index, EXPLAIN shows a seq scan again",
         "write a conventional commit message for adding that index")
ROUTES = ["sql-query-tuning", "reminder", "conventional-commits"]


class ServedWorkers:
    def __init__(self, upstream_url: str, log_path: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        command = [sys.executable, "-m", "proxy", "serve", "--workers", "2", "--host", "127.0.0.1",
                   "--port", str(self.port), "--upstream", upstream_url, "--root", str(REPO / "skills"),
                   "--log-format", "json", "--log-events"]  # the tests read the step events
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SKILLPROXY_")}
        full_env = {**clean, "PYTHONPATH": str(REPO), **env}
        self.log = log_path.open("w")
        self.banner = log_path.with_suffix(".err")
        self.process = subprocess.Popen(command, cwd=REPO, env=full_env, stdout=self.log,
                                        stderr=self.banner.open("w"))

    def wait_until_serving(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"serve exited: {self.banner.read_text()}"
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200 and self.started_workers() >= 2:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"--workers 2 did not start: {self.banner.read_text()}")

    def started_workers(self) -> int:
        return self.log_path.read_text().count("Application startup complete")

    def events(self, name: str) -> list[dict]:
        lines = [line for line in self.log_path.read_text().splitlines() if line.startswith("{")]
        return [e for e in map(json.loads, lines) if e.get("event") == name]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self.log.close()


@pytest.fixture
def serve_workers(upstream, tmp_path):
    started: list[ServedWorkers] = []

    def start(**env: str) -> ServedWorkers:
        started.append(ServedWorkers(upstream.url + "/v1", tmp_path / f"serve{len(started)}.log", env))
        started[-1].wait_until_serving()
        return started[-1]

    yield start
    for served in started:
        served.stop()


def conversation(url: str, number: int) -> list[tuple[str, str]]:
    """Three turns, each on a new connection; (route header, marker of the turn) per turn."""
    messages: list[dict] = [{"role": "system", "content": f"you help with databases (conversation {number})"}]
    seen = []
    for turn, text in enumerate(TURNS):
        marker = f"[c{number}t{turn}]"
        messages.append({"role": "user", "content": f"{text} {marker}"})
        response = httpx.post(url + "/v1/chat/completions", json={"model": "json", "messages": messages},
                              timeout=30)
        assert response.status_code == 200, response.text
        seen.append((response.headers["x-skills-route"].split("=")[0], marker))
        messages.append(response.json()["choices"][0]["message"])
    return seen


def run_conversations(served: ServedWorkers, upstream) -> dict[int, list[str]]:
    upstream.clear()
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda n: conversation(served.url, n), range(CONVERSATIONS)))
    forwarded = {}
    for recorded in upstream.received:
        messages = recorded.json["messages"]
        forwarded[_marker(messages[-1])] = (messages, recorded)
    for number, turns in enumerate(results):
        assert [route for route, _ in turns] == ROUTES, f"conversation {number}"
        prompts = [forwarded[marker][0] for _, marker in turns]
        for turn in (1, 2):
            answer = prompts[turn][len(prompts[turn - 1])]
            assert answer["role"] == "assistant"
            assert_extends(prompts[turn], prompts[turn - 1], f"conversation {number}, turn {turn + 1}")
    return {n: [route for route, _ in turns] for n, turns in enumerate(results)}


def _marker(message: dict) -> str:
    content = message["content"]
    return content[content.rindex("[c"):]


def test_two_workers_with_memory_state_keep_every_conversation_prefix_stable(serve_workers, upstream):
    served = serve_workers()
    run_conversations(served, upstream)
    assert "workers:  2 processes" in served.banner.read_text()
    recomputed = served.events("replay_recomputed")
    assert recomputed, "some turns reached the worker that had not seen the conversation, and recomputed it"
    assert {e["mode"] for e in recomputed} <= {"routed", "reminder"}


def test_two_workers_sharing_redis_replay_every_turn_from_it(serve_workers, upstream, redis_server):
    served = serve_workers(SKILLPROXY_STATE=redis_server.url)
    run_conversations(served, upstream)
    assert f"state:    {redis_server.url} (shared by every worker and replica)" in served.banner.read_text()
    assert served.events("replay_recomputed") == [], "every earlier turn came from Redis"
    # a record per turn, and per turn an answer followed, that exchange's skills (tests/core/turns/test_compaction.py)
    assert len(redis_server.turn_keys()) == CONVERSATIONS * (2 * len(TURNS) - 1)
    assert served.events("state_unavailable") == []
