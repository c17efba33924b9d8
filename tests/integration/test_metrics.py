"""`GET /metrics`: what a Prometheus scrape of a real running proxy shows after real requests.

The proxy and the fake upstream run under uvicorn on 127.0.0.1; clients are httpx
and the openai SDK; the scrape is parsed with prometheus-client's own parser.
"""

from __future__ import annotations

import httpx
import openai

from .conftest import TEST_API_KEY, chat_body
from .engines import RaisingEngine, SlowEngine, real_engine
from .scrape import Scrape, scrape

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"


def test_requests_are_counted_by_mode_status_and_stream(start_proxy, upstream, logs):
    proxy = start_proxy()
    with httpx.Client(base_url=proxy.base_url) as client:
        assert client.post("/chat/completions", json=chat_body()).status_code == 200
        assert client.post("/chat/completions", json=chat_body("sse", stream=True)).status_code == 200
        assert client.post("/chat/completions", json=chat_body("sse", stream=True)).status_code == 200
        assert client.post("/chat/completions", content=b"{not json").status_code == 400
        assert client.get("/models").status_code == 200
    page = httpx.get(proxy.url + "/metrics")
    assert page.headers["content-type"].startswith("text/plain; version=0.0.4")
    metrics = Scrape(page.text)
    assert metrics.value("skillproxy_chat_requests_total", mode="routed", status="200", stream="false") == 1
    assert metrics.value("skillproxy_chat_requests_total", mode="routed", status="200", stream="true") == 2
    assert metrics.value("skillproxy_requests_total", endpoint="chat_completions", status="400") == 1
    assert metrics.value("skillproxy_requests_total", endpoint="forwarded", status="200") == 1
    assert metrics.value("skillproxy_preprocess_duration_seconds_count") == 3
    assert metrics.value("skillproxy_upstream_duration_seconds_count", endpoint="chat_completions") == 3
    assert metrics.value("skillproxy_upstream_duration_seconds_count", endpoint="forwarded") == 1
    assert metrics.value("skillproxy_upstream_duration_seconds_sum") > 0
    assert metrics.value("skillproxy_request_duration_seconds_count", endpoint="chat_completions") == 4
    assert "process_resident_memory_bytes" in metrics.names()


def test_labels_stay_bounded_whatever_the_paths_and_models(start_proxy, upstream, logs):
    proxy = start_proxy()
    with httpx.Client(base_url=proxy.url) as client:
        for i in range(5):
            client.get(f"/v1/random-{i}")
            client.get(f"/nowhere-{i}")
            client.post("/v1/chat/completions", json=chat_body(model=f"json-{i}"))
    metrics = scrape(proxy)
    assert metrics.label_values("skillproxy_requests_total", "endpoint") == {"chat_completions", "forwarded", "other"}
    assert metrics.value("skillproxy_requests_total", endpoint="other", status="404") == 5
    text = httpx.get(proxy.url + "/metrics").text
    assert "random-" not in text and "nowhere-" not in text and "json-" not in text


def test_fallbacks_are_counted_by_reason(start_proxy, upstream, logs):
    slow = start_proxy(SlowEngine(1.0), scan_timeout=0.1)
    raising = start_proxy(RaisingEngine())
    for proxy in (slow, raising):
        response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
        assert response.headers["x-skills-route"] == "fallback"
    timed_out, failed = scrape(slow), scrape(raising)
    assert timed_out.value("skillproxy_preprocess_fallbacks_total", reason="timeout") == 1
    assert timed_out.value("skillproxy_preprocess_fallbacks_total", reason="error") == 0
    assert failed.value("skillproxy_preprocess_fallbacks_total", reason="error") == 1
    assert failed.value("skillproxy_chat_requests_total", mode="fallback", status="200") == 1
    line = logs.wait_for("request", path="/v1/chat/completions", fallback="timeout")
    assert line["preprocess_ms"] >= 90  # the 0.1 s scan timeout, give or take the clock's grain


def test_each_app_has_its_own_registry(start_proxy, upstream, logs):
    first, second = start_proxy(), start_proxy()
    httpx.post(first.base_url + "/chat/completions", json=chat_body())
    assert scrape(first).value("skillproxy_chat_requests_total") == 1
    assert scrape(second).value("skillproxy_chat_requests_total") == 0


def test_metrics_need_a_key_when_api_keys_are_set(start_proxy, upstream, logs):
    proxy = start_proxy(api_keys=(TEST_API_KEY,))
    refused = httpx.get(proxy.url + "/metrics")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "invalid_api_key"
    metrics = scrape(proxy, Authorization=f"Bearer {TEST_API_KEY}")
    assert metrics.value("skillproxy_requests_total", endpoint="metrics", status="401") == 1
    page = httpx.get(proxy.url + "/metrics", headers={"Authorization": f"Bearer {TEST_API_KEY}"}).text
    assert TEST_API_KEY not in page


def test_tool_rounds_and_skills_loaded_with_the_real_engine(start_proxy, upstream, logs):
    engine = real_engine()
    try:
        proxy = start_proxy(engine=engine)
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
        answer = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": SQL}])
        assert answer.choices[0].message.content
        line = logs.wait_for("request", path="/v1/chat/completions")
        metrics = scrape(proxy)
    finally:
        engine.close()
    assert line["tool_rounds"] >= 1
    assert metrics.value("skillproxy_tool_rounds_count") == 1
    assert metrics.value("skillproxy_tool_rounds_sum") == line["tool_rounds"]
    assert metrics.value("skillproxy_skill_tool_calls_total") == line["tool_calls"]
    assert metrics.value("skillproxy_chat_requests_total", mode="routed", status="200", stream="false") == 1
    assert metrics.value("skillproxy_skills_loaded") == len(engine.live.current.skills) > 0
    assert metrics.value("skillproxy_catalog_reloads_total") == 0
