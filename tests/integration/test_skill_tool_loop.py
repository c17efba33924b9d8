"""The proxy runs its skill tools for the model, invisibly to the client.

The real skill engine over the project's skills/, the real proxy, a scripted
tool-calling model (scripted_model.py) as the upstream, the openai SDK and
raw httpx as clients. Assertions are on what the client got and on every
request the upstream received.
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from proxy.core.tools.skill_tools import TOOL_NAMES
from tests.conftest import REPO

from .engines import real_engine as engine_for

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
FINAL = "I read the skill and its files. Here is the answer."


def client_for(running, **headers) -> openai.OpenAI:
    return openai.OpenAI(base_url=running.base_url, api_key="sk-test", max_retries=0, default_headers=headers)


def ask(text: str = SQL) -> list[dict]:
    return [{"role": "user", "content": text}]


def script(*steps) -> dict[str, str]:
    return {"x-fake-script": json.dumps(list(steps))}


def read(skill: str, path: str | None = None) -> dict:
    arguments = {"skill": skill} if path is None else {"skill": skill, "path": path}
    return {"calls": [{"name": "read_skill_file", "arguments": arguments}]}


def tool_names(recorded) -> list[str]:
    return [t["function"]["name"] for t in recorded.json.get("tools", [])]


def tool_results(recorded) -> list[str]:
    return [m["content"] for m in recorded.json["messages"] if m["role"] == "tool"]


# ---- the whole loop, both ways -----------------------------------------------------------

def test_non_stream_the_model_reads_the_skill_and_the_client_sees_only_the_answer(running, upstream, logs):
    response = client_for(running).chat.completions.create(model="scripted", messages=ask())
    assert response.choices[0].message.content == FINAL
    assert response.choices[0].message.tool_calls is None and response.choices[0].finish_reason == "stop"
    first, second, third = (upstream.wait_for_request(n) for n in (1, 2, 3))
    assert len(upstream.received) == 3
    assert response.id == "chatcmpl-round-1", "one response id: the first round's"
    rounds_usage = [scripted_usage(r) for r in (first, second, third)]
    assert response.usage.prompt_tokens == sum(u["prompt_tokens"] for u in rounds_usage)
    assert response.usage.completion_tokens == 21
    assert set(TOOL_NAMES) <= set(tool_names(first))
    call = second.json["messages"][-2]
    assert call["role"] == "assistant" and call["content"] == "Let me read the skill."
    assert call["tool_calls"][0]["id"].startswith("call_skp_"), "the proxy's own call ids"
    skill_text = (REPO / "skills/sql-query-tuning/SKILL.md").read_text()
    assert tool_results(second) == [skill_text]
    listing = json.loads(tool_results(third)[-1])
    assert {f["path"] for f in listing["files"]} >= {"SKILL.md", "scripts/explain_summary.py",
                                                      "references/index-cheatsheet.md"}
    ids = [m["tool_call_id"] for m in third.json["messages"] if m["role"] == "tool"]
    assert len(set(ids)) == 2, "every round's call gets a new id even though the model reused call_0"
    calls = logs.events("skill_tool_call")
    assert [(c["tool"], c["skill"], c["ok"]) for c in calls] == [
        ("read_skill_file", "sql-query-tuning", True), ("list_skill_files", "sql-query-tuning", True)]
    line = logs.wait_for("request", path="/v1/chat/completions")
    assert line["tool_rounds"] == 2 and line["tool_calls"] == 2
    assert line["tool_mode"] == "server" and line["skill_tools"] is True


def scripted_usage(recorded) -> dict:
    prompt = len(json.dumps(recorded.json["messages"])) // 4
    return {"prompt_tokens": prompt}


@pytest.mark.parametrize("whole", [False, True], ids=["deltas", "whole-call-in-one-delta"])
def test_stream_content_of_every_round_arrives_and_tool_calls_never_do(running, upstream, whole):
    headers = {"x-fake-whole": "1"} if whole else {}
    stream = client_for(running, **headers).chat.completions.create(
        model="scripted", messages=ask(), stream=True, stream_options={"include_usage": True})
    chunks = list(stream)
    assert {c.id for c in chunks} == {"chatcmpl-round-1"}
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Let me read the skill." + FINAL
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["stop"]
    usage = [c.usage for c in chunks if c.usage]
    assert len(usage) == 1 and chunks[-1].usage is usage[0]
    expected = sum(scripted_usage(upstream.received[n])["prompt_tokens"] for n in range(3))
    assert usage[0].prompt_tokens == expected and usage[0].completion_tokens == 21
    assert tool_results(upstream.received[1]) == [(REPO / "skills/sql-query-tuning/SKILL.md").read_text()]


def test_stream_has_one_done_and_no_usage_unless_asked(running, upstream):
    body = {"model": "scripted", "messages": ask(), "stream": True}
    with httpx.stream("POST", running.base_url + "/chat/completions", json=body) as response:
        raw = b"".join(response.iter_bytes())
    events = [e for e in raw.split(b"\n\n") if e.strip()]
    assert events[-1] == b"data: [DONE]" and raw.count(b"[DONE]") == 1
    assert b'"usage"' not in raw and b"call_skp_" not in raw and b"read_skill_file" not in raw


# ---- client tools ------------------------------------------------------------------------

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
CLIENT_READ = {"type": "function", "function": {"name": "read_skill_file", "description": "the client's own",
                                                "parameters": {"type": "object"}}}


def test_client_tools_are_kept_and_a_clashing_name_stays_the_clients(running, upstream):
    client = client_for(running, **script(read("sql-query-tuning")))
    response = client.chat.completions.create(model="scripted", messages=ask(), tools=[WEATHER, CLIENT_READ])
    assert tool_names(upstream.received[0]) == ["get_weather", "read_skill_file", "list_skills", "list_skill_files"]
    assert upstream.received[0].json["tools"][1] == CLIENT_READ
    assert len(upstream.received) == 1, "read_skill_file is the client's here: the proxy does not run it"
    assert response.choices[0].finish_reason == "tool_calls"
    assert response.choices[0].message.tool_calls[0].function.name == "read_skill_file"


MIXED = {"content": "Checking.", "calls": [{"name": "read_skill_file", "arguments": {"skill": "sql-query-tuning"}},
                                           {"name": "get_weather", "arguments": {"city": "Paris"}}]}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_mixed_calls_the_client_gets_its_own_and_the_replay_restores_ours(running, upstream, stream):
    client = client_for(running, **script(MIXED, {"answer": "Sunny, and add an index."}))
    messages = ask()
    if stream:
        chunks = list(client.chat.completions.create(model="scripted", messages=messages, tools=[WEATHER],
                                                     stream=True))
        parts = [t for c in chunks if c.choices for t in c.choices[0].delta.tool_calls or []]
        assert [(p.index, p.function.name) for p in parts if p.function and p.function.name] == [(0, "get_weather")]
        call_id = next(p.id for p in parts if p.id)
        finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
        assert finish == ["tool_calls"]
    else:
        completion = client.chat.completions.create(model="scripted", messages=messages, tools=[WEATHER])
        message = completion.choices[0].message
        assert [c.function.name for c in message.tool_calls] == ["get_weather"]
        call_id = message.tool_calls[0].id
    assert call_id == "call_1", "the client's call keeps the model's id"
    assert len(upstream.received) == 1
    messages += [{"role": "assistant", "content": "Checking.", "tool_calls": [
                     {"id": call_id, "type": "function",
                      "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
                 {"role": "tool", "tool_call_id": call_id, "content": "sunny"}]
    answer = client.chat.completions.create(model="scripted", messages=messages, tools=[WEATHER])
    assert answer.choices[0].message.content == "Sunny, and add an index."
    sent = upstream.received[1].json["messages"]
    whole, ours, theirs = sent[1], sent[2], sent[3]
    assert [c["function"]["name"] for c in whole["tool_calls"]] == ["read_skill_file", "get_weather"]
    assert ours["role"] == "tool" and ours["tool_call_id"] == whole["tool_calls"][0]["id"]
    assert ours["content"].startswith("---\nname: sql-query-tuning")
    assert theirs == {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}


# ---- limits and failures -----------------------------------------------------------------

def test_a_model_that_never_stops_calling_tools_is_stopped_at_the_cap(start_proxy, upstream, logs):
    engine = engine_for()
    proxy = start_proxy(engine=engine, max_tool_rounds=2)
    response = httpx.post(proxy.base_url + "/chat/completions", json={"model": "tool-looper", "messages": ask()})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "tool_rounds_exceeded" and "max_tool_rounds" in error["message"]
    assert len(upstream.received) == 3
    assert "tools" not in upstream.received[2].json, "the last round goes without the proxy's tools"
    assert logs.wait_for("tool_loop")["capped"] is True
    engine.close()


def test_a_looping_model_in_a_stream_ends_with_a_framed_error(start_proxy, upstream):
    engine = engine_for()
    proxy = start_proxy(engine=engine, max_tool_rounds=1)
    body = {"model": "tool-looper", "messages": ask(), "stream": True}
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=body) as response:
        raw = b"".join(response.iter_bytes())
    assert response.status_code == 200
    assert b'"code": "tool_rounds_exceeded"' in raw and raw.endswith(b"data: [DONE]\n\n")
    engine.close()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_an_upstream_failure_in_a_later_round_reaches_the_client(running, upstream, stream):
    client = client_for(running, **script(read("sql-query-tuning"), {"fail": 503}))
    if not stream:
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model="scripted", messages=ask())
        assert caught.value.status_code == 503 and "crashed" in caught.value.message
        return
    body = {"model": "scripted", "messages": ask(), "stream": True}
    with httpx.stream("POST", running.base_url + "/chat/completions", json=body,
                      headers=script(read("sql-query-tuning"), {"fail": 503})) as response:
        raw = b"".join(response.iter_bytes())
    assert b"HTTP 503" in raw and b"crashed" in raw and raw.endswith(b"data: [DONE]\n\n")


def test_refused_paths_and_unknown_skills_are_tool_errors_the_model_reads(running, upstream, logs):
    attack = {"calls": [{"name": "read_skill_file", "arguments": {"skill": "sql-query-tuning", "path": p}}
                        for p in ("../log-triage/SKILL.md", "/etc/passwd", "%2e%2e/x", "scripts/../../x")]
              + [{"name": "read_skill_file", "arguments": {"skill": "sql-query-tunning"}}]}
    client = client_for(running, **script(attack, {"answer": "ok"}))
    assert client.chat.completions.create(model="scripted", messages=ask()).choices[0].message.content == "ok"
    results = tool_results(upstream.received[1])
    assert all(r.startswith("error: path refused") for r in results[:4]), results
    assert "sql-query-tuning" in results[4] and results[4].startswith("error:")
    assert "log-triage" not in "".join(results[:4]).split("refused")[0]
    assert [e["ok"] for e in logs.events("skill_tool_call")] == [False] * 5


def test_an_oversized_file_is_cut_to_the_cap(start_proxy, upstream, make_skill, tmp_path):
    folder = make_skill("big-manual", "Explain the big manual to people who ask about it.")
    (folder / "references").mkdir()
    (folder / "references" / "manual.md").write_text("start\n" + "x" * 50_000 + "\nend\n")
    engine = engine_for(roots=(str(folder.parent),), max_skill_file_bytes=4096)
    proxy = start_proxy(engine=engine)
    client = client_for(proxy, **script(read("big-manual", "references/manual.md"), {"answer": "ok"}))
    client.chat.completions.create(model="scripted", messages=ask("what is in the big manual?"))
    result = tool_results(upstream.received[1])[0]
    assert len(result) < 5000 and result.startswith("start") and result.rstrip().endswith("end")
    assert "bytes omitted" in result
    engine.close()


# ---- other tool modes --------------------------------------------------------------------

def test_an_upstream_that_rejects_tools_gets_the_request_again_inline(running, upstream, logs):
    client = client_for(running)
    first = client.chat.completions.create(model="tools-refused", messages=ask())
    assert first.choices[0].message.content.startswith("echo: ")
    refused, retried = upstream.received
    assert "tools" in refused.json and "tools" not in retried.json
    assert "<expanded_skill_instructions" in retried.json["messages"][-1]["content"]
    assert logs.wait_for("upstream_rejected_tools")["model"] == "tools-refused"
    upstream.clear()
    client.chat.completions.create(model="tools-refused", messages=ask("and another slow query question"))
    assert len(upstream.received) == 1 and "tools" not in upstream.received[0].json, "remembered for the model"


@pytest.mark.parametrize("mode", ["inline", "client"])
def test_inline_and_client_modes_add_no_tools(start_proxy, upstream, mode):
    engine = engine_for(tool_mode=mode)
    proxy = start_proxy(engine=engine, tool_mode=mode)
    client_for(proxy).chat.completions.create(model="json", messages=ask())
    sent = upstream.last().json
    assert "tools" not in sent
    text = sent["messages"][-1]["content"]
    assert ("<expanded_skill_instructions" in text) == (mode == "inline")
    assert ("read_skill_file" in text) is False
    if mode == "client":
        assert "skills/sql-query-tuning" in text and "your own file tools" in text
    engine.close()


# ---- conversation continuity -------------------------------------------------------------

def test_three_turns_with_tool_rounds_forward_prompts_that_extend_each_other(running, upstream):
    """Every forwarded prompt starts with the previous one, message for message, byte for byte."""
    client = client_for(running)
    turns = [
        (SQL, [read("sql-query-tuning"), {"answer": "Add an index on (user_id, created_at)."}]),
        ("and the same query is still slow with the index, EXPLAIN shows a seq scan again",
         [read("sql-query-tuning", "references/index-cheatsheet.md"), {"answer": "Run ANALYZE."}]),
        ("write a conventional commit message for adding that index",
         [read("conventional-commits"), {"answer": "perf(db): add index"}]),
    ]
    messages: list[dict] = []
    previous: list[dict] | None = None
    routes: list[str] = []
    for number, (text, steps) in enumerate(turns):
        upstream.clear()
        messages.append({"role": "user", "content": text})
        raw = client.chat.completions.with_raw_response.create(model="scripted", messages=messages,
                                                               extra_headers=script(*steps))
        routes.append(raw.headers["x-skills-route"].split("=")[0])
        answer = raw.parse().choices[0].message.content
        forwarded = [r.json["messages"] for r in upstream.received]
        assert len(forwarded) == 2, f"turn {number + 1}: one tool round, then the answer"
        if previous is not None:
            assert_extends(forwarded[0], previous, f"turn {number + 1}")
        assert_extends(forwarded[1], forwarded[0], f"turn {number + 1}, round 2")
        first_tools = json.dumps(upstream.received[0].json["tools"])
        assert {json.dumps(r.json["tools"]) for r in upstream.received} == {first_tools}
        previous = forwarded[-1] + [{"role": "assistant", "content": answer}]
        messages.append({"role": "assistant", "content": answer})
    assert routes == ["sql-query-tuning", "reminder", "conventional-commits"]


def assert_extends(longer: list[dict], shorter: list[dict], where: str) -> None:
    def canonical(message):
        return json.dumps(message, ensure_ascii=False)

    assert len(longer) > len(shorter), where
    for index, (a, b) in enumerate(zip(longer, shorter)):
        assert canonical(a) == canonical(b), f"{where}: message {index} differs"


def test_round_one_arrives_unbuffered_and_a_client_leaving_stops_the_rounds(running, upstream):
    """The client reads round one's words before round two is asked for; leaving then ends the loop."""
    upstream.delay = 0.3
    try:
        body = {"model": "scripted", "messages": ask(), "stream": True}
        with httpx.stream("POST", running.base_url + "/chat/completions", json=body) as response:
            for line in response.iter_lines():
                if "Let" in line:
                    assert len(upstream.received) == 1
                    break
        assert upstream.received[0].closed_early.wait(5), "the upstream round was closed when the client left"
    finally:
        upstream.delay = 0.01
    assert len(upstream.received) == 1, "no further round after the client left"
    answer = client_for(running).chat.completions.create(model="scripted", messages=ask())
    assert answer.choices[0].message.content == FINAL


def test_an_empty_stream_in_the_tool_loop_becomes_a_framed_error(running, upstream):
    body = {"model": "sse-empty", "messages": ask(), "stream": True}
    with httpx.stream("POST", running.base_url + "/chat/completions", json=body) as response:
        raw = b"".join(response.iter_bytes())
    assert b'"code": "upstream_empty_stream"' in raw and raw.count(b"[DONE]") == 1
