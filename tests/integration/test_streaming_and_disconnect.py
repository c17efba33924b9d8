"""Unbuffered SSE and cancellation: the client drives the pace, and leaving stops the upstream work."""

from __future__ import annotations

import contextlib
import socket
import time

import httpx

from .conftest import chat_body
from .engines import BlockingEngine
from .fake_upstream import content_events


def test_each_event_reaches_the_client_before_the_upstream_produces_the_next(proxy, upstream):
    """The upstream sends event N+1 only after the test has read event N through the proxy."""
    expected = content_events()
    got = []
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=chat_body("sse-gated", stream=True),
                      timeout=httpx.Timeout(3.0)) as response:
        for chunk in response.iter_raw():
            got.append(chunk)
            upstream.gate.release()
    assert got == expected
    assert upstream.gate_timeouts == 0


def _disconnect_after_first_event(url: str, body: dict) -> None:
    with httpx.stream("POST", url, json=body, timeout=3.0) as response:
        for _chunk in response.iter_raw():
            break  # leaving the block closes the connection


def test_client_disconnect_mid_stream_closes_the_upstream_connection_within_a_second(proxy, upstream, logs):
    _disconnect_after_first_event(proxy.base_url + "/chat/completions", chat_body("hang-mid-stream", stream=True))
    left_at = time.monotonic()
    record = upstream.wait_for_request()
    assert record.closed_early.wait(1.0), "upstream connection still open 1 s after the client left"
    assert record.closed_at - left_at < 1.0
    line = logs.wait_for("request", path="/v1/chat/completions")
    assert line["status"] == 200 and line["client_disconnected"] is True  # the status it had already sent


def test_client_disconnect_while_waiting_for_a_non_streaming_answer_closes_the_upstream(proxy, upstream):
    with contextlib.suppress(httpx.ReadTimeout):
        httpx.post(proxy.base_url + "/chat/completions", json=chat_body("hang"), timeout=0.5)
    left_at = time.monotonic()
    record = upstream.wait_for_request()
    assert record.closed_early.wait(1.0)
    assert record.closed_at - left_at < 1.0


def test_client_disconnect_during_preprocessing_cancels_the_request(start_proxy, upstream, logs):
    engine = BlockingEngine()
    proxy = start_proxy(engine, scan_timeout=10.0)
    port = int(proxy.url.rsplit(":", 1)[1])
    body = b'{"model": "json", "messages": [{"role": "user", "content": "hi"}]}'
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        assert engine.started.wait(2)
    line = logs.wait_for("request", status=499)
    assert line["client_disconnected"] is True
    engine.release.set()
    time.sleep(0.2)
    assert upstream.received == []


def test_passthrough_disconnect_closes_the_upstream_stream(proxy, upstream):
    upstream.delay = 0.3
    try:
        _disconnect_after_first_event(proxy.base_url + "/sse-anything", {})
        left_at = time.monotonic()
        record = upstream.wait_for_request()
        assert record.closed_early.wait(1.0)
        assert record.closed_at - left_at < 1.0
    finally:
        upstream.delay = 0.01


def test_a_stream_that_ends_before_any_event_becomes_a_framed_error(proxy, upstream):
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=chat_body("sse-empty", stream=True)) as r:
        raw = b"".join(r.iter_bytes())
    assert r.status_code == 200
    assert b'"code": "upstream_empty_stream"' in raw and raw.endswith(b"data: [DONE]\n\n")
