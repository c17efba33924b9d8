"""The preprocessor never fails a request: timeout and errors fall back, and the request is forwarded."""

from __future__ import annotations

import time

import httpx

from .conftest import chat_body
from .engines import FALLBACK, RaisingEngine, SlowEngine


def test_a_slow_preprocessor_falls_back_after_scan_timeout(start_proxy, upstream, logs):
    proxy = start_proxy(SlowEngine(2.0), scan_timeout=0.2)
    started = time.monotonic()
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
    assert time.monotonic() - started < 1.5
    assert response.status_code == 200
    assert response.headers["x-skills-route"] == "fallback"
    assert upstream.last().json["messages"][-1]["content"].startswith(FALLBACK)
    event = logs.wait_for("preprocess_fallback")
    assert "scan timeout" in event["reason"] and event["request_id"] == response.headers["x-request-id"]
    assert logs.wait_for("request", request_id=response.headers["x-request-id"])["mode"] == "fallback"


def test_a_raising_preprocessor_falls_back_and_says_why(start_proxy, upstream, logs):
    proxy = start_proxy(RaisingEngine())
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("sse", stream=True))
    assert response.status_code == 200
    assert response.headers["x-skills-route"] == "fallback"
    assert upstream.last().json["messages"][-1]["content"].startswith(FALLBACK)
    assert "router exploded" in logs.wait_for("preprocess_fallback")["reason"]


def test_the_preprocessor_gets_a_copy_and_the_forwarded_body_keeps_other_fields(proxy, upstream):
    body = chat_body(extra_field=[1, 2])
    httpx.post(proxy.base_url + "/chat/completions", json=body)
    assert proxy.engine.seen == [body["messages"]]
    assert upstream.last().json["extra_field"] == [1, 2]
