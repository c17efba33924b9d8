"""The real servers failing: an error answer, a server stopped in the middle of a request, and one stopped between."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from .pair import MODEL_ALIAS, NEVER_STOP, LlamaCppServer, LlamaServer, ProxyServer, free_port, sdk

pytestmark = pytest.mark.real_model


def test_an_upstream_error_keeps_its_status_and_message(client: openai.OpenAI, direct: openai.OpenAI,
                                                        llama: LlamaServer) -> None:
    """A prompt longer than the server's context: its 400 and its own words reach the client."""
    too_long = [{"role": "user", "content": "word " * (llama.n_ctx + 500)}]
    with pytest.raises(openai.BadRequestError) as straight:
        direct.chat.completions.create(model=MODEL_ALIAS, messages=too_long, max_tokens=8)
    with pytest.raises(openai.BadRequestError) as through:
        client.chat.completions.create(model=MODEL_ALIAS, messages=too_long, max_tokens=8)
    error = through.value
    assert error.status_code == 400
    assert error.code == straight.value.code == "context_length_exceeded"
    assert error.type == "invalid_request_error"
    assert f"maximum context length is {llama.n_ctx} tokens" in error.message


@pytest.fixture
def own_pair(gguf: Path, tmp_path: Path) -> Iterator[tuple[LlamaServer, ProxyServer]]:
    """A llama server of this test's own (it gets killed) and a proxy in front of it."""
    llama = LlamaServer(gguf, free_port(), tmp_path / "llama.log", n_ctx=2048)
    proxy = ProxyServer(llama.base_url, free_port(), tmp_path / "proxy")
    try:
        llama.start()
        proxy.start()
        yield llama, proxy
    finally:
        proxy.stop()
        llama.stop()


def long_answer(**extra: Any) -> dict[str, Any]:
    """A request still generating seconds later: ~1000 tokens, end-of-turn banned."""
    return {"model": MODEL_ALIAS, "messages": [{"role": "user", "content": "Count from one to a thousand."}],
            "max_tokens": 1000, "temperature": 0, "logit_bias": NEVER_STOP, **extra}


def still_serves(llama: LlamaServer, proxy: ProxyServer, client: openai.OpenAI) -> None:
    """With the server gone: the proxy is up, not ready, and says 502 naming the upstream; back once it is."""
    assert httpx.get(proxy.url + "/healthz", timeout=5).status_code == 200
    assert httpx.get(proxy.url + "/readyz", timeout=5).status_code == 503
    with pytest.raises(openai.InternalServerError) as down:
        client.chat.completions.create(model=MODEL_ALIAS, messages=[{"role": "user", "content": "hi"}], max_tokens=4)
    assert down.value.status_code == 502
    assert str(llama.port) in down.value.message
    llama.start()
    assert httpx.get(proxy.url + "/readyz", timeout=5).status_code == 200
    again = client.chat.completions.create(model=MODEL_ALIAS, messages=[{"role": "user", "content": "hi"}],
                                           max_tokens=4, temperature=0)
    assert again.choices[0].message.content


@pytest.mark.timeout(240)
def test_server_killed_mid_stream_gives_a_framed_error(own_pair: tuple[LlamaServer, ProxyServer]) -> None:
    llama, proxy = own_pair
    client = sdk(proxy.base_url)
    stream = client.chat.completions.create(**long_answer(stream=True))
    received = []
    with pytest.raises(openai.APIError) as failed:
        for chunk in stream:
            received.append(chunk)
            if len(received) == 3:
                llama.kill()
    assert 3 <= len(received) < 1000
    assert not isinstance(failed.value, openai.APIStatusError)  # the stream had begun: 200, then an error event
    assert failed.value.message
    proxy.wait_for("stream_error_framed")
    still_serves(llama, proxy, client)


@pytest.mark.timeout(240)
def test_server_killed_mid_request_gives_a_clean_502(own_pair: tuple[LlamaServer, ProxyServer]) -> None:
    llama, proxy = own_pair
    client = sdk(proxy.base_url)
    outcome: dict[str, Any] = {}

    def call() -> None:
        try:
            outcome["answer"] = client.chat.completions.create(**long_answer())
        except Exception as error:  # noqa: BLE001 - the test inspects whatever came back
            outcome["error"] = error

    caller = threading.Thread(target=call)
    began = time.monotonic()
    caller.start()
    time.sleep(2.0)  # well into the ~1000 tokens
    llama.kill()
    caller.join(timeout=60)
    assert not caller.is_alive()
    error = outcome.get("error")
    assert isinstance(error, openai.InternalServerError), outcome
    assert error.status_code == 502 and error.message
    assert time.monotonic() - began < 30
    still_serves(llama, proxy, client)


@pytest.fixture
def own_cpp_pair(llama_server_path: Path, gguf: Path, tmp_path: Path) -> Iterator[tuple[LlamaCppServer, ProxyServer]]:
    """A llama-server of this test's own (it gets stopped) and a proxy in front of it."""
    llama = LlamaCppServer(llama_server_path, gguf, free_port(), tmp_path / "llama-server.log", n_ctx=2048)
    proxy = ProxyServer(llama.base_url, free_port(), tmp_path / "proxy")
    try:
        llama.start()
        proxy.start()
        yield llama, proxy
    finally:
        proxy.stop()
        llama.stop()


@pytest.mark.timeout(240)
def test_llama_server_stopped_gives_a_clean_502_on_every_surface(
        own_cpp_pair: tuple[LlamaCppServer, ProxyServer]) -> None:
    """Chat Completions, Responses, Messages and count_tokens: each a 502 naming the server, and back once it is."""
    llama, proxy = own_cpp_pair
    client = sdk(proxy.base_url)
    claude = anthropic.Anthropic(base_url=proxy.url, api_key="sk-local", max_retries=0, timeout=60.0)
    hello = [{"role": "user", "content": "hi"}]
    assert client.responses.create(model=MODEL_ALIAS, input="hi", max_output_tokens=4).output_text is not None
    llama.stop()
    assert httpx.get(proxy.url + "/readyz", timeout=5).status_code == 503
    with pytest.raises(openai.InternalServerError) as chat:
        client.chat.completions.create(model=MODEL_ALIAS, messages=hello, max_tokens=4)
    with pytest.raises(openai.InternalServerError) as responses:
        client.responses.create(model=MODEL_ALIAS, input="hi", max_output_tokens=4)
    with pytest.raises(anthropic.InternalServerError) as messages:
        claude.messages.create(model=MODEL_ALIAS, max_tokens=4, messages=hello)
    with pytest.raises(anthropic.InternalServerError) as counted:
        claude.messages.count_tokens(model=MODEL_ALIAS, messages=hello)
    for failed in (chat.value, responses.value, messages.value, counted.value):
        assert failed.status_code == 502
        assert str(llama.port) in failed.message, failed.message
    llama.start()
    assert httpx.get(proxy.url + "/readyz", timeout=5).status_code == 200
    again = claude.messages.create(model=MODEL_ALIAS, max_tokens=4, messages=hello)
    assert again.content
