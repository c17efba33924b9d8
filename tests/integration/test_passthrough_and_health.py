"""Every other /v1 path and method is forwarded untouched; /healthz and /readyz."""

from __future__ import annotations

import hashlib
import socket

import httpx
import pytest

from .fake_upstream import content_events

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


@pytest.mark.parametrize("method", METHODS)
def test_other_paths_and_methods_are_forwarded_untouched(proxy, upstream, method):
    body = b'{"input": "raw \\u00e9 bytes", "keep":   "spacing"}' if method != "GET" else None
    response = httpx.request(method, proxy.base_url + "/embeddings/x?a=1&b=%20two", content=body,
                             headers={"x-custom": "kept", "content-type": "application/json"})
    assert response.status_code == 200
    received = upstream.last()
    assert (received.method, received.path, received.query) == (method, "/v1/embeddings/x", "a=1&b=%20two")
    assert received.body == (body or b"")
    assert received.header("x-custom") == "kept"
    assert received.header("accept-encoding") == "identity"
    assert "x-skills-route" not in response.headers
    assert response.headers["x-request-id"] == received.header("x-request-id")


def test_a_get_without_body_is_sent_without_body_headers(proxy, upstream):
    httpx.get(proxy.base_url + "/models")
    received = upstream.last()
    assert received.header("transfer-encoding") is None
    assert received.header("content-length") in (None, "0")


def test_models_list_comes_back_as_the_upstream_sent_it(proxy, upstream):
    response = httpx.get(proxy.base_url + "/models")
    assert response.json() == {"object": "list", "data": [{"id": "fake", "object": "model"}]}


def test_a_streamed_upload_is_forwarded_whole(proxy, upstream):
    parts = [bytes([i]) * 50_000 for i in range(20)]
    response = httpx.post(proxy.base_url + "/audio/transcriptions", content=iter(parts))
    assert response.status_code == 200
    received = upstream.last()
    assert hashlib.sha256(received.body).digest() == hashlib.sha256(b"".join(parts)).digest()


def test_passthrough_streams_sse_unchanged(proxy, upstream):
    with httpx.stream("POST", proxy.base_url + "/sse/responses", json={"stream": True}) as response:
        chunks = list(response.iter_raw())
    assert chunks == content_events()
    assert response.headers["x-accel-buffering"] == "no"


def test_a_gzip_answer_is_decoded_once_and_its_encoding_header_dropped(proxy, upstream):
    response = httpx.get(proxy.base_url + "/gzip")
    assert "content-encoding" not in response.headers
    assert response.json() == {"compressed": True}


def test_healthz_answers_without_calling_the_upstream(proxy, upstream):
    response = httpx.get(proxy.url + "/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert upstream.received == []


def test_readyz_is_200_when_the_upstream_models_endpoint_answers(proxy, upstream):
    response = httpx.get(proxy.url + "/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "ready"
    assert upstream.last().path == "/v1/models"


def test_readyz_is_503_naming_the_upstream_when_it_is_down(start_proxy):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    proxy = start_proxy(upstream=dead)
    response = httpx.get(proxy.url + "/readyz")
    assert response.status_code == 503
    assert dead in response.json()["error"]["message"]
