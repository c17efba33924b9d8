"""Errors: OpenAI-shaped, with the right status and a message a person can act on."""

from __future__ import annotations

import socket

import httpx
import pytest

from .conftest import chat_body
from .fake_upstream import ERRORS


def _error(response: httpx.Response) -> dict:
    body = response.json()
    assert set(body["error"]) >= {"message", "type", "code"}, body
    assert "Traceback" not in response.text
    return body["error"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("raw, code", [
    (b"{not json", "invalid_json"),
    (b"", "invalid_json"),
    (b"[1, 2]", "invalid_body"),
    (b'"text"', "invalid_body"),
    (b'{"model": "m"}', "invalid_messages"),
    (b'{"model": "m", "messages": "hi"}', "invalid_messages"),
])
def test_bad_request_bodies_get_400(proxy, upstream, raw, code):
    response = httpx.post(proxy.base_url + "/chat/completions", content=raw,
                          headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert _error(response)["code"] == code
    assert response.headers["x-request-id"]
    assert upstream.received == []


def test_body_over_the_cap_gets_413_declared_or_streamed(start_proxy, upstream):
    proxy = start_proxy(max_body_bytes=1000)
    big = chat_body(text="x" * 2000)
    response = httpx.post(proxy.base_url + "/chat/completions", json=big)
    assert response.status_code == 413
    assert "max_body_bytes" in _error(response)["message"]

    def chunked():
        yield b'{"model": "m", "messages": [{"role": "user", "content": "'
        yield b"y" * 2000
        yield b'"}]}'

    response = httpx.post(proxy.base_url + "/chat/completions", content=chunked())
    assert response.status_code == 413
    response = httpx.post(proxy.base_url + "/embeddings", content=chunked())
    assert response.status_code == 413
    assert upstream.received == [] or all(r.path == "/v1/embeddings" for r in upstream.received)


def test_large_base64_body_under_the_cap_is_forwarded_whole(proxy, upstream):
    image = "data:image/png;base64," + "A" * 3_000_000
    content = [{"type": "text", "text": "what is this"}, {"type": "image_url", "image_url": {"url": image}}]
    response = httpx.post(proxy.base_url + "/chat/completions",
                          json={"model": "json", "messages": [{"role": "user", "content": content}]})
    assert response.status_code == 200
    assert upstream.last().json["messages"][-1]["content"][-1]["image_url"]["url"] == image


def test_upstream_refused_gets_502_naming_the_upstream(start_proxy):
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    proxy = start_proxy(upstream=dead)
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
    assert response.status_code == 502
    error = _error(response)
    assert dead in error["message"] and "connect" in error["message"]
    assert error["code"] == "upstream_unreachable"
    assert response.headers["x-skills-route"] == "demo=90"


def test_upstream_timeout_gets_504_naming_the_upstream_and_the_setting(start_proxy, upstream):
    proxy = start_proxy(read_timeout=0.3)
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("slow-json"))
    assert response.status_code == 504
    error = _error(response)
    assert upstream.url in error["message"] and "read_timeout" in error["message"]


def test_long_read_timeout_lets_a_slow_model_answer(start_proxy, upstream):
    proxy = start_proxy(read_timeout=5.0)
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("slow-json"))
    assert response.status_code == 200


@pytest.mark.parametrize("model", sorted(ERRORS))
def test_upstream_errors_pass_through_with_status_and_openai_shape(proxy, upstream, model):
    status, raw, _ = ERRORS[model]
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body(model))
    assert response.status_code == status
    error = _error(response)
    assert error["message"]
    if model == "error-lmstudio":
        assert error["message"] == "Multiple models are loaded. Please specify a model"
    if model == "error-vllm":
        assert error == {"message": "The model `x` does not exist.", "type": "NotFoundError", "code": 404}
    if model in ("error-openai", "error-ollama", "error-llamacpp"):
        assert response.json() == __import__("json").loads(raw)
    if model == "error-text":
        assert error["message"] == "Internal failure in the model runner"
    if model == "error-empty":
        assert upstream.url in error["message"] and "503" in error["message"]


def test_reset_mid_stream_is_framed_as_an_error_event_then_done(proxy, upstream):
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("reset-mid-stream", stream=True))
    assert response.status_code == 200
    events = [e for e in response.content.split(b"\n\n") if e]
    assert events[-1] == b"data: [DONE]"
    error = __import__("json").loads(events[-2].removeprefix(b"data: "))["error"]
    assert error["code"] == "upstream_connection_closed" and upstream.url in error["message"]
    assert len(events) == 3 + 2


def test_unknown_paths_get_an_openai_shaped_404(proxy, upstream):
    response = httpx.get(proxy.url + "/nope")
    assert response.status_code == 404
    assert "/v1" in _error(response)["message"]
    assert upstream.received == []


def test_an_unexpected_bug_is_a_500_without_traceback(start_proxy, upstream):
    class Broken:
        live = None

        def preprocess(self, body, options=None):
            raise RuntimeError("x")

        def fallback(self, body, reason, options=None):
            raise RuntimeError("fallback broke too")

        def start(self):
            pass

        def close(self):
            pass

    proxy = start_proxy(Broken())
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
    assert response.status_code == 500
    assert response.headers["x-request-id"] in _error(response)["message"]


def test_a_json_body_broken_off_upstream_aborts_the_connection_instead_of_truncating(proxy, upstream, logs):
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(proxy.base_url + "/broken-json")
    line = logs.wait_for("request", path="/v1/broken-json")
    assert line["error"] == "upstream_connection_closed"
