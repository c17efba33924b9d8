"""The Anthropic Messages wire: blocks read and written back exactly, identities, and a streamed round."""

from __future__ import annotations

import json

from proxy.core.turns.conversation import OpaquePart, TextForm, TextPart, ToolCallPart, ToolResultPart
from proxy.core.turns.turn_text import prepend_block
from proxy.surfaces.anthropic_errors import ANTHROPIC_ERRORS
from proxy.surfaces.anthropic_messages import ANTHROPIC_MESSAGES, read_request
from proxy.surfaces.anthropic_stream_round import AnthropicStreamRound, Counter
from proxy.surfaces.anthropic_surface import ANTHROPIC_MESSAGES_SURFACE, with_client_markers

THINKING = {"type": "thinking", "thinking": "hmm", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}


def test_blocks_are_read_as_their_kinds_and_everything_else_is_kept_opaque():
    message = {"role": "assistant", "content": [THINKING, {"type": "text", "text": "hi"},
                                                {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]}
    turn = ANTHROPIC_MESSAGES.read_turn(message)
    assert [type(p) for p in turn.parts] == [OpaquePart, TextPart, ToolCallPart]
    result = ANTHROPIC_MESSAGES.read_turn({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]})
    assert isinstance(result.parts[0], ToolResultPart) and not result.is_user
    assert ANTHROPIC_MESSAGES.write_turn(turn) is message


def test_a_rewritten_turn_keeps_its_shape_and_every_other_block_in_place():
    plain = ANTHROPIC_MESSAGES.read_turn({"role": "user", "content": "fix it"})
    assert ANTHROPIC_MESSAGES.write_turn(prepend_block(plain, "BLOCK")) == {"role": "user",
                                                                            "content": "BLOCK\n\n---\n\nfix it"}
    marked = {"type": "text", "text": "fix it", "cache_control": {"type": "ephemeral"}}
    blocks = ANTHROPIC_MESSAGES.read_turn({"role": "user", "content": [IMAGE, marked]})
    written = ANTHROPIC_MESSAGES.write_turn(prepend_block(blocks, "BLOCK"))
    assert written["content"][0] is IMAGE
    assert written["content"][1] == {**marked, "text": "BLOCK\n\n---\n\nfix it"}


def test_identity_leaves_out_cache_control_and_the_system_prompt():
    body = {"system": "attribution 1", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}]}
    moved = {"system": [{"type": "text", "text": "attribution 2"}],
             "messages": [{"role": "user", "content": [{"type": "text", "text": "a",
                                                        "cache_control": {"type": "ephemeral"}}]}]}
    first, second = read_request(body), read_request(moved)
    wire = ANTHROPIC_MESSAGES
    assert [wire.identity(t.raw) for t in first.wire_turns()] == [wire.identity(t.raw) for t in second.wire_turns()]
    assert second.system is not None and second.system.form == TextForm.PARTS


def test_the_forwarded_body_keeps_every_other_field_and_drops_a_removed_system():
    body = {"model": "m", "system": "s", "metadata": {"user_id": "u"}, "stop_sequences": ["x"],
            "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [{"role": "user", "content": "hi"}]}
    conversation = read_request(body)
    forwarded = ANTHROPIC_MESSAGES_SURFACE.forwarded_body(body, conversation)
    assert forwarded == body
    assert "system" not in ANTHROPIC_MESSAGES_SURFACE.forwarded_body(body, conversation.with_system(None))


def test_a_replayed_turn_takes_the_clients_marker_of_this_request():
    client = [{"role": "user", "content": [{"type": "text", "text": "a"}]},
              {"role": "assistant", "content": "b"},
              {"role": "user", "content": [{"type": "text", "text": "c", "cache_control": {"type": "ephemeral"}}]}]
    replayed = {"role": "user", "content": [{"type": "text", "text": "BLOCK a", "cache_control": {"type": "old"}}]}
    out = with_client_markers(client, [replayed, client[1], client[2]])
    assert out[0]["content"][0] == {"type": "text", "text": "BLOCK a"} and out[2] is client[2]


def sse(data: dict) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def test_a_streamed_round_hides_the_proxys_tool_use_and_renumbers_the_rest():
    counter = Counter(next=1)  # one block already went out in an earlier round
    round_ = AnthropicStreamRound(frozenset({"read_skill_file"}), "msg_1", counter)
    events = [
        sse({"type": "message_start", "message": {"id": "msg_2", "usage": {"input_tokens": 10}}}),
        sse({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t",
                                                                           "name": "read_skill_file", "input": {}}}),
    ]
    events += [sse({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": p}})
               for p in ('{"sk', 'ill": "x"}')]
    events += [
        sse({"type": "content_block_stop", "index": 0}),
        sse({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        sse({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "hi"}}),
        sse({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}),
        sse({"type": "message_stop"}),
    ]
    out = [round_.feed(e) for e in events]
    assert out[0] == b"" and out[1:5] == [b""] * 4, "a later round's message_start and the proxy's block are held"
    assert json.loads(out[5].split(b"data: ")[1])["index"] == 1
    assert out[7:] == [b"", b""]
    outcome = round_.outcome()
    assert [(c.name, json.loads(c.arguments)) for c in outcome.calls] == [("read_skill_file", {"skill": "x"})]
    assert outcome.usage == {"input_tokens": 10, "output_tokens": 5} and outcome.content == "hi"


def test_errors_are_in_anthropics_shape_and_an_openai_error_is_reshaped():
    reshaped = ANTHROPIC_ERRORS.upstream_answer(404, b'{"error": {"message": "no model", "type": "x"}}', "u")
    assert reshaped == {"type": "error", "error": {"type": "not_found_error", "message": "no model"}}
    page = ANTHROPIC_ERRORS.upstream_answer(500, b"<html><title>Bad</title></html>", "u")
    assert page["error"]["type"] == "api_error"
