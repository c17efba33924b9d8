"""Chat Completions messages to the neutral conversation and back: untouched turns are the client's objects."""

from __future__ import annotations

import json

from proxy.core.turns.conversation import OpaquePart, Role, TextForm, ToolCallPart, ToolResultPart
from proxy.core.turns.turn_text import prepend_block, with_system_text
from proxy.surfaces.chat_messages import CHAT_MESSAGES, read_messages

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}, "detail": "low"}
MESSAGES = [
    {"content": "be brief", "role": "developer", "name": "ops"},
    {"role": "user", "content": [IMAGE, {"text": "what is this?", "type": "text", "cache_control": {"x": 1}}]},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "a cat"},
    {"role": "user", "content": "thanks \ud83d", "weird": [1, 2]},
]


def test_an_untouched_conversation_is_written_back_as_the_clients_own_objects():
    conversation = read_messages(MESSAGES)
    written = conversation.written()
    assert written == MESSAGES and all(a is b for a, b in zip(written, MESSAGES))


def test_turns_are_read_into_text_opaque_tool_call_and_tool_result_parts():
    conversation = read_messages(MESSAGES)
    assert conversation.system is not None and conversation.system.role == Role.SYSTEM
    user, assistant, tool, last = conversation.turns
    assert user.form == TextForm.PARTS and isinstance(user.parts[0], OpaquePart) and user.text == "what is this?"
    assert assistant.form == TextForm.NONE and assistant.call_ids == ("c1",)
    assert isinstance(assistant.parts[0], ToolCallPart) and assistant.parts[0].name == "look"
    assert tool.answers_tools and not tool.is_user and isinstance(tool.parts[-1], ToolResultPart)
    assert last.is_user and last.text == "thanks \ud83d"


def test_a_rewritten_turn_keeps_its_keys_in_order_and_its_other_parts_as_they_were():
    user = read_messages(MESSAGES).turns[0]
    written = CHAT_MESSAGES.write_turn(prepend_block(user, "B"))
    assert list(written) == ["role", "content"] and written["content"][0] is IMAGE
    assert list(written["content"][1]) == ["text", "type", "cache_control"]
    assert written["content"][1]["text"].startswith("B\n\n---\n\nwhat is this?")
    last = CHAT_MESSAGES.write_turn(prepend_block(read_messages(MESSAGES).turns[-1], "B"))
    assert list(last) == ["role", "content", "weird"] and last["weird"] is MESSAGES[-1]["weird"]


def test_system_text_joins_the_leading_system_turn_or_makes_one():
    joined = with_system_text(read_messages(MESSAGES), "INDEX").written()
    assert joined[0] == {"content": "be brief\n\nINDEX", "role": "developer", "name": "ops"}
    assert joined[1:] == MESSAGES[1:]
    made = with_system_text(read_messages(MESSAGES[1:]), "INDEX").written()
    assert made[0] == {"role": "system", "content": "INDEX"} and made[1:] == MESSAGES[1:]
    parts = with_system_text(read_messages([{"role": "system", "content": [IMAGE]}]), "I").written()
    assert parts == [{"role": "system", "content": [IMAGE, {"type": "text", "text": "I"}]}]


def test_anything_but_a_list_of_messages_goes_back_as_sent():
    for odd in (None, "nope", [], {"role": "user"}):
        conversation = read_messages(odd)
        assert conversation.is_empty and conversation.written() is odd
    odd_items = [None, 3, "x", {"role": 7, "content": {"a": 1}}]
    assert json.dumps(read_messages(odd_items).written()) == json.dumps(odd_items)


def test_a_null_content_is_not_the_proxys_to_rewrite():
    user = read_messages([{"role": "user", "content": None}]).turns[0]
    assert prepend_block(user, "B") is user and user.text == ""
