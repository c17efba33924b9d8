"""Auth, the Authorization rule upstream, and what the logs say (and never say)."""

from __future__ import annotations

import json
import time

import httpx
import openai
import pytest
import structlog

from proxy.logs.setup import SecretRedactor

from .conftest import TEST_API_KEY, TEST_CLIENT_KEY, TEST_UPSTREAM_KEY, chat_body
from .engines import real_engine

PROXY_KEY, UPSTREAM_KEY, CLIENT_KEY = TEST_API_KEY, TEST_UPSTREAM_KEY, TEST_CLIENT_KEY


def test_without_api_keys_the_clients_authorization_passes_through(proxy, upstream):
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body(),
               headers={"authorization": f"Bearer {CLIENT_KEY}"})
    assert upstream.last().header("authorization") == f"Bearer {CLIENT_KEY}"


def test_upstream_api_key_replaces_the_clients_authorization(start_proxy, upstream):
    proxy = start_proxy(upstream_api_key=UPSTREAM_KEY)
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body(),
               headers={"authorization": f"Bearer {CLIENT_KEY}"})
    httpx.get(proxy.base_url + "/models")
    assert [r.header("authorization") for r in upstream.received] == [f"Bearer {UPSTREAM_KEY}"] * 2


def test_api_keys_require_a_bearer_key_except_on_healthz(start_proxy, upstream):
    proxy = start_proxy(api_keys=(PROXY_KEY, "another-key-xyz"))
    for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": PROXY_KEY},
                    {"authorization": f"Basic {PROXY_KEY}"}):
        response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body(), headers=headers)
        assert response.status_code == 401, headers
        assert response.json()["error"]["code"] == "invalid_api_key"
        assert response.headers["x-request-id"]
    assert httpx.get(proxy.base_url + "/models").status_code == 401
    assert upstream.received == []
    assert httpx.get(proxy.url + "/healthz").status_code == 200
    ok = httpx.post(proxy.base_url + "/chat/completions", json=chat_body(),
                    headers={"authorization": f"bearer {PROXY_KEY}"})
    assert ok.status_code == 200
    assert upstream.last().header("authorization") is None  # the proxy's key is not the upstream's


def test_no_key_or_authorization_value_reaches_any_log_line(start_proxy, upstream, logs, tmp_path):
    log_file = tmp_path / "proxy.log"
    proxy = start_proxy(api_keys=(PROXY_KEY,), upstream_api_key=UPSTREAM_KEY, log_file=str(log_file))
    client = openai.OpenAI(base_url=proxy.base_url, api_key=PROXY_KEY, max_retries=0)
    client.chat.completions.create(model="json", messages=[{"role": "user", "content": f"my key is {CLIENT_KEY}"}])
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="error-openai", messages=[{"role": "user", "content": "x"}])
    for auth in (f"Bearer {CLIENT_KEY}", "Bearer not-a-key-but-secret-looking"):
        httpx.post(proxy.base_url + "/chat/completions", json=chat_body(), headers={"authorization": auth})
    httpx.get(proxy.base_url + "/models", headers={"authorization": f"Bearer {PROXY_KEY}", "x-api-key": CLIENT_KEY})
    logs.wait_for("request", path="/v1/models")
    captured = logs.text() + log_file.read_text()
    lines = [json.loads(line) for line in captured.splitlines()]
    assert sum(line["event"] == "request" for line in lines) >= 2 * 4
    for secret in (PROXY_KEY, UPSTREAM_KEY, CLIENT_KEY, "not-a-key-but-secret-looking"):
        assert secret not in captured


def test_one_canonical_request_line_per_request_with_the_decision(proxy, upstream, logs):
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("sse", stream=True))
    request_id = response.headers["x-request-id"]
    line = logs.wait_for("request", request_id=request_id)
    assert [e["request_id"] for e in logs.events("request")] == [request_id]
    assert line["method"] == "POST" and line["path"] == "/v1/chat/completions"
    assert line["model"] == "sse" and line["status"] == 200 and line["stream"] is True
    assert line["mode"] == "routed" and line["selected"] == ["demo"]
    assert line["upstream_ms"] >= 0 and line["total_ms"] >= line["upstream_ms"]
    names = [e["event"] for e in logs.events() if e.get("request_id") == request_id]
    assert names == ["prompt_route", "context_injection", "upstream_request", "upstream_response", "request"]
    route = logs.events("prompt_route")[0]
    assert route["top"] == "demo" and route["score"] == 90


def test_by_default_a_chat_request_writes_one_line_that_says_why_its_skills_were_chosen(start_proxy, upstream, logs):
    engine = real_engine()
    try:
        proxy = start_proxy(engine=engine, log_events=False)  # the shipped default
        message = "write a conventional commit message for the login token fix"
        response = httpx.post(proxy.base_url + "/chat/completions",
                              json={"model": "json", "messages": [{"role": "user", "content": message}]})
        request_id = response.headers["x-request-id"]
        line = logs.wait_for("request", request_id=request_id)
        assert [e["event"] for e in logs.events() if e.get("request_id") == request_id] == ["request"]
        assert line["mode"] == "routed" and line["selected"][0] == "conventional-commits"
        name, score, confidence, reasons = line["scores"][0].split(":", 3)
        assert (name, confidence) == ("conventional-commits", "high") and int(score) > 50 and "commit" in reasons
        assert line["rejected_best"].split(":")[0] not in line["selected"]
        forwarded = json.dumps(upstream.last().json["messages"])
        assert line["injection_chars"] > 100 and "routed_skills" in forwarded
        assert len(line["injection_sha256"]) == 12

        verbose = start_proxy(engine=engine, log_events=True)  # the step events come back, the same request line
        response = httpx.post(verbose.base_url + "/chat/completions",
                              json={"model": "json", "messages": [{"role": "user", "content": message + " again"}]})
        request_id = response.headers["x-request-id"]
        logs.wait_for("request", request_id=request_id)
        names = [e["event"] for e in logs.events() if e.get("request_id") == request_id]
        assert names == ["prompt_route", "context_injection", "upstream_request", "upstream_response", "request"]
    finally:
        engine.close()


def test_upstream_error_is_logged_with_the_request_id(start_proxy, logs):
    proxy = start_proxy(upstream="http://127.0.0.1:9/v1")
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
    request_id = response.headers["x-request-id"]
    error = logs.wait_for("upstream_error", request_id=request_id)
    assert error["url"] == "http://127.0.0.1:9/v1/chat/completions"
    assert logs.wait_for("request", request_id=request_id)["status"] == 502


def test_log_lines_are_json_objects_on_the_stream(proxy, logs):
    httpx.get(proxy.url + "/healthz")
    logs.wait_for("request", path="/healthz")
    for line in logs.text().splitlines():
        assert isinstance(json.loads(line), dict)


def test_the_redactor_cleans_keys_headers_bearer_values_and_known_secrets(logs):
    redact = SecretRedactor([PROXY_KEY])
    event = {
        "event": "x", "authorization": f"Bearer {CLIENT_KEY}", "upstream_api_key": UPSTREAM_KEY,
        "headers": [("Authorization", "Bearer abc.def"), ("x-custom", "ok")],
        "nested": {"api_keys": [PROXY_KEY], "note": f"saw {PROXY_KEY} and Bearer zzz-123"},
        "exception": f"Traceback ... sk-{'a' * 20}", "max_tokens": 7, "prompt_tokens": 3,
    }
    cleaned = redact(None, "info", event)
    text = json.dumps(cleaned)
    for secret in (PROXY_KEY, CLIENT_KEY, UPSTREAM_KEY, "abc.def", "zzz-123", "a" * 20):
        assert secret not in text
    assert cleaned["max_tokens"] == 7 and cleaned["prompt_tokens"] == 3
    assert cleaned["headers"][1] == ("x-custom", "ok") or cleaned["headers"][1] == ["x-custom", "ok"]


def test_keys_in_a_query_string_are_redacted_in_every_logged_url(proxy, upstream, logs):
    answer = httpx.get(proxy.url + "/v1/models?key=AIzaSyFake1234567890&api_key=plain999secret&limit=5")
    assert answer.status_code == 200
    assert upstream.last().query == "key=AIzaSyFake1234567890&api_key=plain999secret&limit=5"
    text = logs.text()
    assert "AIzaSyFake1234567890" not in text and "plain999secret" not in text
    assert "key=[redacted]&api_key=[redacted]&limit=5" in text


def test_stdlib_log_records_are_redacted_too(proxy, logs):
    import logging

    logging.getLogger("uvicorn.error").warning("client sent Authorization: Bearer %s", CLIENT_KEY)
    structlog.get_logger("t").info("structlog_line", detail=f"Bearer {CLIENT_KEY}")
    assert CLIENT_KEY not in logs.text()
    assert "Bearer [redacted]" in logs.text()


def test_observers_see_each_finished_request_and_cannot_break_it(start_proxy, upstream, logs):
    seen = []

    def broken(line):
        raise RuntimeError("observer bug")

    proxy = start_proxy(observers=(lambda record: seen.append(record.log_line()), broken))
    answer = httpx.post(proxy.base_url + "/chat/completions", json=chat_body(), headers={"x-request-id": "obs-1"})
    assert answer.status_code == 200
    httpx.get(proxy.url + "/nowhere")
    deadline = time.monotonic() + 5  # observers run just after the answer went out: wait for the second one
    while len(seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [(line["request_id"], line["path"], line["status"]) for line in seen] == [
        ("obs-1", "/v1/chat/completions", 200), (seen[1]["request_id"], "/nowhere", 404)]
    assert seen[0]["total_ms"] >= 0 and seen[0]["method"] == "POST"
    assert logs.wait_for("request_observer_failed")["error"] == "RuntimeError('observer bug')"
