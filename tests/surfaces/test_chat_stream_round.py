"""StreamRound: reassembling tool-call deltas, hiding the proxy's calls, one id, held endings, odd events."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.sse import DONE_FRAME as DONE
from proxy.surfaces.chat_stream_round import StreamRound, closing_chunks, continuing_chunks, event_data, iter_events

OURS = frozenset({"read_skill_file", "list_skills"})


def event(delta=None, finish=None, chunk_id="r1", choices=True, usage=None) -> bytes:
    data = {"id": chunk_id, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}] if choices else []}
    if usage is not None:
        data["usage"] = usage
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def sent(out: bytes) -> dict:
    return json.loads(event_data(out))


def call_part(index, name=None, arguments="", call_id=None):
    part = {"index": index, "function": {"arguments": arguments}}
    if name:
        part["function"]["name"] = name
        part["id"] = call_id or f"call_{index}"
        part["type"] = "function"
    return {"tool_calls": [part]}


def test_untouched_events_pass_as_the_same_bytes():
    round_ = StreamRound(OURS, None)
    raw = event({"role": "assistant", "content": "Hi"})
    assert round_.feed(raw) == raw
    assert round_.feed(b": keep-alive\n\n") == b": keep-alive\n\n"
    crlf = raw.replace(b"\n", b"\r\n")
    assert round_.feed(crlf) == crlf


UNREADABLE = [b"data: not json\n\n", b"data: [1, 2]\n\n", b"data: null\n\n", b'data: "text"\n\n',
              b"event: ping\n\n", b"id: 7\n\n", b"garbage line\n\n", b"retry: 10\r\n\r\n", b"data: {\"a\":\n\n"]


def test_events_no_client_could_read_are_skipped_and_counted_and_keep_alives_pass():
    round_ = StreamRound(OURS, None)
    assert [round_.feed(raw) for raw in UNREADABLE] == [b""] * len(UNREADABLE)
    for keep_alive in (b": ping\n\n", b"\n\n", b": a\r\n: b\r\n\r\n"):
        assert round_.feed(keep_alive) == keep_alive
    content = event({"content": "still here"})
    assert round_.feed(b"garbage\n" + content) == b"garbage\n" + content, "odd lines beside data are the client's"
    outcome = round_.outcome()
    assert outcome.skipped == len(UNREADABLE) and outcome.content == "still here" and not outcome.saw_error


def test_our_calls_are_reassembled_by_index_and_never_forwarded():
    round_ = StreamRound(OURS, None)
    outs = [round_.feed(event(call_part(0, "read_skill_file"))),
            round_.feed(event(call_part(0, arguments='{"skill": '))),
            round_.feed(event(call_part(0, arguments='"pdf"}')))]
    assert outs == [b"", b"", b""]
    assert round_.feed(event({}, "tool_calls")) == b""
    assert round_.feed(DONE) == b""
    outcome = round_.outcome()
    assert [(c.name, c.arguments, c.id) for c in outcome.calls] == [("read_skill_file", '{"skill": "pdf"}', "call_0")]
    assert outcome.finish_reason == "tool_calls" and outcome.saw_done and len(outcome.held) == 1


def test_a_whole_call_in_one_delta_and_an_object_for_arguments():
    round_ = StreamRound(OURS, None)
    part = {"index": 0, "id": "x", "type": "function",
            "function": {"name": "list_skills", "arguments": {"query": "pdf"}}}
    assert round_.feed(event({"tool_calls": [part]})) == b""
    assert json.loads(round_.outcome().calls[0].arguments) == {"query": "pdf"}


def test_client_calls_go_out_renumbered_from_zero_and_ours_stay_back():
    round_ = StreamRound(OURS, None)
    assert round_.feed(event(call_part(0, "read_skill_file", '{"skill":"a"}'))) == b""
    out = sent(round_.feed(event(call_part(1, "get_weather"))))
    assert out["choices"][0]["delta"]["tool_calls"][0]["index"] == 0
    more = sent(round_.feed(event(call_part(1, arguments='{"city":"Paris"}'))))
    assert more["choices"][0]["delta"]["tool_calls"] == [{"index": 0, "function": {"arguments": '{"city":"Paris"}'}}]
    names = [c.name for c in round_.outcome().calls]
    assert names == ["read_skill_file", "get_weather"]


def test_deltas_before_the_name_wait_for_it():
    round_ = StreamRound(OURS, None)
    assert round_.feed(event({"tool_calls": [{"index": 0, "id": "c", "function": {"arguments": "{"}}]})) == b""
    closing = {"index": 0, "function": {"name": "get_weather", "arguments": "}"}}
    out = sent(round_.feed(event({"tool_calls": [closing]})))
    parts = out["choices"][0]["delta"]["tool_calls"]
    assert [p["index"] for p in parts] == [0, 0] and parts[0]["id"] == "c"


def test_missing_index_a_new_id_starts_a_new_call_otherwise_continues_the_last():
    round_ = StreamRound(OURS, None)
    round_.feed(event({"tool_calls": [{"id": "a", "function": {"name": "list_skills", "arguments": "{}"}}]}))
    round_.feed(event({"tool_calls": [{"id": "b", "function": {"name": "read_skill_file", "arguments": "{"}}]}))
    round_.feed(event({"tool_calls": [{"function": {"arguments": "}"}}]}))
    calls = round_.outcome().calls
    assert [(c.id, c.arguments) for c in calls] == [("a", "{}"), ("b", "{}")]


def test_later_rounds_take_the_first_rounds_id_and_drop_repeated_role_chunks():
    round_ = StreamRound(OURS, "r1")
    assert round_.feed(event({"role": "assistant", "content": ""}, chunk_id="r2")) == b""
    out = sent(round_.feed(event({"content": "more"}, chunk_id="r2")))
    assert out["id"] == "r1" and out["choices"][0]["delta"]["content"] == "more"


def test_the_first_rounds_role_chunk_survives_when_its_tool_call_is_taken_out():
    round_ = StreamRound(OURS, None)
    out = round_.feed(event({"role": "assistant", **call_part(0, "list_skills", "{}")}))
    assert sent(out)["choices"][0]["delta"] == {"role": "assistant"}


def test_usage_is_held_and_summed_and_one_round_keeps_the_upstream_bytes():
    round_ = StreamRound(OURS, None)
    finish = event({}, "stop")
    usage = event(choices=False, usage={"prompt_tokens": 3, "total_tokens": 5})
    assert round_.feed(finish) == b"" and round_.feed(usage) == b""
    outcome = round_.outcome()
    assert closing_chunks(outcome.held, outcome.usage, "r1", one_round=True) == [finish, usage, DONE]
    summed = {"prompt_tokens": 10, "total_tokens": 20}
    out = closing_chunks(outcome.held, summed, "r1", one_round=False)
    assert sent(out[1])["usage"] == summed and out[-1] == DONE


def test_usage_on_a_content_chunk_is_taken_off_and_put_on_the_ending():
    round_ = StreamRound(OURS, None)
    out = sent(round_.feed(event({"content": "x"}, usage={"total_tokens": 1})))
    assert "usage" not in out
    round_.feed(event({}, "stop"))
    outcome = round_.outcome()
    closing = closing_chunks(outcome.held, outcome.usage, "r1", one_round=True)
    assert sent(closing[0])["usage"] == {"total_tokens": 1}


def test_a_continuing_round_keeps_content_from_its_finish_chunk_only():
    round_ = StreamRound(OURS, None)
    round_.feed(event({"content": "tail"}, "tool_calls"))
    round_.feed(event({}, "tool_calls"))
    out = continuing_chunks(round_.outcome().held)
    assert len(out) == 1 and sent(out[0])["choices"][0] == {"index": 0, "delta": {"content": "tail"},
                                                            "finish_reason": None}


def test_error_events_pass_through_and_are_noted():
    round_ = StreamRound(OURS, None)
    raw = b'data: {"error": {"message": "Model unloaded"}}\n\n'
    assert round_.feed(raw) == raw and round_.outcome().saw_error


def test_iter_events_and_event_data_handle_every_separator_and_no_space():
    data = b"data:{\"a\":1}\n\ndata: [DONE]\r\n\r\n"
    events = list(iter_events(data))
    assert len(events) == 2 and event_data(events[0]) == '{"a":1}' and event_data(events[1]) == "[DONE]"
    assert event_data(b": comment\n\n") is None


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8)


def _shaped(keys: list[str], value: st.SearchStrategy) -> st.SearchStrategy:
    return st.dictionaries(st.sampled_from(keys), value, max_size=len(keys))


FUNCTION = _shaped(["name", "arguments"], st.sampled_from(["read_skill_file", "get_weather", "", "{", "}"]) | JSON)
PART = _shaped(["index", "id", "type", "function"], st.integers(-1, 3) | FUNCTION | JSON)
DELTA = _shaped(["role", "content", "tool_calls"], st.lists(PART | JSON, max_size=3) | JSON)
CHOICE = _shaped(["index", "delta", "finish_reason", "logprobs"],
                 DELTA | st.sampled_from(["stop", "tool_calls"]) | JSON)
CHUNK = _shaped(["id", "object", "choices", "usage", "error"],
                st.lists(CHOICE | JSON, max_size=3) | _shaped(["prompt_tokens", "total_tokens"], JSON) | JSON)
RAW_EVENT = st.one_of(
    CHUNK.map(lambda chunk: b"data: " + json.dumps(chunk).encode() + b"\n\n"),
    st.sampled_from([*UNREADABLE, DONE, b": ping\n\n", b"\r\n\r\n"]),
    st.binary(max_size=40).map(lambda junk: junk + b"\n\n"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(RAW_EVENT, max_size=12), st.sampled_from([None, "r1"]))
def test_any_events_at_all_never_raise_and_what_goes_out_is_whole_events(raws, response_id):
    round_ = StreamRound(OURS, response_id)
    outs = [round_.feed(raw) for raw in raws]
    outcome = round_.outcome()
    outs += closing_chunks(outcome.held, outcome.usage, round_.response_id, one_round=response_id is None)
    outs += continuing_chunks(outcome.held)
    for out in outs:
        assert out == b"" or out.endswith((b"\n\n", b"\r\n\r\n", b"\r\r")), out
    assert outcome.events == len(raws)
