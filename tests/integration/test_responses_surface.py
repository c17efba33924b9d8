"""`POST /v1/responses` through the real proxy with the real engine over the project's skills/.

The upstream is a scripted Responses server (responses_upstream.py), a real
HTTP server that keeps responses by id (stateful, as OpenAI and LM Studio) or
refuses `previous_response_id` (stateless, as llama.cpp and Ollama). The
clients are raw httpx and the official `openai` SDK. Assertions are on what
the client got and on every request the upstream received.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import openai
import pytest

from proxy.core.tools.skill_tools import TOOL_NAMES
from tests.conftest import REPO

from .engines import real_engine
from .responses_upstream import ResponsesUpstream
from .scrape import scrape
from .servers import ServerThread

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
COMMIT = "write a conventional commit message for a fix to token expiry in the login flow"
FOLLOW_UP = "it still uses a seq scan after the index"
FINAL = "I read the skill and its files. Here is the answer."
ANSWER_ONLY = {"x-fake-script": json.dumps([{"answer": "Add an index on the filtered column."}])}


@pytest.fixture(scope="module")
def _responses_server() -> Iterator[tuple[ResponsesUpstream, str]]:
    app = ResponsesUpstream()
    with ServerThread(app) as server:
        yield app, server.url


@pytest.fixture
def model_server(_responses_server) -> ResponsesUpstream:
    app, url = _responses_server
    app.clear("stateful")
    app.url = url
    return app


@pytest.fixture
def proxied(start_proxy, model_server):
    """The real engine over skills/ in front of the scripted Responses upstream; `**settings` as the proxy's."""
    engines = []

    def start(**settings):
        engine = real_engine()
        engines.append(engine)
        return start_proxy(engine=engine, upstream=model_server.url + "/v1", **settings)

    yield start
    for engine in engines:
        engine.close()


def post(proxy, body, **headers) -> httpx.Response:
    return httpx.post(proxy.base_url + "/responses", json=body, headers=headers, timeout=10)


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def text_of(item) -> str:
    content = item["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def kept_requests(proxy, until, timeout: float = 5.0) -> list[dict]:
    """The inspect page's history once `until(rows)` holds (a request is kept just after its answer)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = httpx.get(proxy.url + "/_skillproxy/api/requests").json()["data"]
        if until(rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.02)


def assistant_copy(response: dict) -> list[dict]:
    """The client's copy of an answer's output items, as the next request sends them back."""
    return list(response["output"])


# ---- activation, routing, the reminder --------------------------------------------------------------

def test_a_dollar_skill_in_a_string_input_reaches_the_upstream_as_a_packet_still_a_string(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    answer = post(proxy, {"model": "m", "input": "$conventional-commits fix token expiry in login"})
    assert answer.status_code == 200 and answer.headers["x-skills-route"] == "explicit:conventional-commits"
    [sent] = model_server.posts()
    assert isinstance(sent["input"], str)
    assert sent["input"].startswith('<skill_invocation_packet priority="highest"')
    assert "<n>conventional-commits</n>" in sent["input"]
    assert sent["input"].endswith("fix token expiry in login\n</task_payload>")


def test_routed_then_reminder_when_the_client_sends_the_whole_input_again(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    first = post(proxy, {"model": "m", "instructions": "be brief", "input": [user(SQL)], "store": False},
                 **ANSWER_ONLY)
    assert first.headers["x-skills-route"].startswith("sql-query-tuning=")
    [sent_first] = model_server.posts()
    assert sent_first["instructions"] == "be brief", "the instructions are the client's"
    assert "<routed_skills>" in text_of(sent_first["input"][-1])
    history = [user(SQL), *assistant_copy(first.json()), user("it still uses a seq scan after the index")]
    second = post(proxy, {"model": "m", "instructions": "be brief", "input": history, "store": False}, **ANSWER_ONLY)
    assert second.headers["x-skills-route"] == "reminder"
    sent_second = model_server.posts()[-1]
    assert sent_second["input"][:1] == sent_first["input"], "the first turn is replayed as it went out"
    assert text_of(sent_second["input"][-1]).startswith('<skills_runtime_reminder reason="route unchanged">')


def test_chained_turns_get_the_reminder_and_the_block_is_never_sent_twice(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    first = post(proxy, {"model": "m", "input": SQL}, **ANSWER_ONLY)
    assert first.headers["x-skills-route"].startswith("sql-query-tuning=")
    second = post(proxy, {"model": "m", "previous_response_id": first.json()["id"],
                          "input": [user("it still uses a seq scan after the index")]}, **ANSWER_ONLY)
    assert second.status_code == 200 and second.headers["x-skills-route"] == "reminder"
    sent = model_server.posts()[-1]
    assert sent["previous_response_id"] == first.json()["id"], "the client's chain goes upstream as it came"
    assert len(sent["input"]) == 1, "only the new item: the upstream holds the rest"
    assert text_of(sent["input"][0]).startswith('<skills_runtime_reminder reason="route unchanged">')
    assert "<skills_runtime_context" not in json.dumps(sent)
    third = post(proxy, {"model": "m", "previous_response_id": second.json()["id"],
                         "input": "and should the index be partial?"}, **ANSWER_ONLY)
    assert third.headers["x-skills-route"] == "reminder"
    fourth = post(proxy, {"model": "m", "previous_response_id": third.json()["id"], "input": FOLLOW_UP},
                  **ANSWER_ONLY)
    assert fourth.headers["x-skills-route"] == "reminder"
    every = json.dumps(model_server.posts())
    assert every.count("<skills_runtime_context") == 1, "four chained turns: the block went out once"
    history = model_server.kept[fourth.json()["id"]]["history"]
    assert json.dumps(history).count("<skills_runtime_context") == 1, "and the upstream's history holds it once"


def test_a_route_change_on_a_chained_turn_gets_its_block(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    first = post(proxy, {"model": "m", "input": SQL}, **ANSWER_ONLY)
    second = post(proxy, {"model": "m", "previous_response_id": first.json()["id"], "input": COMMIT}, **ANSWER_ONLY)
    assert second.headers["x-skills-route"].startswith("conventional-commits=")
    sent = model_server.posts()[-1]
    assert "<routed_skills>" in sent["input"] and "conventional-commits" in sent["input"]


def test_every_forwarded_input_of_a_four_turn_conversation_extends_the_previous_one_byte_for_byte(
        proxied, model_server):
    model_server.clear("stateless")
    proxy = proxied()  # server tool mode: turn 1 runs the proxy's own tool rounds
    questions = [SQL, "it still uses a seq scan after the index", COMMIT, "make the subject line shorter"]
    history: list[dict] = []
    for number, question in enumerate(questions):
        history.append(user(question))
        script = {} if number == 0 else ANSWER_ONLY
        answer = post(proxy, {"model": "m", "instructions": "be brief", "input": history, "tools": []}, **script)
        assert answer.status_code == 200, answer.text
        history.extend(assistant_copy(answer.json()))
    posts = model_server.posts()
    assert len(posts) == 3 + 3, "three rounds for turn 1, one for each later turn"
    raws = [r.body.decode() for r in model_server.received if r.path == "/v1/responses"]
    for before, after, raw_after in zip(posts, posts[1:], raws[1:], strict=False):
        assert after["input"][:len(before["input"])] == before["input"]
        prefix = json.dumps(before["input"], ensure_ascii=False, separators=(",", ":"))[:-1]
        assert prefix in raw_after, "the same bytes, not just the same values"
    assert any(item.get("type") == "function_call_output" for item in posts[-1]["input"]), \
        "the proxy's tool round is replayed in later turns"


# ---- the proxy's tools in server mode ----------------------------------------------------------------

def test_tool_rounds_are_chained_on_a_stateful_upstream_and_the_client_can_chain_from_the_answer(
        proxied, model_server, logs):
    proxy = proxied()
    answer = post(proxy, {"model": "m", "input": SQL})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    first, second, third = model_server.posts()
    assert set(TOOL_NAMES) <= {t["name"] for t in first["tools"]}
    assert all(t["type"] == "function" and "parameters" in t for t in first["tools"]), "Responses' flat shape"
    assert "previous_response_id" not in first
    assert second["previous_response_id"] == "resp_0001" and third["previous_response_id"] == "resp_0002"
    assert [i["type"] for i in second["input"]] == ["function_call_output"]
    assert second["input"][0]["call_id"] == "call_0", "the upstream's own call id: it holds the call"
    assert second["input"][0]["output"] == (REPO / "skills/sql-query-tuning/SKILL.md").read_text()
    assert body["id"] == "resp_0003", "the last round's id: the response that holds the whole exchange"
    assert [i["type"] for i in body["output"]] == ["message"] and body["output"][0]["content"][0]["text"] == FINAL
    assert body["usage"]["output_tokens"] == 21 and body["usage"]["input_tokens_details"]["cached_tokens"] == 6
    assert body["usage"]["total_tokens"] == body["usage"]["input_tokens"] + 21
    line = logs.wait_for("request", path="/v1/responses")
    assert line["tool_rounds"] == 2 and line["surface"] == "responses"
    follow = post(proxy, {"model": "m", "previous_response_id": body["id"], "input": FOLLOW_UP},
                  **ANSWER_ONLY)
    assert follow.status_code == 200 and follow.headers["x-skills-route"] == "reminder"


@pytest.mark.parametrize("mode, store", [("stateful", False), ("stateless", None)])
def test_tool_rounds_are_replayed_with_store_false_or_on_a_stateless_upstream(proxied, model_server, mode, store):
    model_server.clear(mode)
    proxy = proxied()
    body = {"model": "m", "input": [user(SQL)]} | ({"store": store} if store is not None else {})
    answer = post(proxy, body)
    assert answer.status_code == 200, answer.text
    first, second, third = model_server.posts()
    assert not any("previous_response_id" in p for p in (second, third)), "never chained"
    assert second["input"][:1] == first["input"]
    call, output = second["input"][-2:]
    assert second["input"][1] == {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": "Let me read the skill."}]}
    assert call["type"] == "function_call" and call["call_id"].startswith("call_skp_")
    assert output == {"type": "function_call_output", "call_id": call["call_id"],
                      "output": (REPO / "skills/sql-query-tuning/SKILL.md").read_text()}
    assert third["input"][:len(second["input"])] == second["input"]
    assert answer.json()["output"][0]["content"][0]["text"] == FINAL


def test_an_upstream_that_says_it_stores_but_cannot_chain_gets_replayed_rounds_from_then_on(
        proxied, model_server, logs):
    model_server.clear("forgetful")
    proxy = proxied()
    assert post(proxy, {"model": "m", "input": SQL}).status_code == 200
    posts = model_server.posts()
    assert len(posts) == 4 and posts[1]["previous_response_id"] == "resp_0001", "tried chained once"
    assert "previous_response_id" not in posts[2] and posts[2]["input"][-1]["type"] == "function_call_output"
    assert logs.wait_for("responses_tool_round_replayed")["status"] == 400
    assert post(proxy, {"model": "m", "input": SQL}).status_code == 200
    later = model_server.posts()[4:]
    assert len(later) == 3 and not any("previous_response_id" in p for p in later), "remembered: replayed at once"


def test_the_client_sees_only_its_own_function_call_and_the_proxy_runs_its_own(proxied, model_server, logs):
    proxy = proxied()
    script = [{"calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}},
                         {"name": "get_weather", "arguments": {"city": "Paris"}}]}]
    weather = {"type": "function", "name": "get_weather", "description": "Weather in a city",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
    search = {"type": "web_search"}
    answer = post(proxy, {"model": "m", "input": SQL, "tools": [weather, search], "tool_choice": "auto",
                          "parallel_tool_calls": True, "metadata": {"k": "v"},
                          "include": ["reasoning.encrypted_content"], "reasoning": {"effort": "low"},
                          "text": {"format": {"type": "text"}}},
                  **{"x-fake-script": json.dumps(script)})
    output = answer.json()["output"]
    assert [(i["type"], i["name"]) for i in output] == [("function_call", "get_weather")]
    [sent] = model_server.posts()
    assert sent["tools"][:2] == [weather, search], "the client's tools first, as it sent them"
    for key, value in (("tool_choice", "auto"), ("parallel_tool_calls", True), ("metadata", {"k": "v"}),
                       ("include", ["reasoning.encrypted_content"]), ("reasoning", {"effort": "low"}),
                       ("text", {"format": {"type": "text"}})):
        assert sent[key] == value
    assert logs.wait_for("skill_tool_call")["tool"] == "read_skill_file"


def test_a_client_function_with_the_name_of_a_proxy_tool_wins(proxied, model_server):
    proxy = proxied()
    mine = {"type": "function", "name": "read_skill_file", "description": "the client's own",
            "parameters": {"type": "object", "properties": {}}}
    script = [{"calls": [{"name": "read_skill_file", "arguments": {"skill": "x"}}]}]
    answer = post(proxy, {"model": "m", "input": SQL, "tools": [mine]}, **{"x-fake-script": json.dumps(script)})
    assert [i["name"] for i in answer.json()["output"]] == ["read_skill_file"], "the client's call: the client's"
    [sent] = model_server.posts()
    assert [t["description"] for t in sent["tools"] if t["name"] == "read_skill_file"] == ["the client's own"]


def test_tool_choice_none_means_inline_mode(proxied, model_server, logs):
    proxy = proxied()
    post(proxy, {"model": "m", "input": SQL, "tool_choice": "none"}, **ANSWER_ONLY)
    [sent] = model_server.posts()
    assert "tools" not in sent and sent["tool_choice"] == "none"
    assert logs.wait_for("tool_mode_changed")["tool_mode"] == "inline"


# ---- the openai SDK ------------------------------------------------------------------------------------

def test_the_openai_sdk_parses_an_answer_with_its_own_function_tool_beside_the_proxys(proxied, model_server):
    proxy = proxied()
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
    weather = {"type": "function", "name": "get_weather", "description": "Weather in a city", "strict": False,
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    response = client.responses.create(model="m", input=SQL, tools=[weather])
    assert response.output_text == FINAL and response.id == "resp_0003"
    assert response.usage is not None and response.usage.output_tokens == 21
    script = json.dumps([{"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}])
    called = client.responses.create(model="m", input="weather in Paris?", tools=[weather],
                                     extra_headers={"x-fake-script": script})
    [call] = called.output
    assert call.type == "function_call" and call.name == "get_weather" and json.loads(call.arguments) == {
        "city": "Paris"}
    back = client.responses.create(model="m", previous_response_id=called.id, tools=[weather],
                                   input=[{"type": "function_call_output", "call_id": call.call_id, "output": "18 C"}],
                                   extra_headers=ANSWER_ONLY)
    assert back.output_text == "Add an index on the filtered column."
    assert model_server.posts()[-1]["input"] == [{"type": "function_call_output", "call_id": "call_0",
                                                  "output": "18 C"}]


# ---- streams without the proxy's tools ----------------------------------------------------------------

def test_a_stream_without_the_proxys_tools_is_relayed_as_it_comes_and_its_id_chains(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    with httpx.stream("POST", proxy.base_url + "/responses", json={"model": "m", "input": SQL, "stream": True},
                      headers=ANSWER_ONLY, timeout=10) as answer:
        raw = b"".join(answer.iter_bytes())
    events = [json.loads(line[6:]) for line in raw.decode().splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events][:2] == ["response.created", "response.in_progress"]
    assert events[-1]["type"] == "response.completed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert "event: response.output_text.delta" in raw.decode(), "the upstream's own frames"
    chained = post(proxy, {"model": "m", "previous_response_id": events[0]["response"]["id"], "input": FOLLOW_UP},
                   **ANSWER_ONLY)
    assert chained.headers["x-skills-route"] == "reminder", "the streamed answer's id was kept"


def test_the_openai_sdk_reads_a_relayed_stream(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
    with client.responses.stream(model="m", input=SQL, extra_headers=ANSWER_ONLY) as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    assert text == "Add an index on the filtered column." and final.output_text == text


def test_a_stream_that_breaks_off_ends_with_a_responses_error_event(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    with httpx.stream("POST", proxy.base_url + "/responses", json={"model": "m", "input": SQL, "stream": True},
                      headers={**ANSWER_ONLY, "x-fake-break": "4"}, timeout=10) as answer:
        raw = b"".join(answer.iter_bytes()).decode()
    frames = [f for f in raw.split("\n\n") if f.strip()]
    assert len(frames) == 5
    assert frames[-1].startswith("event: error\ndata: ")
    error = json.loads(frames[-1].split("data: ", 1)[1])
    assert error["type"] == "error" and error["param"] is None and error["code"].startswith("upstream")
    assert error["sequence_number"] == 4, "numbered after the four events the client got"
    assert error["message"]


# ---- errors --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, words", [
    (b"[1, 2]", "must be a JSON object"),
    (b'{"model": "m"}', "needs `input`"),
    (b'{"model": "m", "input": 5}', "needs `input`"),
    (b'{"model": "m", "input": {"role": "user"}}', "needs `input`"),
    (b"{not json", "JSON"),
])
def test_a_bad_body_is_a_400_in_openais_shape(proxied, model_server, body, words):
    answer = httpx.post(proxied().base_url + "/responses", content=body,
                        headers={"content-type": "application/json"})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert words in error["message"] and error["type"] == "invalid_request_error" and "param" in error
    assert model_server.posts() == []


def test_a_chained_request_without_input_goes_on_as_it_came(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    first = post(proxy, {"model": "m", "input": "hello"}, **ANSWER_ONLY)
    again = post(proxy, {"model": "m", "previous_response_id": first.json()["id"]}, **ANSWER_ONLY)
    assert again.status_code == 200 and "input" not in model_server.posts()[-1]


def test_an_upstream_that_is_down_is_a_502(start_proxy):
    engine = real_engine()
    try:
        proxy = start_proxy(engine=engine, upstream="http://127.0.0.1:9/v1")
        answer = post(proxy, {"model": "m", "input": SQL})
    finally:
        engine.close()
    assert answer.status_code == 502
    error = answer.json()["error"]
    assert error["code"] == "upstream_unreachable" and "127.0.0.1:9" in error["message"]


def test_an_upstream_error_answer_keeps_its_status_and_message(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    answer = post(proxy, {"model": "m", "previous_response_id": "resp_nope", "input": "hi"})
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "previous_response_not_found"


# ---- the rest of /v1/responses ------------------------------------------------------------------------

def test_input_tokens_counts_the_preprocessed_input_with_the_proxys_tools(proxied, model_server):
    proxy = proxied()
    answer = httpx.post(proxy.base_url + "/responses/input_tokens", json={"model": "m", "input": SQL})
    assert answer.status_code == 200
    seen = answer.json()["seen"]
    assert "<routed_skills>" in seen["input"] and SQL in seen["input"]
    assert set(TOOL_NAMES) <= {t["name"] for t in seen["tools"]}
    assert answer.json()["input_tokens"] > len(SQL) // 4
    assert model_server.posts() == [], "nothing answered"
    first = post(proxy, {"model": "m", "input": SQL}, **ANSWER_ONLY)
    assert first.headers["x-skills-route"].startswith("sql-query-tuning="), "the count stored nothing"


def test_get_delete_input_items_and_cancel_by_id_pass_through(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    made = post(proxy, {"model": "m", "input": "hello"}, **ANSWER_ONLY).json()
    url = proxy.base_url + "/responses/" + made["id"]
    assert httpx.get(url).json()["id"] == made["id"]
    items = httpx.get(url + "/input_items").json()["data"]
    assert items[0]["role"] == "user" and items[0]["content"].endswith("hello")
    assert httpx.post(url + "/cancel").json()["status"] == "cancelled"
    assert httpx.delete(url).json() == {"id": made["id"], "object": "response.deleted", "deleted": True}
    gone = httpx.get(url)
    assert gone.status_code == 404 and "not found" in gone.json()["error"]["message"]
    assert [(r.method, r.path) for r in model_server.received[1:]] == [
        ("GET", f"/v1/responses/{made['id']}"), ("GET", f"/v1/responses/{made['id']}/input_items"),
        ("POST", f"/v1/responses/{made['id']}/cancel"), ("DELETE", f"/v1/responses/{made['id']}"),
        ("GET", f"/v1/responses/{made['id']}")]


def test_a_conversation_passes_through_and_a_log_line_says_its_history_is_not_visible(proxied, model_server, logs):
    proxy = proxied(tool_mode="inline")
    first = post(proxy, {"model": "m", "conversation": "conv_1", "input": SQL}, **ANSWER_ONLY)
    assert first.headers["x-skills-route"].startswith("sql-query-tuning=")
    assert model_server.posts()[-1]["conversation"] == "conv_1"
    assert logs.wait_for("history_not_visible")["conversation"] == "conv_1"
    second = post(proxy, {"model": "m", "conversation": {"id": "conv_1"}, "input": FOLLOW_UP}, **ANSWER_ONLY)
    assert second.headers["x-skills-route"] == "reminder", "the decision is kept under the conversation's id"
    assert model_server.posts()[-1]["conversation"] == {"id": "conv_1"}


def test_metrics_and_the_inspect_page_label_the_request_responses(proxied, model_server):
    proxy = proxied(tool_mode="inline")
    answer = post(proxy, {"model": "m", "input": SQL}, **ANSWER_ONLY)
    rows = kept_requests(proxy, lambda rows: rows)
    assert rows[0]["request_id"] == answer.headers["x-request-id"] and rows[0]["surface"] == "responses"
    assert scrape(proxy).value("skillproxy_chat_requests_total", surface="responses", mode="routed") == 1


# ---- the OpenAI Agents SDK ---------------------------------------------------------------------------

def test_the_agents_sdk_on_its_default_responses_model_runs_its_tool_while_the_proxy_runs_its_own(
        proxied, model_server, logs):
    import agents

    proxy = proxied()
    script = [{"calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}}]},
              {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
              {"answer": "Index the column; it is 18 C in Paris."}]
    client = openai.AsyncOpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0,
                                default_headers={"x-fake-script": json.dumps(script)})
    agents.set_default_openai_client(client, use_for_tracing=False)
    agents.set_tracing_disabled(True)
    asked: list[str] = []

    @agents.function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return f"18 C in {city}"

    agent = agents.Agent(name="helper", instructions="be brief", model="m", tools=[get_weather])
    result = agents.Runner.run_sync(agent, SQL)
    assert result.final_output == "Index the column; it is 18 C in Paris."
    assert asked == ["Paris"], "the agent ran its own tool, and only that one"
    assert logs.wait_for("skill_tool_call")["tool"] == "read_skill_file", "the proxy ran its own"
    posts = model_server.posts()
    assert {t["name"] for t in posts[0]["tools"]} >= {"get_weather", *TOOL_NAMES}
    last = posts[-1]["input"]
    assert [i.get("type") for i in last if i.get("type")][-2:] == ["function_call", "function_call_output"]
    assert any(i.get("type") == "function_call" and i.get("name") == "read_skill_file" for i in last), \
        "the proxy's round is replayed into the agent's next request"


# ---- streams with the proxy's tools (framed by ResponsesStreamFrames) -----------------------------------

def stream_events(proxy, body, **headers) -> list[dict]:
    with httpx.stream("POST", proxy.base_url + "/responses", json={**body, "stream": True}, headers=headers,
                      timeout=10) as answer:
        assert answer.status_code == 200
        raw = b"".join(answer.iter_bytes()).decode()
    return [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: ")]


def test_a_streamed_answer_after_chained_tool_rounds_shows_one_response_and_chains_from_the_last_round(
        proxied, model_server):
    proxy = proxied()
    events = stream_events(proxy, {"model": "m", "input": SQL})
    posts = model_server.posts()
    assert len(posts) == 3 and posts[1]["previous_response_id"] == "resp_0001"
    assert posts[2]["previous_response_id"] == "resp_0002", "chained: the upstream said store: true"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert not [e for e in events if e.get("item", {}).get("type") == "function_call"], "the proxy's calls hidden"
    assert {e["response"]["id"] for e in events if "response" in e} == {"resp_0001"}, "one response"
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert text == "Let me read the skill." + FINAL
    completed = events[-1]
    assert completed["type"] == "response.completed" and completed["response"]["usage"]["output_tokens"] == 21
    follow = post(proxy, {"model": "m", "previous_response_id": "resp_0001", "input": FOLLOW_UP}, **ANSWER_ONLY)
    assert follow.status_code == 200 and follow.headers["x-skills-route"] == "reminder"
    assert model_server.posts()[-1]["previous_response_id"] == "resp_0003", \
        "sent on from the round that holds the whole exchange"


def test_a_streamed_answer_on_a_stateless_upstream_replays_the_rounds(proxied, model_server):
    model_server.clear("stateless")
    proxy = proxied()
    events = stream_events(proxy, {"model": "m", "input": [user(SQL)]})
    first, second, third = model_server.posts()
    assert not any("previous_response_id" in p for p in (second, third))
    assert second["input"][:1] == first["input"] and second["input"][-1]["type"] == "function_call_output"
    assert third["input"][:len(second["input"])] == second["input"]
    assert events[-1]["type"] == "response.completed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_the_openai_sdk_streams_with_its_own_function_tool_and_sees_only_its_own_call(proxied, model_server, logs):
    proxy = proxied()
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
    weather = {"type": "function", "name": "get_weather", "description": "Weather in a city", "strict": False,
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    with client.responses.stream(model="m", input=SQL, tools=[weather]) as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    assert text == "Let me read the skill." + FINAL and final.output_text.endswith(FINAL)
    script = json.dumps([{"calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}},
                                    {"name": "get_weather", "arguments": {"city": "Paris"}}]}])
    with client.responses.stream(model="m", input=SQL, tools=[weather],
                                 extra_headers={"x-fake-script": script}) as stream:
        final = stream.get_final_response()
    assert [(item.type, item.name) for item in final.output] == [("function_call", "get_weather")]
    assert logs.wait_for("skill_tool_call")["tool"] == "read_skill_file"


@pytest.mark.parametrize("stream", [False, True])
def test_a_client_continuing_a_stored_mixed_answer_by_its_id_has_the_proxys_outputs_sent_with_its_own(
        proxied, model_server, stream):
    proxy = proxied()
    script = json.dumps([{"calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}},
                                    {"name": "get_weather", "arguments": {"city": "Paris"}}]},
                         {"answer": "It is 18 C; add the index."}])
    weather = {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}
    if stream:
        events = stream_events(proxy, {"model": "m", "input": SQL, "tools": [weather]}, **{"x-fake-script": script})
        response = events[-1]["response"]
    else:
        response = post(proxy, {"model": "m", "input": SQL, "tools": [weather]}, **{"x-fake-script": script}).json()
    [call] = response["output"]
    assert call["name"] == "get_weather"
    back = post(proxy, {"model": "m", "previous_response_id": response["id"], "tools": [weather],
                        "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "18 C"}]},
                **{"x-fake-script": script})
    assert back.status_code == 200, back.text
    sent = model_server.posts()[-1]["input"]
    assert [(i["type"], i["call_id"]) for i in sent] == [("function_call_output", "call_0"),
                                                         ("function_call_output", "call_1")]
    assert sent[0]["output"] == (REPO / "skills/sql-query-tuning/SKILL.md").read_text()
    assert back.json()["output"][0]["content"][0]["text"] == "It is 18 C; add the index."


def test_an_upstream_that_refuses_tools_gets_the_request_again_inline_and_the_model_is_remembered(
        proxied, model_server, logs):
    proxy = proxied()
    refuse = {**ANSWER_ONLY, "x-fake-refuse-tools": "1"}
    answer = post(proxy, {"model": "no-tools", "input": SQL}, **refuse)
    assert answer.status_code == 200 and answer.json()["output"][0]["content"][0]["text"]
    with_tools, retried = model_server.posts()
    assert "tools" in with_tools and "tools" not in retried
    assert "<skills_runtime_context" in retried["input"]
    assert logs.wait_for("upstream_rejected_tools")["model"] == "no-tools"
    post(proxy, {"model": "no-tools", "input": SQL}, **refuse)
    assert "tools" not in model_server.posts()[-1] and len(model_server.posts()) == 3, "inline at once"


def test_skills_off_by_header_sends_the_body_untouched(proxied, model_server):
    proxy = proxied()
    body = {"model": "m", "input": [user(SQL)], "instructions": "be brief", "store": False}
    answer = post(proxy, body, **{**ANSWER_ONLY, "x-skills-mode": "off"})
    assert answer.status_code == 200
    assert model_server.posts() == [body]


def test_tool_rounds_of_a_request_on_a_conversation_go_on_in_that_conversation(proxied, model_server):
    proxy = proxied()
    answer = post(proxy, {"model": "m", "conversation": "conv_9", "input": SQL})
    assert answer.status_code == 200 and answer.json()["output"][0]["content"][0]["text"] == FINAL
    _, second, third = model_server.posts()
    for later in (second, third):
        assert later["conversation"] == "conv_9" and "previous_response_id" not in later
        assert [i["type"] for i in later["input"]] == ["function_call_output"]
    kinds = [i.get("type", "message") for i in model_server.conversations["conv_9"]]
    assert kinds == ["message", "message", "function_call", "function_call_output", "function_call",
                     "function_call_output", "message"], "the conversation holds every round once"
