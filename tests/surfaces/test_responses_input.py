"""Responses `input` and `instructions` to the neutral conversation and back, and the Responses tool format."""

from __future__ import annotations

import pytest

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import CallResult, MixedRound, ToolRound, ToolRounds
from proxy.core.tools.skill_tools import tool_specs
from proxy.core.turns.conversation import OpaquePart, Role, TextForm, TextPart, ToolCallPart, ToolResultPart
from proxy.core.turns.records import turn_keys
from proxy.core.turns.turn_text import prepend_block, with_system_text
from proxy.errors import BadRequest, BodyTooLarge
from proxy.surfaces.responses_input import ResponsesInput, read_input
from proxy.surfaces.responses_surface import ResponsesSurface, parse_responses_body
from proxy.surfaces.responses_tool_format import RESPONSES_TOOL_FORMAT as FORMAT
from proxy.surfaces.responses_tool_format import input_items as FORMAT_INPUT

IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "low"}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque=="}
ITEMS = [
    {"role": "user", "content": [IMAGE, {"type": "input_text", "text": "what is this?"}]},
    REASONING,
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "look", "arguments": "{}",
     "status": "completed"},
    {"type": "function_call_output", "call_id": "call_1", "output": "a cat"},
    {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
     "content": [{"type": "output_text", "text": "A cat.", "annotations": []}]},
    {"type": "message", "role": "user", "content": "thanks"},
]
SURFACE = ResponsesSurface()


def test_an_untouched_input_list_is_written_back_as_the_clients_own_items():
    conversation = read_input({"input": ITEMS})
    written = conversation.written()
    assert written == ITEMS and all(a is b for a, b in zip(written, ITEMS, strict=True))


def test_items_are_read_into_text_opaque_tool_call_tool_result_and_kept_turns():
    turns = read_input({"input": ITEMS}).turns
    assert turns[0].role == Role.USER and turns[0].form == TextForm.PARTS
    assert isinstance(turns[0].parts[0], OpaquePart) and turns[0].parts[1] == TextPart("what is this?", ITEMS[0][
        "content"][1])
    assert turns[1].role == "reasoning" and turns[1].parts == () and turns[1].raw is REASONING
    assert turns[2].role == Role.ASSISTANT and turns[2].parts == (ToolCallPart("call_1", "look", "{}", ITEMS[2]),)
    assert turns[3].role == Role.TOOL and turns[3].parts == (ToolResultPart("call_1", "a cat"),)
    assert turns[3].answers_tools and not turns[3].is_user
    assert isinstance(turns[4].parts[0], OpaquePart), "output_text is the client's own, never rewritten"
    assert turns[5].is_user and turns[5].text == "thanks"


def test_a_rewritten_message_keeps_its_other_parts_in_place_and_its_keys():
    conversation = read_input({"input": ITEMS})
    first = prepend_block(conversation.turns[0], "BLOCK")
    written = conversation.with_turns([first, *conversation.turns[1:]]).written()
    assert written[0]["content"][0] is IMAGE
    assert written[0]["content"][1] == {"type": "input_text", "text": "BLOCK\n\n---\n\nwhat is this?"}
    assert list(written[0]) == list(ITEMS[0]) and written[1:] == ITEMS[1:]


def test_a_string_input_is_one_user_turn_and_stays_a_string():
    conversation = read_input({"input": "hello"})
    assert [t.text for t in conversation.turns] == ["hello"] and conversation.turns[0].is_user
    assert conversation.written() == "hello"
    turn = prepend_block(conversation.turns[0], "BLOCK")
    assert conversation.with_turns([turn]).written() == "BLOCK\n\n---\n\nhello"
    assert conversation.wire.write_turn(turn) == FORMAT_INPUT("BLOCK\n\n---\n\nhello")[0], \
        "kept for replay as the item a tool round sends it as"


def test_instructions_are_the_system_turn_and_a_leading_developer_message_is_not_then():
    developer = {"role": "developer", "content": "use tabs"}
    conversation = read_input({"instructions": "be brief", "input": [developer, {"role": "user", "content": "hi"}]})
    assert conversation.system is not None and conversation.system.text == "be brief"
    assert conversation.turns[0].raw is developer
    forwarded = SURFACE.forwarded_body({"instructions": "be brief", "input": [developer]}, conversation)
    assert forwarded["instructions"] == "be brief" and forwarded["input"][0] is developer


def test_without_instructions_a_leading_system_message_is_the_system_turn_and_stays_in_the_input():
    items = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    conversation = read_input({"input": items})
    assert conversation.system is not None and conversation.system.raw is items[0]
    with_index = with_system_text(conversation, "INDEX")
    forwarded = SURFACE.forwarded_body({"model": "m", "input": items}, with_index)
    assert "instructions" not in forwarded
    assert forwarded["input"][0] == {"role": "system", "content": "be brief\n\nINDEX"}, "the client's own keys"


def test_a_system_turn_the_proxy_adds_goes_into_instructions_and_the_input_stays_as_it_came():
    items = [{"role": "user", "content": "hi"}]
    conversation = with_system_text(read_input({"input": items}), "INDEX")
    forwarded = SURFACE.forwarded_body({"model": "m", "input": items, "store": False}, conversation)
    assert forwarded == {"model": "m", "input": items, "store": False, "instructions": "INDEX"}


def test_the_same_turn_spelled_three_ways_has_one_identity_and_so_one_key():
    wire = ResponsesInput()
    spellings = ["hi", {"role": "user", "content": "hi"},
                 {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert len({wire.identity(s) for s in spellings}) == 1
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "A cat."}]}
    echoed = {**answer, "id": "msg_9", "status": "completed"}
    assert wire.identity(answer) == wire.identity(echoed), "ids and statuses are not what was said"
    first = turn_keys(read_input({"input": "hi"}))
    again = turn_keys(read_input({"input": [{"role": "user", "content": "hi"}, answer, "more"]}))
    assert again[0] == first[0]


def test_a_chain_starts_the_keys_from_the_previous_response():
    plain = turn_keys(read_input({"input": "hi"}))
    chained = read_input({"input": "hi", "previous_response_id": "resp_1"})
    assert chained.chain == "resp_1" and turn_keys(chained) != plain


@pytest.mark.parametrize("raw, error", [(b"[]", BadRequest), (b'{"input": null}', BadRequest),
                                        (b'{"input": [1, 2, 3]}', BodyTooLarge)])
def test_a_body_the_proxy_cannot_read_is_refused(raw, error):
    with pytest.raises(error):
        parse_responses_body(raw, max_items=2)


def test_a_body_that_continues_a_held_history_needs_no_input():
    assert parse_responses_body(b'{"previous_response_id": "resp_1"}') == {"previous_response_id": "resp_1"}
    assert parse_responses_body(b'{"conversation": "conv_1"}') == {"conversation": "conv_1"}


# ---- the tool format ------------------------------------------------------------------------------------

def test_the_proxys_tools_are_flat_function_tools_after_the_clients_and_a_client_name_wins():
    client = [{"type": "web_search"}, {"type": "function", "name": "list_skills", "parameters": {}}]
    body, added = FORMAT.add_tools({"tools": client}, tool_specs())
    assert body["tools"][:2] == client and "list_skills" not in added
    ours = body["tools"][2:]
    assert {t["name"] for t in ours} == added and all(t["type"] == "function" and t["strict"] is False for t in ours)
    removed = FORMAT.remove_tools({**body, "tool_choice": "auto"}, added)
    assert removed["tools"] == client and removed["tool_choice"] == "auto"
    assert "tool_choice" not in FORMAT.remove_tools({"tools": ours, "tool_choice": "auto"}, added)


def test_calls_are_the_function_call_items_of_the_output():
    output = [{"type": "reasoning"}, {"type": "message", "content": []},
              {"type": "function_call", "call_id": "c1", "name": "list_skills", "arguments": {"query": "x"}}]
    assert FORMAT.calls_in_output(output) == [ToolCall("c1", "list_skills", '{"query": "x"}', 2)]


def test_rounds_are_written_as_the_same_items_for_the_next_round_and_the_record():
    call = ToolCall("call_skp_1", "list_skills", "{}", 0)
    rounds = ToolRounds(tools=None, ours=frozenset({"list_skills"}), max_rounds=3, new_id=str)  # type: ignore[arg-type]
    rounds.exchange.append(ToolRound("Looking.", (call,), (CallResult(call, "[]"),)))
    recorded, mixed = FORMAT.recorded(rounds)
    assert mixed is None and recorded == [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]},
        {"type": "function_call", "call_id": "call_skp_1", "name": "list_skills", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_skp_1", "output": "[]"}]


def test_a_mixed_answer_is_put_back_in_place_of_the_clients_first_call():
    ours = ToolCall("call_skp_1", "list_skills", "{}", 0)
    theirs = [ToolCall("c_a", "get_weather", '{"city": "Paris"}', 1), ToolCall("c_b", "get_time", "{}", 2)]
    mixed = FORMAT.mixed_call(MixedRound(ToolRound(None, (ours, *theirs), (CallResult(ours, "[]"),)), ("c_a", "c_b")))
    assert mixed.client_call_ids == ("c_a",)
    assert [mixed.assistant, *mixed.results] == [
        {"type": "function_call", "call_id": "call_skp_1", "name": "list_skills", "arguments": "{}"},
        {"type": "function_call", "call_id": "c_a", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"type": "function_call_output", "call_id": "call_skp_1", "output": "[]"}]
    client_copy = read_input({"input": [{"type": "function_call", "call_id": "c_a", "name": "get_weather",
                                         "arguments": "{}"}]}).turns[0]
    assert mixed.answered_by(client_copy)


def test_a_system_turn_the_proxy_adds_beside_instructions_it_cannot_read_goes_first_in_the_input():
    odd = [{"type": "input_text", "text": "be brief"}]
    items = [{"role": "user", "content": "hi"}]
    conversation = with_system_text(read_input({"instructions": odd, "input": items}), "INDEX")
    forwarded = SURFACE.forwarded_body({"instructions": odd, "input": items}, conversation)
    assert forwarded == {"instructions": odd,
                         "input": [{"type": "message", "role": "system", "content": "INDEX"}, *items]}


def test_a_chained_body_without_input_gets_none_added():
    body = {"previous_response_id": "resp_1", "instructions": "be brief"}
    conversation = with_system_text(read_input(body), "INDEX")
    assert SURFACE.forwarded_body(body, conversation) == {"previous_response_id": "resp_1",
                                                          "instructions": "be brief\n\nINDEX"}


def test_instructions_and_a_first_user_message_of_the_same_text_are_not_the_same_history():
    with_instructions = turn_keys(read_input({"instructions": "X", "input": [{"role": "user", "content": "hi"}]}))
    as_a_message = turn_keys(read_input({"input": [{"role": "user", "content": "X"},
                                                   {"role": "user", "content": "hi"}]}))
    assert with_instructions[0] != as_a_message[1]
