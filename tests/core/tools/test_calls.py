"""Adding our tools, splitting calls, the exchange messages, summing usage, choosing the tool mode."""

from __future__ import annotations

import itertools
from typing import ClassVar

import pytest

from proxy.core.tools.calls import (
    ToolCall,
    add_tools,
    add_usage,
    assistant_message,
    calls_in_message,
    remove_tools,
    split_calls,
    tool_message,
    with_own_ids,
)
from proxy.core.tools.rounds import ToolRounds
from proxy.core.tools.tool_mode import rejects_tools, tool_mode_for


def tool(name: str, description: str = "") -> dict:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {}}}


OURS = [tool("list_skills"), tool("read_skill_file"), tool("list_skill_files")]


def test_our_tools_go_after_the_clients_and_a_clash_is_the_clients():
    body = {"messages": [], "tools": [tool("get_weather"), tool("read_skill_file", "client's")]}
    added, names = add_tools(body, OURS)
    assert [t["function"]["name"] for t in added["tools"]] == ["get_weather", "read_skill_file", "list_skills",
                                                               "list_skill_files"]
    assert added["tools"][1]["function"]["description"] == "client's"
    assert names == frozenset({"list_skills", "list_skill_files"})
    assert body["tools"] == [tool("get_weather"), tool("read_skill_file", "client's")], "not mutated"


def test_no_tools_added_when_every_name_is_taken():
    body = {"tools": OURS}
    assert add_tools(body, OURS) == (body, frozenset())


def test_removing_our_tools_drops_tools_and_tool_choice_when_none_is_left():
    body, names = add_tools({"messages": [], "tool_choice": "auto"}, OURS)
    assert remove_tools(body, names) == {"messages": []}
    with_client = add_tools({"tools": [tool("x")], "tool_choice": "auto"}, OURS)[0]
    assert remove_tools(with_client, names) == {"tools": [tool("x")], "tool_choice": "auto"}


def test_calls_in_a_message_in_order_with_object_arguments_as_json():
    message = {"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {"x": 1}}},
                              {"id": "b", "function": {"name": "g", "arguments": "{}"}}, "junk"]}
    assert calls_in_message(message) == [ToolCall("a", "f", '{"x": 1}', 0), ToolCall("b", "g", "{}", 1)]
    assert calls_in_message({"content": "hi"}) == [] and calls_in_message(None) == []


def test_split_and_own_ids():
    calls = [ToolCall("c0", "read_skill_file", "{}", 0), ToolCall("c1", "get_weather", "{}", 1)]
    mine, theirs = split_calls(calls, frozenset({"read_skill_file"}))
    assert [c.id for c in mine] == ["c0"] and [c.id for c in theirs] == ["c1"]
    counter = itertools.count()
    assert [c.id for c in with_own_ids(mine * 2, lambda: f"skp_{next(counter)}")] == ["skp_0", "skp_1"]


def test_exchange_messages():
    call = ToolCall("skp_1", "read_skill_file", '{"skill":"a"}')
    assert assistant_message("", [call]) == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "skp_1", "type": "function", "function": {"name": "read_skill_file", "arguments": '{"skill":"a"}'}}]}
    assert tool_message(call, "text") == {"role": "tool", "tool_call_id": "skp_1", "content": "text"}


def test_usage_is_summed_field_by_field_including_details():
    a = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12,
         "prompt_tokens_details": {"cached_tokens": 4}}
    b = {"prompt_tokens": 15, "completion_tokens": 3, "total_tokens": 18,
         "prompt_tokens_details": {"cached_tokens": 10}, "extra": "x"}
    assert add_usage(a, b) == {"prompt_tokens": 25, "completion_tokens": 5, "total_tokens": 30,
                               "prompt_tokens_details": {"cached_tokens": 14}, "extra": "x"}
    assert add_usage(None, a) == a and add_usage(a, None) == a and add_usage(None, None) is None


@pytest.mark.parametrize(("body", "refused", "expected"), [
    ({"model": "m"}, set(), ("server", None)),
    ({"model": "m"}, {"m"}, ("inline", "the upstream rejected tools for this model earlier")),
    ({"model": "m", "n": 2}, set(), ("inline", "n > 1: the tool loop follows one choice only")),
    ({"model": "m", "n": 1}, set(), ("server", None)),
    ({"model": "m", "tool_choice": "none"}, set(), ("inline", 'the client set tool_choice "none"')),
    ({"model": "m", "functions": []}, set(), ("inline", "the request uses the legacy `functions` field")),
])
def test_tool_mode_for_a_request(body, refused, expected):
    assert tool_mode_for("server", body, refused) == expected


def test_configured_inline_or_client_modes_are_kept():
    assert tool_mode_for("client", {"n": 3}, set()) == ("client", None)
    assert tool_mode_for("inline", {}, set()) == ("inline", None)


@pytest.mark.parametrize(("status", "body", "expected"), [
    (400, b'{"error": {"message": "tools param requires --jinja flag"}}', True),
    (400, b'{"error": "this model does not support function calling"}', True),
    (422, b'{"detail": "tool_choice auto requires --enable-auto-tool-choice"}', True),
    (400, b'{"error": {"message": "context too long"}}', False),
    (404, b'{"error": {"message": "model with tools not found"}}', False),
    (429, b"too many tool requests", False),
    (500, b"tool crashed", False),
])
def test_rejects_tools(status, body, expected):
    assert rejects_tools(status, body) is expected


class _Tools:
    def call(self, name, arguments):
        class Result:
            content = f"{name}:{arguments}"
            event: ClassVar[dict[str, object]] = {"tool": name, "ok": True}
        return Result()


def test_tool_rounds_run_records_and_withdraws_our_tools_at_the_cap():
    ids = itertools.count()
    rounds = ToolRounds(_Tools(), frozenset({"list_skills"}), 1, lambda: f"skp_{next(ids)}")
    base = {"messages": [{"role": "user", "content": "q"}], "tools": [tool("list_skills")]}
    events = rounds.run("thinking", [ToolCall("call_0", "list_skills", "{}")])
    assert events == [{"event": "skill_tool_call", "round": 1, "call_id": "skp_0", "tool": "list_skills", "ok": True}]
    assert rounds.exchange[1] == {"role": "tool", "tool_call_id": "skp_0", "content": "list_skills:{}"}
    assert rounds.capped and "tools" not in rounds.request(base)
    assert rounds.request(base)["messages"] == base["messages"] + rounds.exchange


def test_a_mixed_answer_keeps_the_models_call_order():
    rounds = ToolRounds(_Tools(), frozenset({"list_skills"}), 6, lambda: "skp")
    theirs = ToolCall("c0", "get_weather", "{}", 0)
    rounds.run_mixed(None, [ToolCall("c1", "list_skills", "{}", 1)], [theirs])
    assert [c["id"] for c in rounds.mixed.assistant["tool_calls"]] == ["c0", "skp"]
    assert rounds.mixed.client_call_ids == ("c0",) and rounds.exchange == []
