"""The official openai SDK, sync and async, stream and not, changed only in base_url."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from .engines import MARKER
from .fake_upstream import SSE_WORDS

MESSAGES = [{"role": "user", "content": "hello"}]


def _sync(proxy):
    return openai.OpenAI(base_url=proxy.base_url, api_key="sk-anything-0123456789", max_retries=0)


def _async(proxy):
    return openai.AsyncOpenAI(base_url=proxy.base_url, api_key="sk-anything-0123456789", max_retries=0)


def test_sync_non_stream(proxy, upstream):
    completion = _sync(proxy).chat.completions.create(model="json", messages=MESSAGES)
    assert completion.choices[0].message.content == "echo: " + MARKER + "hello"


def test_sync_stream(proxy, upstream):
    stream = _sync(proxy).chat.completions.create(model="sse", messages=MESSAGES, stream=True)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    assert text == "".join(SSE_WORDS)
    assert upstream.last().json["messages"][-1]["content"] == MARKER + "hello"


def test_async_non_stream_and_stream(proxy, upstream):
    async def run():
        async with _async(proxy) as client:
            completion = await client.chat.completions.create(model="json", messages=MESSAGES)
            stream = await client.chat.completions.create(model="sse", messages=MESSAGES, stream=True)
            parts = [chunk.choices[0].delta.content or "" async for chunk in stream]
            return completion, "".join(parts)

    completion, text = asyncio.run(run())
    assert completion.choices[0].message.content == "echo: " + MARKER + "hello"
    assert text == "".join(SSE_WORDS)


def test_with_raw_response_exposes_the_proxy_headers(proxy, upstream):
    raw = _sync(proxy).chat.completions.with_raw_response.create(model="json", messages=MESSAGES)
    assert raw.headers["x-skills-route"] == "demo=90" and raw.headers["x-request-id"]


@pytest.mark.parametrize("model", ["tools", "tools-whole"])
def test_stream_tool_calls_reassemble_by_index(proxy, upstream, model):
    stream = _sync(proxy).chat.completions.create(model=model, messages=MESSAGES, stream=True)
    calls: dict[int, dict] = {}
    for chunk in stream:
        for delta in chunk.choices[0].delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": None, "name": None, "arguments": ""})
            call["id"] = call["id"] or delta.id
            call["name"] = call["name"] or (delta.function.name if delta.function else None)
            call["arguments"] += (delta.function.arguments or "") if delta.function else ""
    assert calls == {0: {"id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}}
    assert json.loads(calls[0]["arguments"]) == {"city": "Paris"}


def test_upstream_errors_become_sdk_exceptions_with_the_upstream_message(proxy, upstream):
    client = _sync(proxy)
    with pytest.raises(openai.NotFoundError, match="does not exist"):
        client.chat.completions.create(model="error-openai", messages=MESSAGES)
    with pytest.raises(openai.BadRequestError, match="Multiple models are loaded"):
        client.chat.completions.create(model="error-lmstudio", messages=MESSAGES)
    with pytest.raises(openai.BadRequestError, match="does not exist"):
        client.chat.completions.create(model="error-vllm", messages=MESSAGES)


def test_a_reset_mid_stream_is_an_sdk_error_not_a_silent_truncation(proxy, upstream):
    stream = _sync(proxy).chat.completions.create(model="reset-mid-stream", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError, match="closed the connection"):
        for _ in stream:
            pass


def test_unreachable_upstream_is_an_sdk_error_naming_it(start_proxy):
    proxy = start_proxy(upstream="http://127.0.0.1:9/v1")
    with pytest.raises(openai.InternalServerError, match=r"127\.0\.0\.1:9"):
        _sync(proxy).chat.completions.create(model="json", messages=MESSAGES)


def test_models_and_embeddings_pass_through(proxy, upstream):
    client = _sync(proxy)
    assert [m.id for m in client.models.list()] == ["fake"]
    client.with_options().post("/embeddings", body={"model": "e", "input": "x"}, cast_to=object)
    assert upstream.last().path == "/v1/embeddings"
