"""The tool exchange in Chat Completions JSON: our tools in the body, calls read, rounds written as messages."""

from __future__ import annotations

import itertools
import json

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import CallResult, MixedRound, ToolRound, ToolRounds
from proxy.core.turns.record_json import decode_record, encode_record
from proxy.core.turns.records import MixedCall, TurnRecord
from proxy.surfaces.chat_tool_format import CHAT_TOOL_FORMAT as FORMAT
from proxy.surfaces.chat_tool_format import function_name
from tests.core.tools.echo_tools import EchoTools


def tool(name: str, description: str = "") -> dict:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {}}}


OURS = [tool("list_skills"), tool("read_skill_file"), tool("list_skill_files")]


def test_our_tools_go_after_the_clients_and_a_clash_is_the_clients():
    body = {"messages": [], "tools": [tool("get_weather"), tool("read_skill_file", "client's")]}
    added, names = FORMAT.add_tools(body, OURS)
    assert [t["function"]["name"] for t in added["tools"]] == ["get_weather", "read_skill_file", "list_skills",
                                                               "list_skill_files"]
    assert added["tools"][1]["function"]["description"] == "client's"
    assert names == frozenset({"list_skills", "list_skill_files"})
    assert body["tools"] == [tool("get_weather"), tool("read_skill_file", "client's")], "not mutated"


def test_no_tools_added_when_every_name_is_taken():
    body = {"tools": OURS}
    assert FORMAT.add_tools(body, OURS) == (body, frozenset())


def test_removing_our_tools_drops_tools_and_tool_choice_when_none_is_left():
    body, names = FORMAT.add_tools({"messages": [], "tool_choice": "auto"}, OURS)
    assert FORMAT.remove_tools(body, names) == {"messages": []}
    with_client = FORMAT.add_tools({"tools": [tool("x")], "tool_choice": "auto"}, OURS)[0]
    assert FORMAT.remove_tools(with_client, names) == {"tools": [tool("x")], "tool_choice": "auto"}


def test_calls_in_a_message_in_order_with_object_arguments_as_json():
    message = {"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {"x": 1}}},
                              {"id": "b", "function": {"name": "g", "arguments": "{}"}}, "junk"]}
    calls = FORMAT.calls_in_message(message)
    assert calls == [ToolCall("a", "f", '{"x": 1}', 0), ToolCall("b", "g", "{}", 1)]
    assert FORMAT.calls_in_message({"content": "hi"}) == [] and FORMAT.calls_in_message(None) == []


def test_a_function_name_is_read_from_a_definition_or_a_call_and_nothing_else():
    assert function_name(tool("list_skills")) == "list_skills"
    assert function_name({"function": {"name": 3}}) is None and function_name("list_skills") is None


def test_exchange_messages():
    call = ToolCall("skp_1", "read_skill_file", '{"skill":"a"}')
    assert FORMAT.assistant_message("", [call]) == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "skp_1", "type": "function", "function": {"name": "read_skill_file", "arguments": '{"skill":"a"}'}}]}
    assert FORMAT.tool_message(CallResult(call, "text")) == {"role": "tool", "tool_call_id": "skp_1",
                                                               "content": "text"}


def test_each_round_is_its_assistant_message_then_its_results_in_order():
    a, b, c = (ToolCall(f"skp_{n}", "read_skill_file", "{}", n) for n in range(3))
    exchange = [ToolRound("looking", (a, b), (CallResult(a, "A"), CallResult(b, "B"))),
                ToolRound(None, (c,), (CallResult(c, "C"),))]
    messages = FORMAT.exchange_messages(exchange)
    assert [(m["role"], m.get("tool_call_id")) for m in messages] == [
        ("assistant", None), ("tool", "skp_0"), ("tool", "skp_1"), ("assistant", None), ("tool", "skp_2")]
    assert messages[0]["content"] == "looking" and messages[3]["content"] is None
    assert [p["id"] for p in messages[0]["tool_calls"]] == ["skp_0", "skp_1"]
    assert json.dumps(messages[1]) == '{"role": "tool", "tool_call_id": "skp_0", "content": "A"}', "key order kept"


def test_tool_rounds_run_records_and_withdraws_our_tools_at_the_cap():
    ids = itertools.count()
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 1, lambda: f"skp_{next(ids)}")
    base = {"messages": [{"role": "user", "content": "q"}], "tools": [tool("list_skills")]}
    events = rounds.run("thinking", [ToolCall("call_0", "list_skills", "{}")])
    assert events == [{"event": "skill_tool_call", "round": 1, "call_id": "skp_0", "tool": "list_skills", "ok": True}]
    exchange = FORMAT.exchange_messages(rounds.exchange)
    assert exchange[1] == {"role": "tool", "tool_call_id": "skp_0", "content": "list_skills:{}"}
    assert rounds.capped and "tools" not in FORMAT.next_request(base, rounds)
    assert FORMAT.next_request(base, rounds)["messages"] == base["messages"] + exchange


def test_before_the_cap_the_next_request_keeps_every_tool_and_the_client_body():
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 3, lambda: "skp")
    base = {"model": "m", "messages": [{"role": "user", "content": "q"}], "tools": [tool("list_skills")],
            "tool_choice": "auto"}
    rounds.run(None, [ToolCall("c0", "list_skills", "{}")])
    request = FORMAT.next_request(base, rounds)
    assert {k: v for k, v in request.items() if k != "messages"} == {k: v for k, v in base.items() if k != "messages"}
    assert len(request["messages"]) == 3 and base["messages"] == [{"role": "user", "content": "q"}], "not mutated"


def test_a_mixed_answer_keeps_the_models_call_order():
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 6, lambda: "skp")
    theirs = ToolCall("c0", "get_weather", "{}", 0)
    rounds.run_mixed(None, [ToolCall("c1", "list_skills", "{}", 1)], [theirs])
    mixed = FORMAT.mixed_call(rounds.mixed)
    assert [c["id"] for c in mixed.assistant["tool_calls"]] == ["c0", "skp"]
    assert mixed.client_call_ids == ("c0",) and FORMAT.exchange_messages(rounds.exchange) == []


def test_the_record_holds_the_messages_the_next_request_carried():
    ids = itertools.count()
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 3, lambda: f"skp_{next(ids)}")
    base = {"messages": [{"role": "user", "content": "q"}]}
    rounds.run("first", [ToolCall("c0", "list_skills", '{"a":1}')])
    sent = FORMAT.next_request(base, rounds)["messages"][1:]
    rounds.run_mixed(None, [ToolCall("c0", "list_skills", "{}", 0)], [ToolCall("c1", "get_weather", "{}", 1)])
    exchange, mixed = FORMAT.recorded(rounds)
    assert json.dumps(exchange) == json.dumps(sent), "replayed byte for byte"
    assert mixed == MixedCall(
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "skp_1", "type": "function", "function": {"name": "list_skills", "arguments": "{}"}},
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        ({"role": "tool", "tool_call_id": "skp_1", "content": "list_skills:{}"},), ("c1",))


def test_a_recorded_exchange_is_stored_in_the_record_format_as_before():
    call = ToolCall("skp_0", "list_skills", "{}")
    exchange, mixed = FORMAT.exchange_messages([ToolRound("x", (call,), (CallResult(call, "r"),))]), None
    record = TurnRecord({"role": "user", "content": "q"}, "routed", tool_exchange=tuple(exchange), mixed_call=mixed)
    payload = encode_record(record)
    assert b'"tool_exchange":[{"role":"assistant","content":"x","tool_calls":[{"id":"skp_0","type":"function",' \
           b'"function":{"name":"list_skills","arguments":"{}"}}]},{"role":"tool","tool_call_id":"skp_0",' \
           b'"content":"r"}]' in payload
    assert decode_record(payload) == record


def test_a_mixed_round_without_text_is_written_with_null_content():
    call = ToolCall("skp_0", "list_skills", "{}")
    mixed = MixedRound(ToolRound("", (call,), (CallResult(call, "r"),)), ())
    assert FORMAT.mixed_call(mixed).assistant["content"] is None
