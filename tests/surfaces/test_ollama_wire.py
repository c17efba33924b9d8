"""Ollama's `/api/chat` wire: messages to turns and back, a streamed round's lines, the error shape."""

from __future__ import annotations

import json

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import CallResult
from proxy.core.turns.conversation import Role, TextForm, TextPart, ToolCallPart, ToolResultPart
from proxy.errors import BadRequest
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS
from proxy.surfaces.ollama_messages import OLLAMA_MESSAGES, read_ollama_messages
from proxy.surfaces.ollama_stream_round import OllamaStreamRound, closing_lines
from proxy.surfaces.ollama_tool_format import OLLAMA_TOOL_FORMAT

CALL = {"id": "call_0", "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Oslo"}}}
MESSAGES = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "what is this?", "images": ["iVBORw0KGgo="], "x": [1]},
    {"role": "assistant", "content": "", "thinking": "hmm", "tool_calls": [CALL]},
    {"role": "tool", "content": "sunny", "tool_name": "get_weather"},
    {"role": "user", "content": "thanks"},
]


def line(data: dict) -> bytes:
    return json.dumps(data).encode() + b"\n"


def test_an_untouched_conversation_is_written_back_as_the_clients_own_objects():
    written = read_ollama_messages(MESSAGES).written()
    assert written == MESSAGES and all(a is b for a, b in zip(written, MESSAGES))


def test_turns_hold_the_text_the_calls_by_name_and_the_results_by_tool_name():
    conversation = read_ollama_messages(MESSAGES)
    assert conversation.system is not None and conversation.system.text == "be brief"
    user, assistant, tool, _ = conversation.turns
    assert user.is_user and user.form == TextForm.PLAIN and user.text == "what is this?"
    assert assistant.parts[-1] == ToolCallPart("get_weather", "get_weather", {"city": "Oslo"}, CALL)
    assert tool.role == Role.TOOL and tool.answers_tools and not tool.is_user
    assert tool.parts[-1] == ToolResultPart("get_weather", "sunny")


def test_a_rewritten_turn_keeps_images_and_unknown_fields_in_place():
    conversation = read_ollama_messages(MESSAGES)
    turn = conversation.turns[0].with_parts([TextPart("<block>\nwhat is this?")], TextForm.PLAIN)
    written = OLLAMA_MESSAGES.write_turn(turn)
    assert list(written) == ["role", "content", "images", "x"]
    assert written["content"] == "<block>\nwhat is this?" and written["images"] == ["iVBORw0KGgo="]


def test_identity_leaves_out_what_the_official_client_drops_when_it_sends_an_answer_back():
    as_sent = MESSAGES[2]
    as_returned = {"role": "assistant", "tool_calls": [
        {"function": {"arguments": {"city": "Oslo"}, "name": "get_weather"}}]}
    assert OLLAMA_MESSAGES.identity(as_sent) == OLLAMA_MESSAGES.identity(as_returned)
    assert OLLAMA_MESSAGES.identity(MESSAGES[1]) != OLLAMA_MESSAGES.identity({**MESSAGES[1], "images": []})


def test_a_round_is_written_with_argument_objects_tool_names_and_the_proxys_own_ids():
    call = ToolCall("call_skp_1", "read_skill_file", '{"skill": "sql"}')
    assistant = OLLAMA_TOOL_FORMAT.assistant_message(None, [call, ToolCall("get_weather", "get_weather", "{}", 1)])
    assert assistant == {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_skp_1", "function": {"name": "read_skill_file", "arguments": {"skill": "sql"}}},
        {"function": {"name": "get_weather", "arguments": {}}}]}
    assert OLLAMA_TOOL_FORMAT.tool_message(CallResult(call, "text")) == {
        "role": "tool", "content": "text", "tool_name": "read_skill_file", "tool_call_id": "call_skp_1"}


def test_a_streamed_round_hides_the_proxys_calls_and_holds_the_done_line():
    round_ = OllamaStreamRound(frozenset({"read_skill_file"}))
    text = line({"message": {"role": "assistant", "content": "Hi"}, "done": False})
    assert round_.feed(text) == text, "a line the proxy need not touch goes out as the same bytes"
    both = {"message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "read_skill_file", "arguments": {"skill": "x"}}}, CALL]}, "done": False}
    out = json.loads(round_.feed(line(both)))
    assert out["message"]["tool_calls"] == [CALL]
    ours_only = {"message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "read_skill_file", "arguments": {}}}]}, "done": False}
    assert round_.feed(line(ours_only)) == b"", "a line left with nothing for the client is not sent"
    done = line({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
                 "prompt_eval_count": 10, "eval_count": 3})
    assert round_.feed(done) == b""
    assert round_.feed(b"not json\n") == b""
    outcome = round_.outcome()
    assert [c.name for c in outcome.calls] == ["read_skill_file", "get_weather", "read_skill_file"]
    assert outcome.usage == {"prompt_eval_count": 10, "eval_count": 3} and outcome.skipped == 1
    assert closing_lines(outcome, outcome.usage, one_round=True) == [done]
    summed = json.loads(closing_lines(outcome, {"prompt_eval_count": 25, "eval_count": 9}, one_round=False)[0])
    assert summed["prompt_eval_count"] == 25 and summed["eval_count"] == 9 and summed["done_reason"] == "stop"


def test_an_error_line_goes_out_as_it_came_and_marks_the_round():
    round_ = OllamaStreamRound(frozenset())
    error = b'{"error":"boom"}'
    assert round_.feed(error) == error + b"\n"
    assert round_.outcome().saw_error


def test_errors_are_one_string_under_error_and_an_upstreams_own_pass_as_they_came():
    assert json.loads(OLLAMA_ERRORS.answer(BadRequest("bad"))) == {"error": "bad"}
    assert OLLAMA_ERRORS.stream_frame(BadRequest("bad")) == b'{"error": "bad"}\n'
    own = {"error": "model 'x' not found", "extra": 1}
    assert OLLAMA_ERRORS.upstream_answer(404, json.dumps(own).encode(), "http://u") == own
    openai_shaped = json.dumps({"error": {"message": "no", "type": "x"}}).encode()
    assert OLLAMA_ERRORS.upstream_answer(400, openai_shaped, "http://u") == {"error": "no"}
    assert "HTML page" in OLLAMA_ERRORS.upstream_answer(502, b"<html><title>Bad</title></html>", "http://u")["error"]
