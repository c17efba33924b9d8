"""`POST /v1/messages`: skills for Anthropic's clients, through the real proxy and a scripted Anthropic upstream.

The real skill engine over the project's skills/, the real proxy under
uvicorn, the scripted Anthropic upstream (anthropic_upstream.py, a real HTTP
server) and as clients the official `anthropic` SDK and raw httpx.
Assertions are on what the client got and on every request the upstream received.
"""

from __future__ import annotations

import copy
import itertools
import json

import anthropic
import httpx
import pytest

from proxy.core.tools.skill_tools import TOOL_NAMES
from proxy.surfaces.anthropic_messages import without_cache_control
from tests.conftest import REPO

from .conftest import TEST_API_KEY, TEST_UPSTREAM_KEY
from .engines import real_engine

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
FINAL = "I read the skill and its files. Here is the answer."
EPHEMERAL = {"type": "ephemeral"}
WEATHER = {"name": "get_weather", "description": "the weather in a city",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}


@pytest.fixture
def start(start_proxy, claude):
    engines = []

    def run(engine=None, **settings):
        engine = engine or real_engine()
        engines.append(engine)
        return start_proxy(engine=engine, upstream=claude.url + "/v1", **settings)

    yield run
    for engine in engines:
        engine.close()


def sdk(proxy, api_key: str = "sk-ant-client", **headers) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=proxy.url, api_key=api_key, max_retries=0, default_headers=headers)


def script(*steps) -> dict[str, str]:
    return {"x-fake-script": json.dumps(list(steps))}


def post(proxy, body, path="/v1/messages", **headers) -> httpx.Response:
    return httpx.post(proxy.url + path, json=body, headers=headers, timeout=10)


def last_user_text(recorded) -> str:
    content = recorded.json["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def user(text, marker=False):
    block = {"type": "text", "text": text, **({"cache_control": EPHEMERAL} if marker else {})}
    return {"role": "user", "content": [block]}


ANSWER = script({"answer": "Done."})


# ---- activation, routing, reminder ----------------------------------------------------------

def test_a_dollar_skill_message_reaches_the_upstream_with_the_packet(start, claude):
    proxy = start()
    response = sdk(proxy, **ANSWER).messages.create(
        model="m", max_tokens=64, system="be brief",
        messages=[{"role": "user", "content": "$conventional-commits fix token expiry in login"}])
    assert response.content[0].text == "Done."
    sent = claude.messages()[-1].json
    assert isinstance(sent["messages"][-1]["content"], str), "a string content stays a string"
    assert sent["messages"][-1]["content"].startswith('<skill_invocation_packet priority="highest"')
    assert sent["system"].startswith("be brief")


def test_a_routed_message_gets_the_block_and_turn_two_the_reminder(start, claude):
    proxy = start()
    first = post(proxy, {"model": "m", "max_tokens": 64, "messages": [user(SQL)]}, **ANSWER)
    assert first.status_code == 200 and first.headers["x-skills-route"].startswith("sql-query-tuning")
    sent_first = claude.messages()[-1].json["messages"]
    assert "<routed_skills>" in last_user_text(claude.messages()[-1])
    history = [user(SQL), {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
               user("and how do I check the index is used?")]
    second = post(proxy, {"model": "m", "max_tokens": 64, "messages": history}, **ANSWER)
    assert second.headers["x-skills-route"] == "reminder"
    sent_second = claude.messages()[-1].json["messages"]
    assert sent_second[0] == sent_first[0], "turn 1 is replayed as it went out"
    assert last_user_text(claude.messages()[-1]).startswith('<skills_runtime_reminder reason="route unchanged">')


# ---- replay: a Claude Code conversation -------------------------------------------------------

def system_for(turn: int) -> list[dict]:
    """Claude Code's system prompt: an attribution block that changes on every request, then the prompt."""
    return [{"type": "text", "text": f"x-anthropic-billing-header: cc_version=2.1.{turn}; cc_entrypoint=cli"},
            {"type": "text", "text": "You are Claude Code.", "cache_control": EPHEMERAL}]


def marked_last(messages: list[dict]) -> list[dict]:
    """The conversation as Claude Code sends it: one cache_control marker, on the newest message's last block."""
    out = copy.deepcopy(without_cache_control(messages))
    last = out[-1]
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = EPHEMERAL
    return out


def test_every_forwarded_prompt_of_a_claude_code_conversation_extends_the_previous_one(start, claude):
    """Four requests: a routed question answered after a proxy tool round, a client tool round, the client's
    tool result, and a follow-up; the marker moves and the attribution changes every turn."""
    proxy = start()
    weather = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    steps = [script({"calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}}]},
                    {"answer": "Add an index."}),
             script(weather), script({"answer": "Sunny."}), script({"answer": "Use EXPLAIN ANALYZE."})]
    client_says = [user(SQL), None, None, user("and how do I check the index is used?")]
    messages: list[dict] = []
    forwarded: list[list[dict]] = []
    for turn in range(4):
        if turn == 1:
            messages.append(user("what is the weather in Paris?"))
        elif turn == 2:
            messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0",
                                                           "content": "sunny"}]})
        else:
            messages.append(client_says[turn])
        body = {"model": "m", "max_tokens": 64, "system": system_for(turn), "messages": marked_last(messages),
                "tools": [WEATHER], "metadata": {"user_id": "u1"}}
        sent_before = len(claude.messages())
        response = post(proxy, body, **steps[turn])
        assert response.status_code == 200, response.text
        answer = response.json()
        assert not any(b["type"] == "tool_use" and b["name"] in TOOL_NAMES for b in answer["content"])
        messages.append({"role": "assistant", "content": answer["content"]})
        sent = claude.messages()[sent_before].json  # the turn's first round: the client's messages as forwarded
        assert sent["system"][0]["text"].endswith(f"2.1.{turn}; cc_entrypoint=cli"), "the system as the client sent it"
        assert sent["metadata"] == {"user_id": "u1"}
        markers = [i for i, m in enumerate(sent["messages"]) if isinstance(m["content"], list)
                   and any("cache_control" in b for b in m["content"])]
        assert markers == [len(sent["messages"]) - 1], "the marker where the client put it, and nowhere else"
        forwarded.append(without_cache_control(claude.messages()[-1].json["messages"]))
    round_trip = [r.json["messages"] for r in claude.messages()]
    assert len(round_trip) == 5, "turn 1 ran one proxy tool round"
    for before, after in itertools.pairwise(forwarded):
        text_before = json.dumps(before)[:-1]
        assert json.dumps(after).startswith(text_before), "each forwarded prompt extends the previous one"
    proxy_round = forwarded[1][1:3]
    assert proxy_round[0]["content"][0]["name"] == "read_skill_file", "the proxy's tool round is replayed"
    assert proxy_round[1]["content"][0]["type"] == "tool_result"
    assert "<routed_skills>" in json.dumps(forwarded[3][0])
    assert forwarded[3][-1]["content"][0]["text"].startswith("<skills_runtime_reminder")


# ---- server-mode tools -----------------------------------------------------------------------

@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_proxy_runs_its_tools_and_the_sdk_sees_only_the_answer(start, claude, stream):
    proxy = start()
    client = sdk(proxy)
    request = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": SQL}]}
    if stream:
        with client.messages.stream(**request) as events:
            kinds = [e.type for e in events]
            message = events.get_final_message()
        assert kinds.count("message_start") == 1 and kinds.count("message_stop") == 1
    else:
        message = client.messages.create(**request)
    assert "".join(b.text for b in message.content if b.type == "text").endswith(FINAL)
    assert all(b.type == "text" for b in message.content) and message.stop_reason == "end_turn"
    assert len(claude.messages()) == 3
    first, second, third = (r.json for r in claude.messages())
    assert {t["name"] for t in first["tools"]} >= set(TOOL_NAMES)
    assert {"name", "description", "input_schema"} == set(first["tools"][0])
    call, result = second["messages"][-2:]
    assert call["content"][-1]["type"] == "tool_use" and call["content"][-1]["id"].startswith("call_skp_")
    assert result["content"][0]["content"] == (REPO / "skills/sql-query-tuning/SKILL.md").read_text()
    assert message.id == "msg_round_1", "one message id: the first round's"
    inputs = [len(json.dumps(r["messages"])) // 4 for r in (first, second, third)]
    assert message.usage.input_tokens == sum(inputs) and message.usage.output_tokens == 21
    assert message.usage.cache_read_input_tokens == 9


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_mixed_calls_the_client_gets_only_its_own_tool_use(start, claude, stream):
    proxy = start()
    mixed = {"content": "Checking.", "calls": [
        {"name": "read_skill_file", "arguments": {"skill": "sql-query-tuning"}},
        {"name": "get_weather", "arguments": {"city": "Paris"}}]}
    client = sdk(proxy, **script(mixed, {"answer": "Sunny, and add an index."}))
    request = {"model": "m", "max_tokens": 64, "tools": [WEATHER], "messages": [{"role": "user", "content": SQL}]}
    if stream:
        with httpx.stream("POST", proxy.url + "/v1/messages", json={**request, "stream": True},
                          headers=script(mixed)) as response:
            raw = b"".join(response.iter_bytes()).decode()
        assert "read_skill_file" not in raw and "call_skp_" not in raw
        indexes = [json.loads(line[6:]).get("index") for line in raw.splitlines()
                   if line.startswith("data: ") and '"content_block_start"' in line]
        assert indexes == [0, 1], "block indexes without a gap where the proxy's tool_use was"
        with client.messages.stream(**request) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**request)
    uses = [b for b in message.content if b.type == "tool_use"]
    assert [(u.name, u.input) for u in uses] == [("get_weather", {"city": "Paris"})]
    assert message.stop_reason == "tool_use"
    follow_up = [{"role": "user", "content": SQL},
                 {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uses[0].id,
                                               "content": "sunny"}]}]
    answer = client.messages.create(model="m", max_tokens=64, tools=[WEATHER], messages=follow_up)
    assert answer.content[0].text == "Sunny, and add an index."
    sent = claude.messages()[-1].json["messages"]
    whole, ours, theirs = sent[1], sent[2], sent[3]
    assert [b["name"] for b in whole["content"] if b["type"] == "tool_use"] == ["read_skill_file", "get_weather"]
    assert ours["content"][0]["content"].startswith("---\nname: sql-query-tuning")
    assert theirs == follow_up[2]


def test_tool_choice_none_and_an_upstream_that_refuses_tools_get_inline_mode(start, claude, logs):
    proxy = start()
    body = {"model": "m", "max_tokens": 64, "tool_choice": {"type": "none"}, "messages": [user(SQL)]}
    assert post(proxy, body, **ANSWER).status_code == 200
    assert "tools" not in claude.messages()[-1].json
    assert claude.messages()[-1].json["tool_choice"] == {"type": "none"}
    refused = post(proxy, {"model": "refuses-tools", "max_tokens": 64, "messages": [user(SQL)]}, **ANSWER)
    assert refused.status_code == 200 and refused.json()["content"][0]["text"] == "Done."
    assert claude.messages()[-2].json.get("tools") and "tools" not in claude.messages()[-1].json
    assert logs.wait_for("upstream_rejected_tools")["now_using"] == "inline"


# ---- streams -----------------------------------------------------------------------------------

def test_a_stream_without_a_proxy_round_is_the_upstreams_own_events(start, claude):
    proxy = start()
    with httpx.stream("POST", proxy.url + "/v1/messages?beta=true", headers=ANSWER,
                      json={"model": "m", "max_tokens": 64, "stream": True, "messages": [user("hello")]}) as response:
        raw = b"".join(response.iter_bytes())
    assert response.headers["content-type"].startswith("text/event-stream")
    assert raw.split(b"\n\n")[0].startswith(b"event: message_start")
    assert b"event: ping" in raw and raw.rstrip().endswith(b'data: {"type": "message_stop"}')
    assert claude.messages()[-1].query == "beta=true", "the query reaches the upstream"


def test_an_error_mid_stream_reaches_the_sdk_as_an_anthropic_error_event(start, claude):
    proxy = start()
    with pytest.raises(anthropic.APIStatusError) as caught, sdk(proxy).messages.stream(
            model="error-midstream", max_tokens=64, messages=[{"role": "user", "content": "hello"}]) as events:
        for _ in events:
            pass
    assert "Overloaded" in str(caught.value)


# ---- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, status", [
    (b"[1, 2]", 400), (b"{not json", 400), (b'{"model": "m"}', 400), (b'{"model": "m", "messages": "hi"}', 400)])
def test_bad_bodies_get_a_4xx_in_anthropics_shape(start, body, status):
    proxy = start()
    for path in ("/v1/messages", "/v1/messages/count_tokens"):
        response = httpx.post(proxy.url + path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == status
        error = response.json()
        assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
        assert error["error"]["message"]


def test_the_sdk_reads_a_bad_request_as_its_own_error(start):
    with pytest.raises(anthropic.BadRequestError) as caught:
        sdk(start()).messages.create(model="m", max_tokens=64, messages="not a list")  # type: ignore[arg-type]
    assert caught.value.status_code == 400 and caught.value.body["error"]["type"] == "invalid_request_error"


def test_an_upstream_that_is_down_gives_a_502_in_anthropics_shape(start_proxy):
    proxy = start_proxy(upstream="http://127.0.0.1:9/v1")
    response = post(proxy, {"model": "m", "max_tokens": 64, "messages": [user("hello")]})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["type"] == "api_error" and "is the model server running" in error["message"]


def test_an_upstream_error_answer_passes_in_anthropics_shape(start, claude):
    response = post(start(), {"model": "overloaded", "max_tokens": 64, "messages": [user("hello")]})
    assert response.status_code == 529
    assert response.json() == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


# ---- auth ----------------------------------------------------------------------------------------

def test_x_api_key_is_accepted_refused_and_never_forwarded(start, claude, logs):
    proxy = start(api_keys=(TEST_API_KEY,), upstream_api_key=TEST_UPSTREAM_KEY)
    body = {"model": "m", "max_tokens": 64, "messages": [user("hello")]}
    message = sdk(proxy, api_key=TEST_API_KEY, **ANSWER).messages.create(**body)
    assert message.content[0].text == "Done."
    sent = claude.messages()[-1]
    assert sent.header("x-api-key") == TEST_UPSTREAM_KEY, "the upstream gets its own key, not the proxy's"
    assert sent.header("authorization") == f"Bearer {TEST_UPSTREAM_KEY}"
    assert sent.header("anthropic-version"), "anthropic-version passes through"
    beta = post(proxy, body, **{"authorization": f"Bearer {TEST_API_KEY}", "anthropic-beta": "tools-2024",
                                **ANSWER})
    assert beta.status_code == 200 and claude.messages()[-1].header("anthropic-beta") == "tools-2024"
    with pytest.raises(anthropic.AuthenticationError) as caught:
        sdk(proxy, api_key="sk-ant-wrong").messages.create(**body)
    assert caught.value.body["error"]["type"] == "authentication_error"
    assert post(proxy, body, **{"x-api-key": ""}).status_code == 401


# ---- count_tokens ---------------------------------------------------------------------------------

def test_count_tokens_counts_what_the_model_will_really_get(start, claude):
    proxy = start()
    client = sdk(proxy)
    messages = [{"role": "user", "content": "$conventional-commits fix token expiry in login"}]
    count = client.messages.count_tokens(model="m", messages=messages)
    sent = claude.received[-1]
    assert sent.path == "/v1/messages/count_tokens"
    assert sent.json["messages"][0]["content"].startswith("<skill_invocation_packet")
    assert {t["name"] for t in sent.json["tools"]} >= set(TOOL_NAMES)
    assert count.input_tokens == len(sent.body) // 4
    client.messages.create(model="m", max_tokens=64, messages=messages, extra_headers=ANSWER)
    after = post(proxy, {"model": "m", "messages": [*messages, {"role": "assistant", "content": "ok"},
                                                    {"role": "user", "content": "thanks"}]},
                 path="/v1/messages/count_tokens")
    assert after.status_code == 200
    counted = claude.received[-1].json["messages"]
    assert counted[0] == claude.messages()[-1].json["messages"][0], "the history counted as it is replayed"


def test_count_tokens_counts_without_the_proxys_tools_once_the_model_refused_them(start, claude):
    proxy = start()
    body = {"model": "refuses-tools", "max_tokens": 64, "messages": [user(SQL)]}
    assert post(proxy, body, **ANSWER).status_code == 200  # refused, then answered inline
    assert post(proxy, body, path="/v1/messages/count_tokens").status_code == 200
    sent = claude.received[-1]
    assert sent.path == "/v1/messages/count_tokens" and "tools" not in sent.json, "counted as it is now sent"


# ---- metrics and inspect ---------------------------------------------------------------------------

def test_metrics_and_the_inspect_api_name_the_messages_surface(start, claude):
    proxy = start()
    post(proxy, {"model": "m", "max_tokens": 64, "messages": [user(SQL)]}, **ANSWER)
    metrics = httpx.get(proxy.url + "/metrics").text
    assert 'surface="messages"' in metrics
    entries = httpx.get(proxy.url + "/_skillproxy/api/requests").json()["data"]
    assert [e.get("surface") for e in entries if e.get("path") == "/v1/messages"] == ["messages"]
