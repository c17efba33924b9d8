"""POST /v1/chat/completions through the real proxy: what the upstream gets, what the client gets."""

from __future__ import annotations

import json

import httpx

from .conftest import chat_body
from .engines import MARKER
from .fake_upstream import content_events, tool_events


def test_last_user_message_is_rewritten_and_every_other_field_is_forwarded(proxy, upstream):
    body = chat_body(temperature=0.3, max_tokens=7, seed=1, tools=[{"type": "function", "function": {"name": "f"}}],
                     some_unknown_field={"nested": [1, "two", None]}, user="u-1", n=1)
    response = httpx.post(proxy.base_url + "/chat/completions", json=body)
    assert response.status_code == 200
    sent = upstream.last().json
    assert sent["messages"][-1]["content"] == MARKER + "hi"
    assert sent["messages"][:-1] == body["messages"][:-1]
    assert {k: v for k, v in sent.items() if k != "messages"} == {k: v for k, v in body.items() if k != "messages"}
    assert response.json()["choices"][0]["message"]["content"] == "echo: " + MARKER + "hi"


def test_non_ascii_text_survives_the_rewrite(proxy, upstream):
    text = "résumé ✓ 日本語 \U0001F600"
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body(text=text))
    assert upstream.last().json["messages"][-1]["content"] == MARKER + text


def test_content_arrays_keep_every_part_and_images_in_place(proxy, upstream):
    parts = [{"type": "text", "text": "first"},
             {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
             {"type": "text", "text": "second"}]
    body = {"model": "json", "messages": [{"role": "user", "content": parts}]}
    httpx.post(proxy.base_url + "/chat/completions", json=body)
    forwarded = upstream.last().json["messages"][-1]["content"]
    assert forwarded[1:] == parts


def test_rewritten_body_gets_a_fresh_content_length_and_no_chunking(proxy, upstream):
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body(text="x" * 1000))
    received = upstream.last()
    assert int(received.header("content-length")) == len(received.body)
    assert received.header("transfer-encoding") is None


def test_upstream_is_asked_for_identity_encoding_and_hop_by_hop_headers_are_dropped(proxy, upstream):
    headers = {"accept-encoding": "gzip, br", "keep-alive": "timeout=5", "proxy-authorization": "Basic eA==",
               "te": "trailers", "connection": "keep-alive, x-drop-me", "x-drop-me": "1", "x-custom": "kept"}
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body(), headers=headers)
    received = upstream.last()
    assert received.header("accept-encoding") == "identity"
    assert received.header("x-custom") == "kept"
    for name in ("keep-alive", "proxy-authorization", "te", "x-drop-me", "transfer-encoding"):
        assert name not in received.header_names(), name
    assert received.header("host") == upstream.url.removeprefix("http://")


def test_response_headers_keep_the_upstreams_and_drop_hop_by_hop(proxy, upstream):
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
    assert response.headers["x-upstream-custom"] == "yes"
    assert "keep-alive" not in response.headers
    assert "proxy-authenticate" not in response.headers
    assert response.headers["x-skills-route"] == "demo=90"
    assert len(response.headers.get_list("date")) <= 1
    assert len(response.headers.get_list("server")) <= 1


def test_request_id_is_generated_returned_and_sent_upstream(proxy, upstream):
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body())
    request_id = response.headers["x-request-id"]
    assert len(request_id) >= 16
    assert upstream.last().header("x-request-id") == request_id


def test_a_client_supplied_request_id_is_kept(proxy, upstream):
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body(),
                          headers={"x-request-id": "my-trace-42"})
    assert response.headers["x-request-id"] == "my-trace-42"
    assert upstream.last().header("x-request-id") == "my-trace-42"


def test_a_garbage_request_id_is_replaced(proxy, upstream):
    response = httpx.get(proxy.url + "/healthz", headers={"x-request-id": "bad id with spaces"})
    assert response.headers["x-request-id"] != "bad id with spaces"


def test_stream_chunks_reach_the_client_identical_to_what_upstream_sent(proxy, upstream):
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=chat_body("sse", stream=True)) as response:
        chunks = list(response.iter_raw())
    assert chunks == content_events()
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-accel-buffering"] == "no"
    assert "content-encoding" not in response.headers


def test_stream_is_not_compressed_even_when_the_client_accepts_gzip(proxy, upstream):
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=chat_body("sse", stream=True),
                      headers={"accept-encoding": "gzip"}) as response:
        body = response.read()
    assert "content-encoding" not in response.headers
    assert body == b"".join(content_events())


def test_tool_call_deltas_are_forwarded_byte_for_byte(proxy, upstream):
    for model in ("tools", "tools-whole"):
        with httpx.stream("POST", proxy.base_url + "/chat/completions", json=chat_body(model, stream=True)) as r:
            body = r.read()
        assert body == b"".join(tool_events(whole=model == "tools-whole"))


def test_stream_options_are_forwarded_as_given_and_never_added(proxy, upstream):
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body("sse-usage", stream=True))
    assert "stream_options" not in upstream.last().json
    body = chat_body("sse-usage", stream=True, stream_options={"include_usage": True})
    response = httpx.post(proxy.base_url + "/chat/completions", json=body)
    assert upstream.last().json["stream_options"] == {"include_usage": True}
    assert b'"usage"' in response.content


def test_an_event_split_across_reads_reaches_the_client_whole(proxy, upstream):
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=chat_body("sse-split", stream=True)) as r:
        chunks = list(r.iter_raw())
    assert b"".join(chunks).startswith(b'data: {"id"')
    assert chunks[0].endswith(b"\n\n")
    assert json.loads(chunks[0][len(b"data: "):])["choices"][0]["delta"]["content"] == "split"


def test_an_upstream_mid_stream_error_event_is_forwarded_untouched(proxy, upstream):
    response = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("lmstudio-stream-error", stream=True))
    assert response.content.endswith(b'data: {"error": {"message": "Model unloaded"}}\n\n')
