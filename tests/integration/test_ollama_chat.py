"""Skills on Ollama's native `POST /api/chat`, end to end.

The real proxy under uvicorn with the real skill engine over the project's
skills/, a fake Ollama server (fake_ollama.py: a real HTTP server speaking
Ollama's NDJSON; no Ollama can be installed here) as the upstream, and the
official `ollama` Python client or raw httpx as clients. Assertions are on
what the client got and on every request the upstream received.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import ollama
import pytest

from proxy.app import create_app
from proxy.core.tools.skill_tools import TOOL_NAMES
from proxy.logs.setup import configure_logging
from proxy.settings import Settings
from proxy.upstream.config import parse_upstreams
from tests.conftest import REPO

from .conftest import TEST_API_KEY, TEST_UPSTREAM_KEY, LogCapture, RunningProxy
from .engines import real_engine
from .fake_ollama import EVAL_COUNT, FakeOllama, prompt_count
from .servers import ServerThread

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
FINAL = "I read the skill and its files. Here is the answer."
WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
                                                 "parameters": {"type": "object",
                                                                "properties": {"city": {"type": "string"}}}}}


@pytest.fixture(scope="module")
def _ollama_server() -> Iterator[tuple[FakeOllama, str]]:
    app = FakeOllama()
    with ServerThread(app) as server:
        app.url = server.url
        yield app, server.url


@pytest.fixture
def fake(_ollama_server: tuple[FakeOllama, str]) -> FakeOllama:
    app, _ = _ollama_server
    app.clear()
    return app


@pytest.fixture
def start(fake: FakeOllama, logs: LogCapture) -> Iterator[Callable[..., RunningProxy]]:
    with ExitStack() as stack:
        def start_proxy(**overrides: Any) -> RunningProxy:
            engine = real_engine()
            stack.callback(engine.close)
            base = {"upstream": fake.url + "/v1", "roots": (), "connect_timeout": 1.0, "read_timeout": 5.0,
                    "log_format": "json", "log_events": True}  # the tests read the step events too
            settings = Settings(**{**base, **overrides})
            configure_logging(settings, stream=logs)
            server = stack.enter_context(ServerThread(create_app(settings, engine)))
            return RunningProxy(server.url, settings, engine)
        yield start_proxy


@pytest.fixture
def proxy(start: Callable[..., RunningProxy]) -> RunningProxy:
    return start()


def script(*steps: dict[str, Any]) -> dict[str, str]:
    return {"x-fake-script": json.dumps(list(steps))}


def read(skill: str, path: str | None = None) -> dict[str, Any]:
    arguments = {"skill": skill} if path is None else {"skill": skill, "path": path}
    return {"calls": [{"name": "read_skill_file", "arguments": arguments}]}


def chat(proxy: RunningProxy, messages: list[dict[str, Any]], headers: dict[str, str] | None = None,
         **extra: Any) -> httpx.Response:
    return httpx.post(proxy.url + "/api/chat", json={"model": "scripted", "messages": messages, **extra},
                      headers=headers, timeout=10)


def lines_of(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def user_text(recorded: Any) -> str:
    return [m for m in recorded.json["messages"] if m["role"] == "user"][-1]["content"]


def messages_bytes(recorded: Any) -> bytes:
    """The `messages` array exactly as the upstream got it (its bytes in the request body)."""
    text = recorded.body.decode()
    start = text.index('"messages":') + len('"messages":')
    _, end = json.JSONDecoder().raw_decode(text, start)
    return text[start:end].encode()


# ---- activation, routing, reminder, untouched fields ------------------------------------------

def test_a_dollar_skill_reaches_the_upstream_as_the_packet_with_every_other_field_untouched(proxy, fake):
    image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    extra = {"stream": False, "format": "json", "options": {"num_ctx": 8192, "temperature": 0.1}, "think": False,
             "keep_alive": "10m", "tools": [WEATHER_TOOL]}
    messages = [{"role": "system", "content": "be brief"},
                {"role": "user", "content": "$sql-query-tuning make it fast", "images": [image], "x_custom": 1}]
    response = chat(proxy, messages, script({"answer": "done"}), **extra)
    assert response.status_code == 200, response.text
    assert response.json()["message"]["content"] == "done"
    assert response.headers["x-skills-route"] == "explicit:sql-query-tuning"
    (sent,) = fake.chats()
    assert sent.path == "/api/chat", "the native root, not /v1"
    body = sent.json
    assert body["messages"][0] == messages[0]
    user = body["messages"][1]
    assert user["content"].startswith("<skill_invocation_packet")
    assert user["content"].endswith("make it fast\n</task_payload>")
    assert user["images"] == [image] and user["x_custom"] == 1
    for key in ("format", "options", "think", "keep_alive", "stream"):
        assert body[key] == extra[key], key
    assert body["tools"][0] == WEATHER_TOOL and set(TOOL_NAMES) <= {t["function"]["name"] for t in body["tools"]}


def test_a_routed_turn_gets_the_block_and_turn_two_the_reminder_streamed_by_default(proxy, fake):
    quiet = script({"answer": "Add an index."})
    messages = [{"role": "user", "content": SQL}]
    first = chat(proxy, messages, quiet)
    assert first.headers["content-type"].startswith("application/x-ndjson")
    assert "stream" not in fake.chats()[0].json, "absent stays absent: Ollama's default (streamed) applies"
    assert "<routed_skills>" in user_text(fake.chats()[0])
    answer = "".join(line["message"]["content"] for line in lines_of(first))
    assert answer == "Add an index." and lines_of(first)[-1]["done"] is True
    messages += [{"role": "assistant", "content": answer},
                 {"role": "user", "content": "the same query is still slow with the index, EXPLAIN shows a seq scan"}]
    chat(proxy, messages, quiet)
    assert user_text(fake.chats()[1]).startswith('<skills_runtime_reminder reason="route unchanged">')


def test_every_forwarded_prompt_of_four_turns_extends_the_previous_one_byte_for_byte(proxy, fake):
    turns = [
        (SQL, [read("sql-query-tuning"), {"answer": "Add an index on (user_id, created_at)."}]),
        ("and the same query is still slow with the index, EXPLAIN shows a seq scan again",
         [read("sql-query-tuning", "references/index-cheatsheet.md"), {"answer": "Run ANALYZE."}]),
        ("write a conventional commit message for adding that index",
         [read("conventional-commits"), {"answer": "perf(db): add index"}]),
        ("thanks, that is all", [{"answer": "You are welcome."}]),
    ]
    messages: list[dict[str, Any]] = []
    previous: bytes | None = None
    routes = []
    for number, (text, steps) in enumerate(turns, start=1):
        fake.clear()
        messages.append({"role": "user", "content": text})
        response = chat(proxy, messages, script(*steps), stream=number % 2 == 0)
        assert response.status_code == 200, response.text
        routes.append(response.headers["x-skills-route"].split("=")[0])
        if number % 2 == 0:
            answer = "".join(line["message"]["content"] for line in lines_of(response))
        else:
            answer = response.json()["message"]["content"]
        forwarded = [messages_bytes(r) for r in fake.chats()]
        assert len(forwarded) == len(steps), f"turn {number}: {len(steps) - 1} tool round(s), then the answer"
        for later, earlier in zip(forwarded[1:], forwarded):
            assert later.startswith(earlier[:-1] + b","), f"turn {number}: a tool round extends the prompt"
        if previous is not None:
            assert forwarded[0].startswith(previous[:-1] + b","), f"turn {number} extends turn {number - 1}"
        answer_message = {"role": "assistant", "content": answer}
        previous = forwarded[-1][:-1] + b"," + json.dumps(answer_message, separators=(",", ":")).encode() + b"]"
        messages.append(answer_message)
    assert routes == ["sql-query-tuning", "reminder", "conventional-commits", routes[3]]


# ---- the proxy's tools in server mode -----------------------------------------------------------

def test_non_streamed_the_proxy_runs_its_tools_and_the_client_gets_one_answer_with_summed_counts(proxy, fake):
    response = chat(proxy, [{"role": "user", "content": SQL}], stream=False)
    data = response.json()
    assert data["message"]["content"] == FINAL and "tool_calls" not in data["message"]
    first, second, third = fake.chats()
    assert data["prompt_eval_count"] == sum(prompt_count(r.json) for r in (first, second, third))
    assert data["eval_count"] == 3 * EVAL_COUNT and data["total_duration"] == 3 * 5_000_000
    call, result = second.json["messages"][-2:]
    assert call["role"] == "assistant" and call["tool_calls"][0]["id"].startswith("call_skp_")
    assert call["tool_calls"][0]["function"] == {"name": "read_skill_file",
                                                 "arguments": {"skill": "sql-query-tuning"}}
    assert result == {"role": "tool", "content": (REPO / "skills/sql-query-tuning/SKILL.md").read_text(),
                      "tool_name": "read_skill_file", "tool_call_id": call["tool_calls"][0]["id"]}


@pytest.mark.parametrize("per_line", [False, True], ids=["calls in one line", "a line per call"])
def test_streamed_every_rounds_content_arrives_the_proxys_calls_never_and_one_done_line_ends_it(proxy, fake,
                                                                                                per_line):
    steps = [{"content": "Reading.", "calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}},
                                               {"name": "list_skill_files", "arguments": {"skill": "{routed}"}}]},
             {"answer": FINAL}]
    headers = {**script(*steps), **({"x-fake-calls-per-line": "1"} if per_line else {})}
    lines = lines_of(chat(proxy, [{"role": "user", "content": SQL}], headers))
    assert "".join(line["message"]["content"] for line in lines) == "Reading." + FINAL
    assert not any("tool_calls" in line["message"] for line in lines)
    assert [line["done"] for line in lines].count(True) == 1 and lines[-1]["done"] is True
    first, second = fake.chats()
    assert lines[-1]["prompt_eval_count"] == prompt_count(first.json) + prompt_count(second.json)
    assert lines[-1]["eval_count"] == 2 * EVAL_COUNT
    assert [m["tool_name"] for m in second.json["messages"] if m["role"] == "tool"] == ["read_skill_file",
                                                                                      "list_skill_files"]


@pytest.mark.parametrize("stream", [False, True])
def test_mixed_calls_the_client_gets_its_own_and_the_replay_restores_the_proxys(proxy, fake, stream):
    mixed = {"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}},
                       {"name": "read_skill_file", "arguments": {"skill": "{routed}"}}]}
    messages = [{"role": "user", "content": SQL}]
    response = chat(proxy, messages, script(mixed, {"answer": "done"}), stream=stream, tools=[WEATHER_TOOL])
    if stream:
        calls = [c for line in lines_of(response) for c in line["message"].get("tool_calls", [])]
    else:
        calls = response.json()["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather"]
    assert len(fake.chats()) == 1, "the answer went to the client: it has a call to run"
    # The client sends back its copy (the official client drops ids and indexes) and its tool's result.
    messages += [{"role": "assistant", "content": "",
                  "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
                 {"role": "tool", "content": "sunny", "tool_name": "get_weather"}]
    chat(proxy, messages, script(mixed, {"answer": "done"}), stream=stream, tools=[WEATHER_TOOL])
    replayed = fake.chats()[1].json["messages"]
    assert [c["function"]["name"] for c in replayed[1]["tool_calls"]] == ["get_weather", "read_skill_file"]
    assert [(m["role"], m.get("tool_name")) for m in replayed[2:]] == [("tool", "read_skill_file"),
                                                                       ("tool", "get_weather")]


def test_an_upstream_that_refuses_tools_gets_the_request_again_inline_and_the_model_stays_inline(proxy, fake, logs):
    response = chat(proxy, [{"role": "user", "content": SQL}], stream=False, model="no-tools")
    assert response.status_code == 200, response.text
    refused, retried = fake.chats()
    assert "tools" in refused.json and "tools" not in retried.json
    assert "<routed_skills>" in user_text(retried)
    assert logs.events("upstream_rejected_tools")
    chat(proxy, [{"role": "user", "content": "another question about postgres indexes"}], stream=False,
         model="no-tools")
    assert "tools" not in fake.chats()[2].json and len(fake.chats()) == 3


# ---- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("skills", ["auto", "off"], ids=["tool loop", "relayed as it is"])
def test_an_error_line_mid_stream_reaches_the_client_and_ends_the_stream(proxy, fake, skills):
    response = chat(proxy, [{"role": "user", "content": SQL}], {"x-skills-mode": skills}, model="error-midway")
    lines = lines_of(response)
    assert lines[-1] == {"error": "an error was encountered while running the model: out of memory"}
    assert lines[0]["done"] is False


@pytest.mark.parametrize("skills", ["auto", "off"], ids=["tool loop", "relayed as it is"])
def test_a_stream_that_breaks_off_ends_with_an_error_line_the_ollama_client_raises(proxy, fake, skills):
    response = chat(proxy, [{"role": "user", "content": SQL}], {"x-skills-mode": skills}, model="breaks-off")
    last = lines_of(response)[-1]
    assert set(last) == {"error"} and "closed the connection" in last["error"]
    client = ollama.Client(host=proxy.url, headers={"x-skills-mode": skills})
    with pytest.raises(ollama.ResponseError, match="closed the connection"):
        list(client.chat(model="breaks-off", messages=[{"role": "user", "content": SQL}], stream=True))


@pytest.mark.parametrize("stream", [False, True])
def test_an_upstream_error_in_a_later_tool_round_reaches_the_client_in_ollamas_shape(proxy, fake, stream):
    response = chat(proxy, [{"role": "user", "content": SQL}], stream=stream, model="fails-after-tools")
    assert len(fake.chats()) == 2
    if stream:
        last = lines_of(response)[-1]
        assert set(last) == {"error"} and "model runner has unexpectedly stopped" in last["error"]
    else:
        assert response.status_code == 500
        assert response.json() == {"error": "model runner has unexpectedly stopped"}


@pytest.mark.parametrize("body, message", [
    (b"{not json", "JSON"),
    (b'{"model": "scripted"}', "messages"),
    (b"[1, 2]", "JSON object"),
])
def test_a_bad_body_gets_a_400_in_ollamas_shape(proxy, fake, body, message):
    response = httpx.post(proxy.url + "/api/chat", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert set(response.json()) == {"error"} and isinstance(response.json()["error"], str)
    assert message in response.json()["error"]
    assert not fake.chats()


def test_a_method_no_route_takes_is_a_405_in_ollamas_shape(proxy, fake):
    response = httpx.request("TRACE", proxy.url + "/api/chat")
    assert response.status_code == 405 and "TRACE /api/chat" in response.json()["error"]


def test_an_upstream_that_is_down_gives_a_502_in_ollamas_shape_naming_the_url_and_the_setting(start, fake):
    port = _closed_port()
    proxy = start(upstream=f"http://127.0.0.1:{port}/v1")
    response = chat(proxy, [{"role": "user", "content": SQL}], stream=False)
    assert response.status_code == 502
    error = response.json()["error"]
    assert f"http://127.0.0.1:{port}/api/chat" in error and "upstream_native_url" in error
    tags = httpx.get(proxy.url + "/api/tags")
    assert tags.status_code == 502 and f"http://127.0.0.1:{port}/api/tags" in tags.json()["error"]
    with pytest.raises(ollama.ResponseError) as raised:
        ollama.Client(host=proxy.url).chat(model="scripted", messages=[{"role": "user", "content": "hi"}])
    assert raised.value.status_code == 502


def test_upstream_native_url_sets_the_native_root_when_the_base_url_does_not_lead_to_it(start, fake):
    proxy = start(upstream=f"http://127.0.0.1:{_closed_port()}/openai/v1", upstream_native_url=fake.url)
    response = chat(proxy, [{"role": "user", "content": "hi"}], script({"answer": "hello"}), stream=False)
    assert response.json()["message"]["content"] == "hello"
    assert httpx.get(proxy.url + "/api/tags").json()["models"][0]["name"] == "scripted:latest"


def test_api_keys_guard_the_ollama_paths_and_the_upstream_gets_its_own_key(start, fake):
    proxy = start(api_keys=(TEST_API_KEY,), upstream_api_key=TEST_UPSTREAM_KEY)
    refused = httpx.get(proxy.url + "/api/tags")
    assert refused.status_code == 401 and isinstance(refused.json()["error"], str)
    client = ollama.Client(host=proxy.url, headers={"Authorization": f"Bearer {TEST_API_KEY}", **script(
        {"answer": "ok"})})
    assert client.chat(model="scripted", messages=[{"role": "user", "content": "hi"}]).message.content == "ok"
    assert client.list().models
    assert {r.header("authorization") for r in fake.received} == {f"Bearer {TEST_UPSTREAM_KEY}"}


# ---- the official client ------------------------------------------------------------------------

def test_the_ollama_client_chats_through_the_proxy_streamed_and_not(proxy, fake):
    client = ollama.Client(host=proxy.url)
    whole = client.chat(model="scripted", messages=[{"role": "user", "content": SQL}], stream=False)
    assert whole.message.content == FINAL and whole.done and not whole.message.tool_calls
    assert whole.eval_count == 3 * EVAL_COUNT
    parts = list(client.chat(model="scripted", messages=[{"role": "user", "content": SQL}], stream=True))
    assert "".join(part.message.content or "" for part in parts) == "Let me read the skill." + FINAL
    assert parts[-1].done and parts[-1].done_reason == "stop" and parts[-1].eval_count == 3 * EVAL_COUNT


@pytest.mark.parametrize("stream", [False, True])
def test_the_ollama_client_gets_only_its_own_tool_call(proxy, fake, stream):
    client = ollama.Client(host=proxy.url, headers=script(
        {"calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}},
                   {"name": "get_weather", "arguments": {"city": "Oslo"}}]}))
    answer = client.chat(model="scripted", messages=[{"role": "user", "content": SQL}], tools=[WEATHER_TOOL],
                         stream=stream)
    parts = list(answer) if stream else [answer]
    calls = [call for part in parts for call in part.message.tool_calls or []]
    assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [("get_weather", {"city": "Oslo"})]


def test_the_ollama_client_lists_shows_and_sees_running_models_through_the_proxy(proxy, fake):
    client = ollama.Client(host=proxy.url)
    assert [m.model for m in client.list().models] == ["scripted:latest"]
    assert client.show("scripted").modelfile == "FROM scripted"
    assert client.ps().models == []
    version = httpx.get(proxy.url + "/api/version")
    assert version.json() == {"version": "0.14.0"}
    assert [(r.method, r.path) for r in fake.received] == [("GET", "/api/tags"), ("POST", "/api/show"),
                                                           ("GET", "/api/ps"), ("GET", "/api/version")]


def test_a_streamed_passthrough_is_relayed_line_by_line(proxy, fake):
    response = httpx.post(proxy.url + "/api/pull", json={"model": "scripted"})
    assert response.headers["content-type"] == "application/x-ndjson"
    assert response.text == '{"status":"pulling manifest"}\n{"status":"success"}\n'


# ---- several upstreams, metrics, inspect --------------------------------------------------------

def test_with_several_upstreams_chat_goes_where_its_model_says_and_tags_to_the_first(start, fake):
    other = FakeOllama()
    with ServerThread(other) as server:
        proxy = start(upstreams=parse_upstreams(
            [{"name": "first", "base_url": fake.url + "/v1", "models": ["scripted*"]},
             {"name": "second", "base_url": server.url + "/v1", "models": ["*"]}], {}))
        chat(proxy, [{"role": "user", "content": "hi"}], script({"answer": "x"}), stream=False, model="gemma")
        httpx.post(proxy.url + "/api/show", json={"model": "gemma"})
        httpx.get(proxy.url + "/api/tags")
        assert [r.path for r in other.received] == ["/api/chat", "/api/show"]
        assert [r.path for r in fake.received] == ["/api/tags"]


def test_metrics_and_the_inspect_page_name_the_ollama_surface(proxy, fake):
    chat(proxy, [{"role": "user", "content": SQL}], script({"answer": "x"}), stream=False)
    metrics = httpx.get(proxy.url + "/metrics").text
    assert 'surface="ollama_chat"' in metrics
    rows: list[dict[str, Any]] = []
    for _ in range(100):
        rows = [r for r in httpx.get(proxy.url + "/_skillproxy/api/requests").json()["data"]
                if r["path"] == "/api/chat"]
        if rows:
            break
    assert rows and rows[0]["surface"] == "ollama_chat"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
