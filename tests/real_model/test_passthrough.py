"""Chat (plain and streamed), /v1/models and /v1/completions through the proxy, against the real server.

A 270M model's text is odd: these assert on structure, statuses and usage, never on wording.
"""

from __future__ import annotations

import httpx
import openai
import pytest

from .pair import MODEL_ALIAS, LlamaServer, ProxyServer

pytestmark = pytest.mark.real_model


def test_chat_answer_comes_back_intact(client: openai.OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model=MODEL_ALIAS, messages=[{"role": "user", "content": "Name a color."}], max_tokens=16, temperature=0)
    assert raw.http_response.status_code == 200
    assert raw.headers["x-request-id"] and raw.headers["x-skills-route"]
    body = raw.http_response.json()
    # llama.cpp's own shape, field for field: nothing added, dropped or renamed.
    assert set(body) == {"id", "object", "created", "model", "choices", "usage"}
    assert body["id"].startswith("chatcmpl-") and body["object"] == "chat.completion"
    assert set(body["choices"][0]) == {"index", "message", "logprobs", "finish_reason"}
    completion = raw.parse()
    choice = completion.choices[0]
    assert completion.model == MODEL_ALIAS
    assert choice.message.role == "assistant" and choice.message.content
    assert choice.finish_reason in ("stop", "length")
    usage = completion.usage
    assert usage.prompt_tokens > 0 and 0 < usage.completion_tokens <= 16
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_stream_comes_back_intact(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model=MODEL_ALIAS, messages=[{"role": "user", "content": "Name a fruit."}], max_tokens=12, temperature=0,
        stream=True)
    chunks = list(stream)
    assert len(chunks) >= 3
    assert {c.id for c in chunks} == {chunks[0].id} and chunks[0].id.startswith("chatcmpl-")
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks)
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])


def _raw_stream(url: str, text: str) -> bytes:
    body = {"model": MODEL_ALIAS, "messages": [{"role": "user", "content": text}], "max_tokens": 6,
            "temperature": 0, "stream": True}
    with httpx.stream("POST", url + "/chat/completions", json=body, timeout=120) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        return b"".join(answer.iter_raw())


def test_stream_bytes_keep_the_servers_framing(llama: LlamaServer, proxy: ProxyServer) -> None:
    """The events arrive as the server framed them (its line ends, its [DONE]), not re-serialised."""
    direct = _raw_stream(llama.base_url, "Say hi.")
    proxied = _raw_stream(proxy.base_url, "Say hi.")
    separator = b"\r\n\r\n" if b"\r\n\r\n" in direct else b"\n\n"
    assert direct.endswith(b"data: [DONE]" + separator)
    assert proxied.endswith(b"data: [DONE]" + separator)
    events = _data_events(proxied)
    assert all(e.startswith(b"data: ") for e in events), [e[:80] for e in events if not e.startswith(b"data: ")]
    assert len(events) == len(_data_events(direct))


def _data_events(raw: bytes) -> list[bytes]:
    """The events, less keep-alive comments (`: ping`), which the server adds when it is slow."""
    return [e for e in raw.replace(b"\r\n", b"\n").split(b"\n\n") if e.strip() and not e.startswith(b":")]


def test_models_pass_through(client: openai.OpenAI, direct: openai.OpenAI) -> None:
    through = client.models.with_raw_response.list()
    assert through.http_response.status_code == 200
    assert through.http_response.json() == direct.models.with_raw_response.list().http_response.json()
    assert [m.id for m in through.parse()] == [MODEL_ALIAS]


def test_completions_pass_through_untouched(client: openai.OpenAI, direct: openai.OpenAI) -> None:
    """/v1/completions is not preprocessed: the same prompt costs the same tokens and, greedy, says the same."""
    ask = {"model": MODEL_ALIAS, "prompt": "The capital of France is", "max_tokens": 8, "temperature": 0}
    through = client.completions.create(**ask)
    straight = direct.completions.create(**ask)
    assert through.object == "text_completion" and through.choices[0].text
    assert through.usage.prompt_tokens == straight.usage.prompt_tokens
    assert through.usage.completion_tokens == straight.usage.completion_tokens
    assert through.choices[0].text == straight.choices[0].text
