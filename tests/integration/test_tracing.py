"""OpenTelemetry traces through the running proxy, in the GenAI semantic conventions.

The real proxy under uvicorn, in front of the fake upstreams (Chat
Completions, and the Responses, Anthropic Messages and Ollama ones), with
its tracing given the SDK's in-memory exporter: every span as it ends.
Then the OTLP/HTTP exporter sending to a real HTTP receiver on 127.0.0.1
(otlp_receiver.py), which decodes the protobuf as a collector would. And,
in a subprocess, that with tracing off none of it is imported.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from proxy.tracing.config import TracingConfig
from proxy.tracing.request_trace import start_tracing
from proxy.upstream.config import UpstreamConfig
from tests.conftest import REPO

from .anthropic_upstream import AnthropicUpstream
from .conftest import chat_body
from .engines import real_engine
from .eventually import eventually
from .fake_ollama import EVAL_COUNT, FakeOllama, prompt_count
from .otlp_receiver import OtlpReceiver
from .redis_server import free_port
from .responses_upstream import ResponsesUpstream
from .scripted_model import usage_for
from .servers import ServerThread

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"
TRACEPARENT = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"
SECRET_PROMPT = "the launch code is tangerine-7741"


class Traced:
    """A proxy with tracing on, and the spans it finished."""

    def __init__(self, proxy: Any, exporter: InMemorySpanExporter) -> None:
        self.proxy = proxy
        self.exporter = exporter

    def spans(self, count: int | None = None) -> list[ReadableSpan]:
        """The finished spans, once the request's SERVER span (the last to end) is among them."""
        def done() -> list[ReadableSpan]:
            spans = list(self.exporter.get_finished_spans())
            servers = [s for s in spans if s.kind == SpanKind.SERVER]
            return spans if servers and (count is None or len(servers) >= count) else []
        return eventually(done)

    def one(self, name: str) -> ReadableSpan:
        found = [s for s in self.spans() if s.name == name]
        assert len(found) == 1, f"{len(found)} spans named {name!r}: {[s.name for s in self.spans()]}"
        return found[0]


@pytest.fixture
def traced(start_proxy):
    engines = []

    def start(real: bool = False, settings: dict[str, Any] | None = None, **config: Any) -> Traced:
        """`real`: the real engine over skills/ (else the marker engine); `config`: the tracing key's."""
        exporter = InMemorySpanExporter()
        tracing = start_tracing(TracingConfig(enabled=True, exporter="none", **config), exporter)
        engine = real_engine() if real else None
        if engine is not None:
            engines.append(engine)
        return Traced(start_proxy(engine=engine, tracing=tracing, **(settings or {})), exporter)

    yield start
    for engine in engines:
        engine.close()


def hex_id(value: int, width: int) -> str:
    return format(value, f"0{width}x")


def child_of(span: ReadableSpan, parent: ReadableSpan) -> bool:
    return span.parent is not None and span.parent.span_id == parent.context.span_id \
        and span.context.trace_id == parent.context.trace_id


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


# ---- one request: its spans, their kinds, links and GenAI attributes -----------------------

def test_a_chat_request_has_a_server_span_a_preprocess_span_and_a_chat_span(traced, upstream, logs):
    run = traced()
    response = httpx.post(run.proxy.base_url + "/chat/completions", json=chat_body(text="hello there"))
    assert response.status_code == 200
    server, preprocess, chat = (run.one(n) for n in ("POST /v1/chat/completions", "preprocess", "chat json"))
    assert (server.kind, preprocess.kind, chat.kind) == (SpanKind.SERVER, SpanKind.INTERNAL, SpanKind.CLIENT)
    assert server.parent is None, "no traceparent came: the request starts a trace"
    assert child_of(preprocess, server) and child_of(chat, server)
    assert attributes(chat) == {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "json",
        "server.address": "127.0.0.1", "server.port": int(upstream.url.rsplit(":", 1)[1]),
        "skillproxy.upstream": "default", "http.response.status_code": 200,
        "gen_ai.response.id": "chatcmpl-fake", "gen_ai.response.model": "fake",
        "gen_ai.response.finish_reasons": ("stop",), "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 2}
    served = attributes(server)
    assert served["http.response.status_code"] == 200 and served["http.route"] == "/v1/chat/completions"
    assert served["skillproxy.request_id"] == response.headers["x-request-id"]
    assert served["skillproxy.surface"] == "chat_completions" and served["skillproxy.model"] == "json"
    assert preprocess.start_time <= preprocess.end_time <= chat.start_time <= chat.end_time <= server.end_time
    line = logs.wait_for("request", path="/v1/chat/completions")
    assert attributes(preprocess)["skillproxy.mode"] == line["mode"] == "routed"
    assert attributes(preprocess)["skillproxy.selected"] == ("demo",)


@pytest.mark.parametrize("tool_mode", ["server", "inline"], ids=["tool-loop", "relayed"])
def test_a_streamed_answer_gives_its_chat_span_the_usage_and_finish_of_its_last_events(traced, upstream, tool_mode):
    """Relayed as it came (inline mode) or read by the tool loop (server mode): the span ends with the stream."""
    run = traced(real=True, settings={"tool_mode": tool_mode})
    headers = {"x-fake-script": json.dumps([{"answer": "Short and sweet."}])}
    body = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}], "stream": True,
            "stream_options": {"include_usage": True}}
    with httpx.stream("POST", run.proxy.base_url + "/chat/completions", json=body, headers=headers) as response:
        raw = b"".join(response.iter_bytes())
    usage = next(json.loads(line[6:]) for line in raw.split(b"\n") if b'"usage"' in line)["usage"]
    chat = run.one("chat scripted")
    got = attributes(chat)
    assert got["gen_ai.usage.input_tokens"] == usage["prompt_tokens"] > 0
    assert got["gen_ai.usage.output_tokens"] == usage["completion_tokens"] == 7
    assert got["gen_ai.response.finish_reasons"] == ("stop",)
    assert got["gen_ai.response.id"].startswith("chatcmpl-round-")
    assert chat.end_time <= run.one("POST /v1/chat/completions").end_time


def test_a_stream_without_usage_still_ends_its_chat_span_with_the_finish(traced, upstream):
    run = traced()
    with httpx.stream("POST", run.proxy.base_url + "/chat/completions", json=chat_body("sse", stream=True)) as r:
        assert b"".join(r.iter_bytes()).count(b"[DONE]") == 1
    got = attributes(run.one("chat sse"))
    assert got["gen_ai.response.finish_reasons"] == ("stop",) and got["gen_ai.response.id"] == "chatcmpl-fake"
    assert "gen_ai.usage.input_tokens" not in got


def test_an_upstream_error_marks_the_chat_span_failed(traced, upstream):
    run = traced()
    response = httpx.post(run.proxy.base_url + "/chat/completions", json=chat_body("error-openai"))
    assert response.status_code == 404
    chat = run.one("chat error-openai")
    assert chat.status.status_code.name == "ERROR" and attributes(chat)["error.type"] == "404"
    assert attributes(run.one("POST /v1/chat/completions"))["http.response.status_code"] == 404


# ---- what preprocessing decided, and the tools the proxy ran ---------------------------------

def test_a_dollar_skill_activation_puts_the_decision_on_the_preprocess_span(traced, upstream, logs):
    run = traced(real=True)
    body = {"model": "json", "messages": [{"role": "user", "content": "$conventional-commits fix token expiry"}]}
    assert httpx.post(run.proxy.base_url + "/chat/completions", json=body).status_code == 200
    decided = attributes(run.one("preprocess"))
    line = logs.wait_for("request", path="/v1/chat/completions")
    assert decided["skillproxy.mode"] == line["mode"] == "explicit"
    assert decided["skillproxy.selected"] == tuple(line["selected"]) == ("conventional-commits",)
    assert decided["skillproxy.injection_chars"] == line["injection_chars"] > 0
    assert decided["skillproxy.injection_sha256"] == line["injection_sha256"]
    assert decided["skillproxy.route"] == line["route"]


def test_each_skill_tool_the_proxy_runs_gets_an_execute_tool_span_between_the_chat_rounds(traced, upstream):
    run = traced(real=True)
    response = httpx.post(run.proxy.base_url + "/chat/completions",
                          json={"model": "scripted", "messages": [{"role": "user", "content": SQL}]})
    assert response.status_code == 200
    spans = sorted(run.spans(), key=lambda s: s.start_time)
    server = next(s for s in spans if s.kind == SpanKind.SERVER)
    assert [s.name for s in spans if s is not server] == [
        "preprocess", "chat scripted", "execute_tool read_skill_file", "chat scripted",
        "execute_tool list_skill_files", "chat scripted"]
    assert all(child_of(s, server) for s in spans if s is not server)
    chats = [s for s in spans if s.name == "chat scripted"]
    assert [attributes(c)["gen_ai.response.finish_reasons"] for c in chats] == [("tool_calls",)] * 2 + [("stop",)]
    read = next(s for s in spans if s.name == "execute_tool read_skill_file")
    assert attributes(read) == {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_skill_file",
                                "gen_ai.tool.type": "function", "skillproxy.skill": "sql-query-tuning",
                                "skillproxy.path": "SKILL.md", "skillproxy.result_chars": read.attributes[
                                    "skillproxy.result_chars"], "skillproxy.truncated": False}
    assert chats[0].end_time <= read.start_time <= read.end_time <= chats[1].start_time
    assert sum(attributes(c)["gen_ai.usage.input_tokens"] for c in chats) == response.json()["usage"]["prompt_tokens"]


def test_a_tool_call_that_fails_marks_its_span(traced, upstream):
    run = traced(real=True)
    script = [{"calls": [{"name": "read_skill_file", "arguments": {"skill": "no-such-skill"}}]}, {"answer": "ok"}]
    response = httpx.post(run.proxy.base_url + "/chat/completions", headers={"x-fake-script": json.dumps(script)},
                          json={"model": "scripted", "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 200
    tool = run.one("execute_tool read_skill_file")
    assert tool.status.status_code.name == "ERROR" and attributes(tool)["error.type"]


# ---- the client's trace goes on, and upstream ---------------------------------------------------

def test_the_clients_traceparent_is_continued_and_sent_upstream(traced, upstream):
    run = traced()
    response = httpx.post(run.proxy.base_url + "/chat/completions", json=chat_body(),
                          headers={"traceparent": TRACEPARENT, "tracestate": "vendor=abc"})
    assert response.status_code == 200
    server, chat = run.one("POST /v1/chat/completions"), run.one("chat json")
    assert hex_id(server.context.trace_id, 32) == CLIENT_TRACE and hex_id(server.parent.span_id, 16) == CLIENT_SPAN
    assert server.parent.is_remote
    sent = upstream.last()
    assert sent.header("traceparent") == f"00-{CLIENT_TRACE}-{hex_id(chat.context.span_id, 16)}-01", \
        "the upstream's parent is the chat span, in the client's trace"
    assert sent.header("tracestate") == "vendor=abc"


def test_a_forwarded_request_carries_the_server_spans_context(traced, upstream):
    run = traced()
    response = httpx.get(run.proxy.base_url + "/models", headers={"traceparent": TRACEPARENT})
    assert response.status_code == 200
    server = run.one("GET /v1/models")
    assert upstream.last().header("traceparent") == f"00-{CLIENT_TRACE}-{hex_id(server.context.span_id, 16)}-01"


def test_a_merged_model_list_asks_every_upstream_in_the_servers_trace(traced, upstream):
    both = (UpstreamConfig("first", upstream.url + "/v1", ("a*",)), UpstreamConfig("second", upstream.url + "/v1",
                                                                                    ("*",)))
    run = traced(settings={"upstreams": both})
    assert httpx.get(run.proxy.base_url + "/models", headers={"traceparent": TRACEPARENT}).status_code == 200
    server = run.one("GET /v1/models")
    sent = [r.header("traceparent") for r in upstream.received if r.path == "/v1/models"]
    assert sent == [f"00-{CLIENT_TRACE}-{hex_id(server.context.span_id, 16)}-01"] * 2


def test_without_tracing_the_clients_traceparent_goes_upstream_untouched(start_proxy, upstream):
    proxy = start_proxy()
    httpx.post(proxy.base_url + "/chat/completions", json=chat_body(), headers={"traceparent": TRACEPARENT})
    assert upstream.last().header("traceparent") == TRACEPARENT


# ---- prompt text only when asked for ------------------------------------------------------------

def test_no_prompt_or_answer_text_in_any_span_by_default(traced, upstream):
    run = traced(real=True)
    assert httpx.post(run.proxy.base_url + "/chat/completions", json=chat_body(text=SECRET_PROMPT)).status_code == 200
    every_value = json.dumps([attributes(s) for s in run.spans()], default=str)
    assert "tangerine" not in every_value
    assert not any(key.startswith(("gen_ai.input", "gen_ai.output", "gen_ai.system"))
                   for s in run.spans() for key in attributes(s))


def test_capture_content_puts_the_conversation_the_answer_and_the_tool_text_in_spans(traced, upstream):
    run = traced(real=True, capture_content=True)
    assert httpx.post(run.proxy.base_url + "/chat/completions", json=chat_body(text=SECRET_PROMPT)).status_code == 200
    chat = attributes(run.one("chat json"))
    sent = json.loads(chat["gen_ai.input.messages"])
    assert sent[-1]["role"] == "user" and SECRET_PROMPT in sent[-1]["parts"][-1]["content"]
    assert json.loads(chat["gen_ai.system_instructions"])[0]["content"].startswith("be brief")
    [answer] = json.loads(chat["gen_ai.output.messages"])
    assert answer["role"] == "assistant" and answer["finish_reason"] == "stop"
    text = answer["parts"][0]["content"]  # the fake echoes the user message it got, the proxy's reminder included
    assert text.startswith("echo: ") and text.endswith(SECRET_PROMPT)


def test_capture_content_streams_the_answer_text_and_the_tool_calls(traced, upstream):
    run = traced(real=True, capture_content=True)
    body = {"model": "scripted", "messages": [{"role": "user", "content": SQL}], "stream": True}
    with httpx.stream("POST", run.proxy.base_url + "/chat/completions", json=body) as response:
        b"".join(response.iter_bytes())
    spans = run.spans()
    last = [attributes(s) for s in spans if s.name == "chat scripted"][-1]
    assert json.loads(last["gen_ai.output.messages"])[0]["parts"][0]["content"] == \
        "I read the skill and its files. Here is the answer."
    read = attributes(next(s for s in spans if s.name == "execute_tool read_skill_file"))
    assert json.loads(read["gen_ai.tool.call.arguments"]) == {"skill": "sql-query-tuning"}
    assert read["gen_ai.tool.call.result"] == (REPO / "skills/sql-query-tuning/SKILL.md").read_text()


# ---- the other surfaces' answers ------------------------------------------------------------------

@pytest.fixture(scope="module")
def other_upstreams():
    apps = {"messages": AnthropicUpstream(), "responses": ResponsesUpstream(), "ollama": FakeOllama()}
    servers = [ServerThread(app) for app in apps.values()]
    for app, server in zip(apps.values(), servers):
        server.__enter__()
        app.url = server.url
    yield apps
    for server in servers:
        server.__exit__(None, None, None)


ANSWER_ONLY = {"x-fake-script": json.dumps([{"answer": "Fine, thanks."}])}


def test_a_streamed_anthropic_message_gives_the_chat_span_its_id_stop_reason_and_cached_input(
        traced, other_upstreams):
    claude = other_upstreams["messages"]
    claude.clear()
    run = traced(real=True, settings={"upstream": claude.url + "/v1"})
    body = {"model": "claude-x", "max_tokens": 64, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with httpx.stream("POST", run.proxy.url + "/v1/messages", json=body, headers=ANSWER_ONLY) as response:
        assert response.status_code == 200 and b"message_stop" in b"".join(response.iter_bytes())
    messages = claude.received[-1].json["messages"]
    got = attributes(run.one("chat claude-x"))
    assert got["gen_ai.response.id"] == f"msg_round_{len(messages)}"
    assert got["gen_ai.response.finish_reasons"] == ("end_turn",) and got["gen_ai.request.max_tokens"] == 64
    assert got["gen_ai.usage.input_tokens"] == len(json.dumps(messages)) // 4 + 3, "cache reads count as input"
    assert got["gen_ai.usage.output_tokens"] == 7 and got["gen_ai.provider.name"] == "anthropic"


def test_a_streamed_responses_answer_gives_the_chat_span_the_completed_responses_facts(traced, other_upstreams):
    model_server = other_upstreams["responses"]
    model_server.clear("stateful")
    run = traced(real=True, settings={"upstream": model_server.url + "/v1"})
    body = {"model": "gpt-x", "input": "hi", "stream": True}
    with httpx.stream("POST", run.proxy.base_url + "/responses", json=body, headers=ANSWER_ONLY) as response:
        raw = b"".join(response.iter_bytes())
    completed = next(json.loads(line[6:]) for line in raw.split(b"\n")
                     if line.startswith(b"data: ") and b"response.completed" in line)["response"]
    got = attributes(run.one("chat gpt-x"))
    assert got["gen_ai.response.id"] == completed["id"] and got["gen_ai.response.finish_reasons"] == ("stop",)
    assert got["gen_ai.usage.input_tokens"] == completed["usage"]["input_tokens"]
    assert got["gen_ai.usage.output_tokens"] == completed["usage"]["output_tokens"] == 7


def test_an_ollama_ndjson_stream_gives_the_chat_span_its_last_lines_counts(traced, other_upstreams):
    ollama = other_upstreams["ollama"]
    ollama.clear()
    run = traced(real=True, settings={"upstream": ollama.url + "/v1"})
    body = {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]}  # Ollama streams by default
    with httpx.stream("POST", run.proxy.url + "/api/chat", json=body, headers=ANSWER_ONLY) as response:
        lines = [json.loads(line) for line in b"".join(response.iter_bytes()).splitlines() if line.strip()]
    assert lines[-1]["done"] is True
    got = attributes(run.one("chat llama3.2"))
    assert got["gen_ai.usage.input_tokens"] == prompt_count(ollama.received[-1].json) == lines[-1]["prompt_eval_count"]
    assert got["gen_ai.usage.output_tokens"] == EVAL_COUNT and got["gen_ai.response.finish_reasons"] == ("stop",)
    assert got["gen_ai.response.model"] == "llama3.2" and "gen_ai.response.id" not in got


# ---- OTLP over HTTP to a real receiver ------------------------------------------------------------

def test_the_otlp_http_exporter_sends_the_trace_to_a_collector(start_proxy, upstream, monkeypatch):
    """A routed request whose model reads the skill through the proxy's tools, streamed: every span, decoded."""
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")  # the batch goes out within 50 ms, not 5 s
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SERVICE_NAME"):
        monkeypatch.delenv(name, raising=False)
    engine = real_engine()
    with OtlpReceiver() as receiver:
        config = TracingConfig(enabled=True, service_name="skillproxy-test", endpoint=receiver.url)
        proxy = start_proxy(engine=engine, tracing=start_tracing(config))
        body = {"model": "scripted", "messages": [{"role": "user", "content": SQL}], "stream": True,
                "stream_options": {"include_usage": True}}
        with httpx.stream("POST", proxy.base_url + "/chat/completions", headers={"traceparent": TRACEPARENT},
                          json=body) as response:
            assert b"".join(response.iter_bytes()).endswith(b"data: [DONE]\n\n")
        spans = sorted(receiver.wait_for("POST /v1/chat/completions"), key=lambda span: span.start_ns)
    engine.close()
    print("\n" + json.dumps([span.__dict__ for span in spans], indent=1))  # what the collector decoded
    server, preprocess, *rest = spans
    assert [span.name for span in rest] == ["chat scripted", "execute_tool read_skill_file", "chat scripted",
                                            "execute_tool list_skill_files", "chat scripted"]
    assert {span.service for span in spans} == {"skillproxy-test"} and {span.scope for span in spans} == {"skillproxy"}
    assert server.kind == "SPAN_KIND_SERVER" and preprocess.kind == "SPAN_KIND_INTERNAL"
    assert [span.kind for span in rest] == ["SPAN_KIND_CLIENT", "SPAN_KIND_INTERNAL"] * 2 + ["SPAN_KIND_CLIENT"]
    assert {span.trace_id for span in spans} == {CLIENT_TRACE} and server.parent_span_id == CLIENT_SPAN
    assert all(span.parent_span_id == server.span_id for span in [preprocess, *rest])
    assert preprocess.attributes["skillproxy.mode"] == "routed"
    assert preprocess.attributes["skillproxy.selected"] == ["sql-query-tuning"]
    assert preprocess.attributes["skillproxy.injection_chars"] > 0
    chats = [span for span in rest if span.kind == "SPAN_KIND_CLIENT"]
    for chat, sent in zip(chats, upstream.received, strict=True):
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.request.model"] == "scripted"
        assert chat.attributes["gen_ai.response.id"] == f"chatcmpl-round-{len(sent.json['messages'])}"
        assert chat.attributes["gen_ai.usage.input_tokens"] == usage_for(sent.json)["prompt_tokens"]
        assert chat.attributes["gen_ai.usage.output_tokens"] == 7
        assert sent.header("traceparent") == f"00-{CLIENT_TRACE}-{chat.span_id}-01"
    assert [chat.attributes["gen_ai.response.finish_reasons"] for chat in chats] == [["tool_calls"]] * 2 + [["stop"]]
    assert rest[1].attributes["gen_ai.tool.name"] == "read_skill_file"
    assert rest[1].attributes["skillproxy.skill"] == "sql-query-tuning"
    assert "Here is the answer" not in json.dumps([s.attributes for s in spans]), "no text without capture_content"


def test_serve_with_the_standard_otel_variables_sends_the_spans_it_still_holds_when_stopped(upstream, tmp_path):
    """`skillproxy serve` turned on by SKILLPROXY_TRACING=1, the collector and the service named by
    OpenTelemetry's own variables; the batch (5 s by default) is sent when the server stops."""
    port = free_port()
    with OtlpReceiver() as receiver:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SKILLPROXY_", "OTEL_"))},
               "PYTHONPATH": str(REPO), "SKILLPROXY_TRACING": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
               "OTEL_SERVICE_NAME": "proxy-from-env"}
        command = [sys.executable, "-m", "proxy", "serve", "--port", str(port), "--upstream", upstream.url + "/v1",
                   "--root", str(REPO / "skills"), "--log-format", "json"]
        banner = tmp_path / "serve.err"
        with banner.open("w") as err:
            process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=err)
            try:
                url = f"http://127.0.0.1:{port}"
                eventually(lambda: _answers(url + "/healthz"), seconds=30)
                body = {"model": "json", "messages": [{"role": "user", "content": "$conventional-commits add login"}]}
                assert httpx.post(url + "/v1/chat/completions", json=body).status_code == 200
                assert not receiver.spans, "nothing sent yet: the batch waits"
            finally:
                process.send_signal(signal.SIGINT)
                process.wait(timeout=20)
        spans = receiver.wait_for("POST /v1/chat/completions", seconds=5)
    assert f"traces:   OTLP/HTTP to {receiver.url}/v1/traces" in banner.read_text()
    chat = next(span for span in spans if span.name == "chat json")
    assert {span.service for span in spans} == {"proxy-from-env"}
    assert chat.attributes["gen_ai.provider.name"] == "openai" and chat.attributes["gen_ai.usage.input_tokens"] == 3
    preprocess = next(span for span in spans if span.name == "preprocess")
    assert preprocess.attributes["skillproxy.mode"] == "explicit"
    assert preprocess.attributes["skillproxy.selected"] == ["conventional-commits"]


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


# ---- off: nothing of it is there --------------------------------------------------------------------

OFF_CHECK = """
import json, sys, httpx
from proxy.app import create_app
from proxy.settings import load_settings
from tests.integration.engines import MarkerEngine
from tests.integration.fake_upstream import FakeUpstream
from tests.integration.servers import ServerThread

with ServerThread(FakeUpstream()) as upstream:
    settings = load_settings(env={"SKILLPROXY_UPSTREAM": upstream.url + "/v1", "SKILLPROXY_ROOTS": "", **ENV})
    app = create_app(settings, MarkerEngine())
    with ServerThread(app) as proxy:
        answer = httpx.post(proxy.url + "/v1/chat/completions",
                            json={"model": "sse", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
        assert answer.status_code == 200, answer.text
print(json.dumps({"loaded": sorted(m for m in sys.modules if m.startswith(PREFIXES)),
                  "middleware": [m.cls.__qualname__ if hasattr(m.cls, "__qualname__") else repr(m.cls)
                                 for m in app.user_middleware]}))
"""
# FastAPI itself imports opentelemetry's API (its own telemetry, off unless a global provider is set):
# the SDK, the exporters, protobuf and the proxy's tracing module are what tracing would bring.
TRACING_MODULES = ("opentelemetry.sdk", "opentelemetry.exporter", "opentelemetry.proto", "google.protobuf",
                   "proxy.tracing.otel", "proxy.tracing.traced_answer", "proxy.surfaces.answer_facts")


def run_off_check(env: dict[str, str]) -> dict[str, Any]:
    code = f"ENV = {env!r}\nPREFIXES = {TRACING_MODULES!r}\n" + textwrap.dedent(OFF_CHECK)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLPROXY_", "OTEL_"))}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60,
                            env={**environment, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_with_tracing_off_a_request_imports_no_tracing_module_and_adds_no_middleware():
    off = run_off_check({})
    assert off["loaded"] == [], f"imported with tracing off: {off['loaded']}"
    assert off["middleware"] == ["RequestContext", "FastPath"]
    on = run_off_check({"SKILLPROXY_TRACING": "1", "SKILLPROXY_TRACING__EXPORTER": "none"})
    assert "opentelemetry.sdk.trace" in on["loaded"] and "proxy.tracing.otel" in on["loaded"], \
        "the check sees the modules when tracing is on"
    assert on["middleware"][0] == "OtelTracing.middleware"
