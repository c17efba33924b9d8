"""Several upstreams chosen by model: two real fake upstreams behind one real proxy.

"lmstudio" is the shared fake upstream (`upstream`), "ollama" a second instance
with a model list of its own (`second`). Each gets its own key; every test
checks where requests landed and with which key, through httpx and the openai SDK.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import httpx
import openai
import pytest

from proxy.upstream.config import UpstreamConfig

from .conftest import TEST_CLIENT_KEY, TEST_SECOND_UPSTREAM_KEY, TEST_UPSTREAM_KEY, chat_body
from .engines import real_engine
from .fake_upstream import FakeUpstream, _json, content_events
from .servers import ServerThread

LMSTUDIO_MODELS = ("qwen*", "lmstudio-community/*")
OLLAMA_MODELS = ("llama3*", "gemma*:*", "sse*", "scripted", "fault-*", "tools-refused")
OLLAMA_LIST = [{"id": "llama3.2:1b", "object": "model", "owned_by": "library"},
               {"id": "gemma3:4b", "object": "model", "owned_by": "library"},
               {"id": "fake", "object": "model", "owned_by": "ollama-copy"}]  # the same id as lmstudio's


class SecondUpstream(FakeUpstream):
    """The fake upstream, listing models of its own."""

    async def _answer(self, record: Any, send: Any, gone: Any) -> None:
        if record.path == "/v1/models":
            await _json(send, record, 200, {"object": "list", "data": OLLAMA_LIST})
        else:
            await super()._answer(record, send, gone)


@pytest.fixture(scope="module")
def _second_server():
    app = SecondUpstream()
    with ServerThread(app) as server:
        yield app, server.url


@pytest.fixture
def second(_second_server) -> SecondUpstream:
    app, url = _second_server
    app.clear()
    app.url = url
    app.gate = threading.Semaphore(0)
    app.gate_timeouts = 0
    return app


def closed_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def pair(upstream, second, ollama_url: str | None = None, ollama_models=OLLAMA_MODELS) -> tuple[UpstreamConfig, ...]:
    return (UpstreamConfig("lmstudio", upstream.url + "/v1", LMSTUDIO_MODELS, TEST_UPSTREAM_KEY),
            UpstreamConfig("ollama", ollama_url or second.url + "/v1", tuple(ollama_models), TEST_SECOND_UPSTREAM_KEY))


@pytest.fixture
def both(start_proxy, upstream, second):
    return start_proxy(upstreams=pair(upstream, second))


def sdk(proxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base_url, api_key=TEST_CLIENT_KEY, max_retries=0)


def keys_seen(fake) -> set[str | None]:
    return {r.header("authorization") for r in fake.received}


# ---- chat, routed by model ---------------------------------------------------------------

@pytest.mark.parametrize("model, served_by", [
    ("qwen2.5-7b-instruct", "lmstudio"), ("Qwen2.5-7B-Instruct", "lmstudio"),
    ("lmstudio-community/Meta-Llama-3-8B-Instruct-GGUF", "lmstudio"),
    ("llama3.2:1b", "ollama"), ("gemma3:4b", "ollama"),
])
def test_chat_goes_to_the_upstream_whose_pattern_matches_with_that_upstreams_key(both, upstream, second, logs,
                                                                                 model, served_by):
    response = httpx.post(both.base_url + "/chat/completions", json=chat_body(model),
                          headers={"Authorization": f"Bearer {TEST_CLIENT_KEY}"})
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "echo: [skills:demo] hi"
    chosen, other = (upstream, second) if served_by == "lmstudio" else (second, upstream)
    assert len(chosen.received) == 1 and other.received == []
    assert chosen.last().json["model"] == model
    key = TEST_UPSTREAM_KEY if served_by == "lmstudio" else TEST_SECOND_UPSTREAM_KEY
    assert keys_seen(chosen) == {f"Bearer {key}"}, "its own key, never the other's nor the client's"
    line = logs.wait_for("request", path="/v1/chat/completions")
    assert line["upstream"] == served_by and line["status"] == 200
    assert logs.wait_for("upstream_request")["upstream"] == served_by


def test_a_stream_is_relayed_unbuffered_and_byte_identical_from_the_chosen_upstream(both, upstream, second):
    got = []
    with httpx.stream("POST", both.base_url + "/chat/completions", json=chat_body("sse-gated", stream=True),
                      timeout=httpx.Timeout(3.0)) as response:
        for chunk in response.iter_raw():
            got.append(chunk)
            second.gate.release()  # the next event is produced only after this one arrived
    assert got == content_events() and second.gate_timeouts == 0
    assert upstream.received == [] and keys_seen(second) == {f"Bearer {TEST_SECOND_UPSTREAM_KEY}"}


def test_the_openai_sdk_streams_from_one_upstream_and_completes_from_the_other(both, upstream, second, logs):
    client = sdk(both)
    stream = client.chat.completions.create(model="sse", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "Hello from the fake upstream"
    answer = client.chat.completions.create(model="qwen2.5-7b", messages=[{"role": "user", "content": "hi there"}])
    assert answer.choices[0].message.content == "echo: [skills:demo] hi there"
    assert [r.json["model"] for r in second.received] == ["sse"]
    assert [r.json["model"] for r in upstream.received] == ["qwen2.5-7b"]
    assert keys_seen(second) == {f"Bearer {TEST_SECOND_UPSTREAM_KEY}"}
    assert keys_seen(upstream) == {f"Bearer {TEST_UPSTREAM_KEY}"}
    lines = [e for e in logs.events("request") if e["path"] == "/v1/chat/completions"]
    assert [line["upstream"] for line in lines] == ["ollama", "lmstudio"]


def test_a_model_no_pattern_matches_is_a_404_naming_every_pattern(both, upstream, second):
    response = httpx.post(both.base_url + "/chat/completions", json=chat_body("mistral-7b", stream=True))
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "model_not_found" and error["type"] == "invalid_request_error"
    assert "'mistral-7b'" in error["message"]
    listed = ("lmstudio (qwen*, lmstudio-community/*); "
              "ollama (llama3*, gemma*:*, sse*, scripted, fault-*, tools-refused)")
    assert listed in error["message"]
    assert 'models: ["*"]' in error["message"], "it says how to catch every other model"
    with pytest.raises(openai.NotFoundError, match="no upstream serves model"):
        sdk(both).chat.completions.create(model="gemma3", messages=[{"role": "user", "content": "hi"}])
    assert upstream.received == [] and second.received == []


def test_a_catch_all_pattern_takes_every_model_the_others_do_not_match(start_proxy, upstream, second):
    proxy = start_proxy(upstreams=pair(upstream, second, ollama_models=("*",)))
    for model in ("mistral-7b", "qwen3:8b"):
        assert httpx.post(proxy.base_url + "/chat/completions", json=chat_body(model)).status_code == 200
    assert [r.json["model"] for r in second.received] == ["mistral-7b"]
    assert [r.json["model"] for r in upstream.received] == ["qwen3:8b"], "the first match wins"


# ---- other endpoints ---------------------------------------------------------------------

def test_passthrough_requests_choose_by_the_bodys_model_and_without_one_go_to_the_first(both, upstream, second):
    body = json.dumps({"model": "llama3-embed", "input": ["a", "b"]}).encode()
    response = httpx.post(both.base_url + "/embeddings", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200 and response.json()["path"] == "/v1/embeddings"
    assert second.last().body == body, "the body reaches the upstream as sent"
    assert httpx.post(both.base_url + "/completions", json={"prompt": "x"}).status_code == 200
    files = {"file": ("a.wav", b"RIFF....", "audio/wav")}
    upload = httpx.post(both.base_url + "/audio/transcriptions", files=files, data={"model": "whisper"})
    assert upload.status_code == 200, "an upload names no JSON model: the first upstream"
    assert httpx.get(both.base_url + "/models/gemma3:4b").json()["path"] == "/v1/models/gemma3:4b"
    assert [r.path for r in second.received] == ["/v1/embeddings", "/v1/models/gemma3:4b"]
    assert [r.path for r in upstream.received] == ["/v1/completions", "/v1/audio/transcriptions"]
    assert keys_seen(second) == {f"Bearer {TEST_SECOND_UPSTREAM_KEY}"}
    assert keys_seen(upstream) == {f"Bearer {TEST_UPSTREAM_KEY}"}
    unmatched = httpx.post(both.base_url + "/embeddings", json={"model": "nomic-embed", "input": "x"})
    assert unmatched.status_code == 404 and unmatched.json()["error"]["code"] == "model_not_found"


def test_models_are_merged_from_every_upstream_each_id_once(both, upstream, second, logs):
    response = httpx.get(both.base_url + "/models", headers={"Authorization": f"Bearer {TEST_CLIENT_KEY}"})
    assert response.status_code == 200
    assert response.json() == {"object": "list", "data": [{"id": "fake", "object": "model"}, *OLLAMA_LIST[:2]]}
    assert [m.id for m in sdk(both).models.list()] == ["fake", "llama3.2:1b", "gemma3:4b"]
    assert keys_seen(upstream) == {f"Bearer {TEST_UPSTREAM_KEY}"}
    assert keys_seen(second) == {f"Bearer {TEST_SECOND_UPSTREAM_KEY}"}
    assert logs.wait_for("request", path="/v1/models")["upstream"] == "lmstudio,ollama"


def test_models_still_answer_when_one_upstream_is_down_and_the_log_names_it(start_proxy, upstream, second, logs):
    down = closed_url()
    proxy = start_proxy(upstreams=pair(upstream, second, ollama_url=down))
    response = httpx.get(proxy.base_url + "/models")
    assert response.status_code == 200 and response.json()["data"] == [{"id": "fake", "object": "model"}]
    warning = logs.wait_for("upstream_models_failed")
    assert warning["upstream"] == "ollama" and warning["url"] == down + "/models"
    assert "cannot connect" in warning["message"]
    assert logs.wait_for("request", path="/v1/models")["upstream"] == "lmstudio"
    chat = httpx.post(proxy.base_url + "/chat/completions", json=chat_body("llama3.2:1b"))
    assert chat.status_code == 502 and down in chat.json()["error"]["message"]
    assert "is the base_url of upstream 'ollama' right?" in chat.json()["error"]["message"]
    assert httpx.post(proxy.base_url + "/chat/completions", json=chat_body("qwen2.5")).status_code == 200


def test_models_are_a_502_naming_each_upstream_when_none_answers(start_proxy, upstream, second):
    proxy = start_proxy(upstreams=(UpstreamConfig("a", closed_url(), ("x*",)),
                                   UpstreamConfig("b", closed_url(), ("*",))))
    response = httpx.get(proxy.base_url + "/models")
    assert response.status_code == 502
    message = response.json()["error"]["message"]
    assert message.startswith("no upstream could list its models") and "a: cannot connect" in message
    assert "b: cannot connect" in message


def test_readyz_reports_each_upstream(start_proxy, upstream, second):
    healthy = start_proxy(upstreams=pair(upstream, second)).url + "/readyz"
    ready = httpx.get(healthy)
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    assert [(u["name"], u["status"], u["upstream_status"]) for u in ready.json()["upstreams"]] == [
        ("lmstudio", "ready", 200), ("ollama", "ready", 200)]
    down = closed_url()
    degraded = httpx.get(start_proxy(upstreams=pair(upstream, second, ollama_url=down)).url + "/readyz")
    assert degraded.status_code == 200 and degraded.json()["status"] == "degraded"
    lmstudio, ollama = degraded.json()["upstreams"]
    assert lmstudio["status"] == "ready" and ollama["status"] == "unavailable"
    assert ollama["upstream"] == down + "/models" and ollama["error"]["code"] == "upstream_unreachable"
    none = httpx.get(start_proxy(upstreams=(UpstreamConfig("a", down, ("*",)),
                                            UpstreamConfig("b", closed_url(), ("*",)))).url + "/readyz")
    assert none.status_code == 503 and none.json()["status"] == "unavailable"


def test_one_upstream_keeps_the_plain_passthrough_and_the_line_says_default(proxy, upstream, logs):
    listed = httpx.get(proxy.base_url + "/models").json()
    assert listed == {"object": "list", "data": [{"id": "fake", "object": "model"}]}
    assert logs.wait_for("request", path="/v1/models")["upstream"] == "default"
    assert httpx.get(proxy.url + "/readyz").json()["status"] == "ready"


# ---- skills on the chosen upstream -------------------------------------------------------

@pytest.mark.parametrize("stream", [False, True])
def test_the_skill_tool_loop_runs_every_round_against_the_chosen_upstream(start_proxy, upstream, second, stream):
    engine = real_engine()
    try:
        proxy = start_proxy(engine=engine, upstreams=pair(upstream, second))
        ask = [{"role": "user", "content": "my postgres query is slow and EXPLAIN shows a seq scan, which index?"}]
        client = sdk(proxy)
        if stream:
            chunks = client.chat.completions.create(model="scripted", messages=ask, stream=True)
            text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        else:
            text = client.chat.completions.create(model="scripted", messages=ask).choices[0].message.content
    finally:
        engine.close()
    assert text.endswith("I read the skill and its files. Here is the answer.")
    assert len(second.received) == 3 and upstream.received == [], "all three rounds on the chosen upstream"
    assert keys_seen(second) == {f"Bearer {TEST_SECOND_UPSTREAM_KEY}"}
    tool_result = second.received[1].json["messages"][-1]
    assert tool_result["role"] == "tool" and "sql-query-tuning" in tool_result["content"]


def test_a_skills_model_override_picks_the_upstream_of_the_new_model(start_proxy, upstream, second, make_skill,
                                                                     tmp_path, logs):
    from proxy.engine.skill_engine import SkillEngine
    from proxy.settings import Settings

    make_skill("summarise-small", "---\nname: summarise-small\ndescription: Summarise a document briefly.\n"
                                  "model: small\n---\n# Steps\nSummarise.\n")
    overrides = {"small": "qwen2.5-0.5b-instruct"}
    engine = SkillEngine.from_settings(Settings(roots=(str(tmp_path / "skills"),), model_overrides=overrides),
                                       watch=False)
    try:
        proxy = start_proxy(engine=engine, model_overrides=overrides, upstreams=pair(upstream, second))
        body = chat_body("llama3.2:1b", "$summarise-small the report")
        assert httpx.post(proxy.base_url + "/chat/completions", json=body).status_code == 200
    finally:
        engine.close()
    assert second.received == [] and upstream.last().json["model"] == "qwen2.5-0.5b-instruct"
    line = logs.wait_for("request", path="/v1/chat/completions")
    assert (line["model"], line["upstream_model"], line["upstream"]) == ("llama3.2:1b", "qwen2.5-0.5b-instruct",
                                                                         "lmstudio")


def test_an_upstream_that_echoes_its_key_in_an_error_has_that_key_redacted(both, upstream, second):
    response = httpx.post(both.base_url + "/chat/completions", json=chat_body("fault-401-echo-key"))
    assert response.status_code == 401
    message = response.json()["error"]["message"]
    assert message == "Incorrect API key provided: [redacted]"
    assert second.last().header("authorization") == f"Bearer {TEST_SECOND_UPSTREAM_KEY}" and upstream.received == []


def test_an_upstream_refusing_tools_gets_the_inline_retry_itself(start_proxy, upstream, second, logs):
    engine = real_engine()
    try:
        proxy = start_proxy(engine=engine, upstreams=pair(upstream, second))
        body = chat_body("tools-refused", "my postgres query is slow and EXPLAIN shows a seq scan, which index?")
        response = httpx.post(proxy.base_url + "/chat/completions", json=body)
    finally:
        engine.close()
    assert response.status_code == 200
    first, retry = second.received
    assert "tools" in first.json and "tools" not in retry.json and upstream.received == []
    assert logs.wait_for("upstream_rejected_tools")["model"] == "tools-refused"
    assert logs.wait_for("request", path="/v1/chat/completions")["upstream"] == "ollama"
