"""The real skill engine behind the real proxy, driven by the openai SDK.

Uses the project's own skills/ folder. Asserts on what the fake upstream
received: the packet, the routed block, the replayed history, the fallback.
"""

from __future__ import annotations

import time

import openai

from proxy.core.routing.router import SkillRouter
from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings
from tests.conftest import REPO

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"


def client_for(running) -> openai.OpenAI:
    return openai.OpenAI(base_url=running.base_url, api_key="sk-test", max_retries=0)


def last_user(recorded) -> str:
    return recorded.json["messages"][-1]["content"]


def test_dollar_skill_reaches_the_upstream_as_a_packet(running, upstream, logs):
    client = client_for(running)
    raw = client.chat.completions.with_raw_response.create(
        model="json", messages=[{"role": "user", "content": "$conventional-commits fix token expiry in login"}])
    assert raw.headers["x-skills-route"] == "explicit:conventional-commits"
    sent = last_user(upstream.last())
    assert sent.startswith('<skill_invocation_packet priority="highest"')
    assert "<n>conventional-commits</n>" in sent and "<expanded_skill_instructions" in sent
    assert sent.endswith(
        '<task_payload for_expanded_skills="conventional-commits">\nfix token expiry in login\n</task_payload>')
    event = logs.wait_for("preprocess_activation")
    assert event["resolved_skills"] == ["conventional-commits"] and event["request_id"]


def test_routed_then_reminder_with_history_replayed(running, upstream, logs):
    client = client_for(running)
    first = client.chat.completions.with_raw_response.create(model="json", messages=[{"role": "user", "content": SQL}])
    assert first.headers["x-skills-route"].startswith("sql-query-tuning=")
    forwarded_first = upstream.last().json["messages"]
    assert "<routed_skills>" in forwarded_first[-1]["content"]
    answer = first.parse().choices[0].message.content
    history = [{"role": "user", "content": SQL}, {"role": "assistant", "content": answer},
               {"role": "user", "content": "the slow query still uses a seq scan after I added the index"}]
    second = client.chat.completions.with_raw_response.create(model="json", messages=history)
    assert second.headers["x-skills-route"] == "reminder"
    forwarded_second = upstream.last().json["messages"]
    assert forwarded_second[: len(forwarded_first)] == forwarded_first
    assert forwarded_second[-1]["content"].startswith('<skills_runtime_reminder reason="route unchanged">')
    assert logs.wait_for("prompt_route", mode="reminder")


def test_no_route_gets_the_no_route_reminder_and_stream_works(running, upstream):
    client = client_for(running)
    stream = client.chat.completions.create(model="sse", stream=True,
                                            messages=[{"role": "user", "content": "tell me a joke about cats"}])
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert last_user(upstream.last()).startswith('<skills_runtime_reminder reason="no confident skill route">')


class SlowRouter(SkillRouter):
    """A router made slow on purpose: the seam for testing the scan timeout."""

    def route(self, text, max_selected=3):
        time.sleep(1.0)
        return super().route(text, max_selected)


def test_scan_timeout_falls_back_and_the_request_still_goes_out(start_proxy, upstream, logs):
    engine = SkillEngine.from_settings(Settings(roots=(str(REPO / "skills"),), scan_timeout=0.2),
                                       watch=False, router_factory=SlowRouter)
    try:
        running = start_proxy(engine=engine, scan_timeout=0.2)
        started = time.monotonic()
        raw = client_for(running).chat.completions.with_raw_response.create(
            model="json", messages=[{"role": "user", "content": SQL}])
        assert time.monotonic() - started < 1.0
        assert raw.headers["x-skills-route"] == "fallback"
        assert last_user(upstream.last()).startswith('<skills_runtime_reminder reason="scan timeout or routing error">')
        assert logs.wait_for("preprocess_fallback")
    finally:
        engine.close()
