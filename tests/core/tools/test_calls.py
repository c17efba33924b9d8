"""Splitting calls, the rounds as neutral values, summing usage, choosing the tool mode."""

from __future__ import annotations

import itertools

import pytest

from proxy.core.tools.calls import ToolCall, add_usage, split_calls, with_own_ids
from proxy.core.tools.rounds import CallResult, ToolRound, ToolRounds
from proxy.core.tools.tool_mode import rejects_tools, tool_mode_for
from tests.core.tools.echo_tools import EchoTools


def test_split_and_own_ids():
    calls = [ToolCall("c0", "read_skill_file", "{}", 0), ToolCall("c1", "get_weather", "{}", 1)]
    mine, theirs = split_calls(calls, frozenset({"read_skill_file"}))
    assert [c.id for c in mine] == ["c0"] and [c.id for c in theirs] == ["c1"]
    counter = itertools.count()
    assert [c.id for c in with_own_ids(mine * 2, lambda: f"skp_{next(counter)}")] == ["skp_0", "skp_1"]


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


def test_a_round_runs_our_calls_under_our_ids_and_keeps_text_calls_and_results():
    ids = itertools.count()
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 2, lambda: f"skp_{next(ids)}")
    events = rounds.run("thinking", [ToolCall("call_0", "list_skills", "{}")])
    assert events == [{"event": "skill_tool_call", "round": 1, "call_id": "skp_0", "tool": "list_skills", "ok": True}]
    own = ToolCall("skp_0", "list_skills", "{}")
    assert rounds.exchange == [ToolRound("thinking", (own,), (CallResult(own, "list_skills:{}"),))]
    assert (rounds.rounds, rounds.calls, rounds.capped, rounds.mixed) == (1, 1, False, None)


def test_rounds_are_capped_once_the_last_allowed_round_ran():
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 2, lambda: "skp")
    rounds.run(None, [ToolCall("c0", "list_skills", "{}")])
    assert not rounds.capped
    rounds.run(None, [ToolCall("c0", "list_skills", "{}"), ToolCall("c1", "list_skills", "{}")])
    assert rounds.capped and (rounds.rounds, rounds.calls) == (2, 3)


def test_a_mixed_answer_keeps_the_models_call_order_and_only_our_results():
    rounds = ToolRounds(EchoTools(), frozenset({"list_skills"}), 6, lambda: "skp")
    theirs = ToolCall("c0", "get_weather", "{}", 0)
    rounds.run_mixed(None, [ToolCall("c1", "list_skills", "{}", 1)], [theirs])
    assert rounds.mixed is not None and rounds.exchange == []
    assert [c.id for c in rounds.mixed.answer.calls] == ["c0", "skp"]
    assert [r.call.id for r in rounds.mixed.answer.results] == ["skp"]
    assert rounds.mixed.client_call_ids == ("c0",) and rounds.rounds == 1
