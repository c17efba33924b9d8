"""The streamed Responses tool loop: one response for the client however many rounds the proxy runs.

The upstream's streams are written out here as OpenAI documents the semantic
events (`event:` lines, `sequence_number` from 0, `output_index` per item),
and one is llama-server's own captured stream (no sequence numbers or output
indexes at all). Most tests drive `ToolLoop.stream` with scripted answers,
fed to the proxy in chunks of any size.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.tools.rounds import ToolRounds
from proxy.errors import UpstreamError
from proxy.surfaces.chat_stream_round import event_data, iter_events
from proxy.surfaces.responses_stream_round import ResponsesStreamFrames
from proxy.tool_loop import ToolLoop
from proxy.upstream.client import UpstreamResponse

URL = "http://upstream.test/v1/responses"
OURS = frozenset({"read_skill_file", "list_skills"})
LLAMA_TOOL_STREAM = Path(__file__).parent / "data" / "llama_server_responses_tool_stream.sse"
LLAMA_TEXT_STREAM = Path(__file__).parent / "data" / "llama_server_responses_text_stream.sse"


def sse(kind: str, **fields: Any) -> bytes:
    data = {"type": kind, **fields}
    return f"event: {kind}\ndata: ".encode() + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


@dataclass
class Text:
    item_id: str
    deltas: list[str]


@dataclass
class Call:
    item_id: str
    call_id: str
    name: str
    deltas: list[str] = field(default_factory=lambda: ['{"skill":', '"sql"}'])


def openai_round(response_id: str, items: list[Text | Call], usage: dict[str, Any] | None = None,
                 ending: str = "response.completed", cut_after: int | None = None) -> bytes:
    """One upstream answer as OpenAI streams it; `cut_after` ends it after that many items (no ending)."""
    usage = usage or {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4}, "output_tokens": 5,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    seq = itertools.count()
    shell = {"id": response_id, "object": "response", "created_at": 1, "status": "in_progress", "model": "m",
             "output": [], "usage": None}
    events = [sse("response.created", sequence_number=next(seq), response=shell),
              sse("response.in_progress", sequence_number=next(seq), response=shell)]
    output = []
    for index, item in enumerate(items):
        if cut_after is not None and index == cut_after:
            return b"".join(events)
        if isinstance(item, Text):
            text = "".join(item.deltas)
            done = {"id": item.item_id, "type": "message", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
            events.append(sse("response.output_item.added", sequence_number=next(seq), output_index=index,
                              item={**done, "status": "in_progress", "content": []}))
            where = {"item_id": item.item_id, "output_index": index, "content_index": 0}
            events.append(sse("response.content_part.added", sequence_number=next(seq), **where,
                              part={"type": "output_text", "text": "", "annotations": []}))
            events += [sse("response.output_text.delta", sequence_number=next(seq), **where, delta=d, logprobs=[])
                       for d in item.deltas]
            events.append(sse("response.output_text.done", sequence_number=next(seq), **where, text=text,
                              logprobs=[]))
            events.append(sse("response.content_part.done", sequence_number=next(seq), **where,
                              part=done["content"][0]))
        else:
            arguments = "".join(item.deltas)
            done = {"id": item.item_id, "type": "function_call", "status": "completed", "arguments": arguments,
                    "call_id": item.call_id, "name": item.name}
            events.append(sse("response.output_item.added", sequence_number=next(seq), output_index=index,
                              item={**done, "status": "in_progress", "arguments": ""}))
            events += [sse("response.function_call_arguments.delta", sequence_number=next(seq),
                           item_id=item.item_id, output_index=index, delta=d) for d in item.deltas]
            events.append(sse("response.function_call_arguments.done", sequence_number=next(seq),
                              item_id=item.item_id, output_index=index, arguments=arguments))
        events.append(sse("response.output_item.done", sequence_number=next(seq), output_index=index, item=done))
        output.append(done)
    final = {**shell, "status": "completed" if ending == "response.completed" else "incomplete",
             "output": output, "usage": usage}
    events.append(sse(ending, sequence_number=next(seq), response=final))
    return b"".join(events)


def parse(stream: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    """What a client reads: each event's name and JSON data (comments left out)."""
    out = []
    for raw in iter_events(stream):
        data = event_data(raw)
        if data is None:
            continue
        name = next((line[6:].strip() for line in raw.decode().splitlines() if line.startswith("event:")), None)
        out.append((name, json.loads(data)))
    return out


def chunks(raw: bytes, sizes: list[int]) -> Iterator[bytes]:
    """`raw` cut at the given sizes in turn (cycling), so events straddle reads anywhere."""
    start, cycle = 0, itertools.cycle(sizes or [len(raw) or 1])
    while start < len(raw):
        size = max(1, next(cycle))
        yield raw[start:start + size]
        start += size


def streamed_answer(raw: bytes, sizes: list[int] | None = None) -> UpstreamResponse:
    async def body() -> AsyncIterator[bytes]:
        for piece in chunks(raw, sizes or [len(raw) or 1]):
            yield piece

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body(),
                              request=httpx.Request("POST", URL))
    return UpstreamResponse(200, list(response.headers.items()), URL, 1.0, response, base_url="http://upstream.test")


@dataclass
class _Result:
    content: str
    event: dict[str, Any]


class _SkillTools:
    def call(self, name: str, arguments: Any) -> _Result:
        return _Result(f"# {name}", {"tool": name, "ok": True})


class _Wire(ResponsesStreamFrames):
    """The stream methods under test, with a next request that only says which round it is."""

    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        return {**base, "round": rounds.rounds}


@dataclass
class Run:
    client: bytes
    rounds: ToolRounds
    sent: list[dict[str, Any]]
    wire: _Wire
    outcomes: list[Any]

    @property
    def events(self) -> list[tuple[str | None, dict[str, Any]]]:
        return parse(self.client)


def run_stream(*answers: bytes, sizes: list[int] | None = None, max_rounds: int = 3) -> Run:
    """The client's bytes when the upstream answers each round with the next scripted stream."""
    ids = itertools.count()
    rounds = ToolRounds(_SkillTools(), OURS, max_rounds, lambda: f"call_skp_{next(ids)}")
    wire, pending, sent, outcomes = _Wire(), list(answers[1:]), [], []
    original_round = wire.stream_round

    def stream_round(ours: frozenset[str], response_id: Any) -> Any:
        round_ = original_round(ours, response_id)
        original_outcome = round_.outcome

        def outcome() -> Any:
            result = original_outcome()
            outcomes.append(result)
            return result

        round_.outcome = outcome  # type: ignore[method-assign]
        return round_

    wire.stream_round = stream_round  # type: ignore[method-assign]

    async def send(body: dict[str, Any]) -> UpstreamResponse:
        sent.append(body)
        return streamed_answer(pending.pop(0), sizes)

    loop = ToolLoop(rounds, {"model": "m", "input": "q"}, send, "http://upstream.test", lambda r: None, wire)

    async def collect() -> bytes:
        return b"".join([out async for out in loop.stream(streamed_answer(answers[0], sizes))])

    return Run(asyncio.run(collect()), rounds, sent, wire, outcomes)


def assert_one_response(events: list[tuple[str | None, dict[str, Any]]]) -> None:
    """What every client must see: one created, one ending, sequence and output indexes without gaps."""
    kinds = [data.get("type") for _, data in events]
    assert kinds.count("response.created") == 1 and kinds[0] == "response.created"
    endings = [k for k in kinds if k in ("response.completed", "response.incomplete", "response.failed")]
    assert len(endings) <= 1 and (not endings or kinds[-1] == endings[0])
    numbers = [data["sequence_number"] for _, data in events if "sequence_number" in data]
    assert numbers == list(range(len(numbers)))
    added = [data["output_index"] for _, data in events
             if data.get("type") == "response.output_item.added" and "output_index" in data]
    assert added == list(range(len(added)))
    ids = {data["response"]["id"] for _, data in events if isinstance(data.get("response"), dict)}
    assert len(ids) == 1, ids
    for name, data in events:
        assert name is None or name == data.get("type")


# One round, nothing to change


def test_a_one_round_stream_with_nothing_to_change_comes_out_byte_identical():
    upstream = openai_round("resp_1", [Text("msg_1", ["Hel", "lo", " there"])])
    assert run_stream(upstream).client == upstream


def test_a_one_round_stream_with_a_client_call_comes_out_byte_identical():
    upstream = openai_round("resp_1", [Text("msg_1", ["Let me check."]), Call("fc_1", "call_1", "get_weather")])
    run = run_stream(upstream)
    assert run.client == upstream
    assert [c.name for c in run.outcomes[0].calls] == ["get_weather"]
    assert run.sent == [], "a client's call is the client's to run"


def test_llama_servers_captured_tool_stream_passes_byte_identical():
    upstream = LLAMA_TOOL_STREAM.read_bytes()
    run = run_stream(upstream)
    assert run.client == upstream
    outcome = run.outcomes[0]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in outcome.calls] == [
        ("call_jNcIWiWzHsYJI3smcVMNw6ZhWHv2Fe4D", "get_weather", {"city": "Paris"}),
        ("call_v9qE1RR9xHWIWftzWTpR6Eg7x30nRJd0", "get_weather", {"city": "Paris"})]
    assert outcome.response_id == "resp_HGts2YPh5DdK14vO3Cad2deS31x8C4CN"
    assert outcome.usage["input_tokens_details"] == {"cached_tokens": 118}


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=97), min_size=1, max_size=8))
def test_events_split_across_any_byte_boundaries_come_out_the_same(sizes):
    upstream = openai_round("resp_1", [Text("msg_1", ["a", "b\n\nc", "d"]), Call("fc_1", "call_1", "get_weather")])
    assert run_stream(upstream, sizes=sizes).client == upstream


def test_crlf_framed_events_and_keep_alive_comments_pass_as_they_are():
    upstream = openai_round("resp_1", [Text("msg_1", ["Hi"])])
    events = list(iter_events(upstream))
    crlf = b": keep-alive\r\n\r\n" + b"".join(e.replace(b"\n", b"\r\n") for e in events)
    assert run_stream(crlf).client == crlf


# Two rounds: the proxy's call hidden


def two_round_stream(sizes: list[int] | None = None) -> Run:
    first = openai_round("resp_1", [Text("msg_1", ["Reading ", "the skill."]),
                                    Call("fc_1", "call_1", "read_skill_file", ['{"ski', 'll":"s', 'ql"}'])],
                         usage={"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                                "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 3},
                                "total_tokens": 120})
    second = openai_round("resp_2", [Text("msg_2", ["Use ", "GROUP BY."])],
                          usage={"input_tokens": 150, "input_tokens_details": {"cached_tokens": 100},
                                 "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 1},
                                 "total_tokens": 157})
    return run_stream(first, second, sizes=sizes)


def test_two_rounds_reach_the_client_as_one_response():
    run = two_round_stream()
    events = run.events
    assert_one_response(events)
    kinds = [data["type"] for _, data in events]
    assert kinds.count("response.in_progress") == 1
    assert kinds[-1] == "response.completed"
    completed = events[-1][1]["response"]
    assert completed["id"] == "resp_1" and run.wire.response_id == "resp_1"
    assert [item["id"] for item in completed["output"]] == ["msg_1", "msg_2"]
    assert [item["content"][0]["text"] for item in completed["output"]] == ["Reading the skill.", "Use GROUP BY."]
    assert run.rounds.rounds == 1 and run.sent == [{"model": "m", "input": "q", "round": 1}]


def test_the_proxys_call_leaves_no_trace_in_what_the_client_sees():
    client = two_round_stream().client
    for trace in (b"read_skill_file", b"fc_1", b"call_1", b"function_call", b'\\"ski'):
        assert trace not in client


def test_usage_is_summed_over_the_rounds_details_included():
    completed = two_round_stream().events[-1][1]["response"]
    assert completed["usage"] == {"input_tokens": 250, "input_tokens_details": {"cached_tokens": 100},
                                  "output_tokens": 27, "output_tokens_details": {"reasoning_tokens": 4},
                                  "total_tokens": 277}


def test_later_rounds_items_carry_the_next_output_index_and_their_own_item_ids():
    events = two_round_stream().events
    second = [data for _, data in events if data.get("item_id") == "msg_2" or
              (isinstance(data.get("item"), dict) and data["item"]["id"] == "msg_2")]
    assert second and {data["output_index"] for data in second} == {1}


def test_each_rounds_outcome_has_its_own_id_output_and_response_for_the_next_round():
    run = two_round_stream()
    first, second = run.outcomes
    assert first.response_id == "resp_1" and second.response_id == "resp_2"
    assert run.wire.upstream_ids == ["resp_1", "resp_2"]
    assert run.wire.outcomes == [first, second], "the frames keep each finished round for the next request"
    assert [item["type"] for item in first.output] == ["message", "function_call"]
    assert first.output[1]["arguments"] == '{"skill":"sql"}'
    assert first.response["id"] == "resp_1" and first.response["output"] == first.output
    assert first.content == "Reading the skill." and second.content == "Use GROUP BY."
    assert [(c.id, c.name, c.arguments) for c in first.calls] == [("call_1", "read_skill_file", '{"skill":"sql"}')]
    assert first.usage["total_tokens"] == 120 and not first.saw_error and first.skipped == 0


def test_the_first_rounds_events_go_out_before_the_second_round_is_asked_for():
    first = openai_round("resp_1", [Text("msg_1", ["early"]), Call("fc_1", "call_1", "read_skill_file")])
    second = openai_round("resp_2", [Text("msg_2", ["late"])])
    seen_before_round_two: list[bytes] = []
    ids = itertools.count()
    rounds = ToolRounds(_SkillTools(), OURS, 3, lambda: f"call_skp_{next(ids)}")
    received: list[bytes] = []

    async def send(body: dict[str, Any]) -> UpstreamResponse:
        seen_before_round_two.extend(received)
        return streamed_answer(second)

    loop = ToolLoop(rounds, {"input": "q"}, send, "http://upstream.test", lambda r: None, _Wire())

    async def collect() -> None:
        async for out in loop.stream(streamed_answer(first)):
            received.append(out)

    asyncio.run(collect())
    assert b'"delta":"early"' in b"".join(seen_before_round_two)
    assert b"response.completed" not in b"".join(seen_before_round_two), "a round that goes on ends nothing"


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=61), min_size=1, max_size=6))
def test_two_rounds_split_across_any_byte_boundaries_give_the_same_client_stream(sizes):
    assert two_round_stream(sizes).client == two_round_stream().client


def test_three_rounds_keep_sequence_numbers_and_output_indexes_contiguous():
    rounds = [openai_round(f"resp_{n}", [Call(f"fc_{n}a", f"call_{n}a", "list_skills"), Text(f"msg_{n}", [f"r{n}"]),
                                         Call(f"fc_{n}b", f"call_{n}b", "read_skill_file")]) for n in (1, 2)]
    last = openai_round("resp_3", [Text("msg_3", ["done"])])
    run = run_stream(*rounds, last)
    events = run.events
    assert_one_response(events)
    output = events[-1][1]["response"]["output"]
    assert [item["id"] for item in output] == ["msg_1", "msg_2", "msg_3"]
    assert run.rounds.rounds == 2 and run.rounds.calls == 4


def test_a_round_that_only_calls_the_proxy_shows_the_client_nothing_of_that_round():
    first = openai_round("resp_1", [Call("fc_1", "call_1", "read_skill_file")])
    second = openai_round("resp_2", [Text("msg_2", ["answer"])])
    events = run_stream(first, second).events
    assert_one_response(events)
    assert [d["type"] for _, d in events][:3] == ["response.created", "response.in_progress",
                                                  "response.output_item.added"]
    assert events[2][1]["output_index"] == 0 and events[2][1]["item"]["id"] == "msg_2"


# Mixed: a client call and a proxy call in one answer


def test_a_mixed_answer_keeps_only_the_clients_call():
    upstream = openai_round("resp_1", [Call("fc_1", "call_1", "read_skill_file"),
                                       Call("fc_2", "call_2", "get_weather", ['{"ci', 'ty":"Pa', 'ris"}'])])
    run = run_stream(upstream)
    events = run.events
    assert_one_response(events)
    assert b"read_skill_file" not in run.client and b"fc_1" not in run.client
    deltas = [d["delta"] for _, d in events if d["type"] == "response.function_call_arguments.delta"]
    assert "".join(deltas) == '{"city":"Paris"}'
    assert {d["output_index"] for _, d in events if d.get("item_id") == "fc_2"} == {0}
    output = events[-1][1]["response"]["output"]
    assert [(item["name"], item["call_id"]) for item in output] == [("get_weather", "call_2")]
    assert run.rounds.mixed is not None and run.sent == [], "ours ran and were kept; the client runs its own"


# Tool-call arguments across many deltas


def test_a_calls_arguments_split_across_many_deltas_are_read_whole():
    arguments = json.dumps({"skill": "sql-review", "path": "references/checklist.md"})
    pieces = [arguments[i:i + 3] for i in range(0, len(arguments), 3)]
    upstream = openai_round("resp_1", [Call("fc_1", "call_1", "read_skill_file", pieces)])
    run = run_stream(upstream, openai_round("resp_2", [Text("msg_2", ["ok"])]))
    assert run.outcomes[0].calls[0].arguments == arguments
    assert run.rounds.exchange[0].calls[0].arguments == arguments


def test_arguments_come_from_the_deltas_when_a_stream_ends_without_its_ending():
    pieces = ['{"skill"', ':"sql"', "}"]
    upstream = openai_round("resp_1", [Call("fc_1", "call_1", "get_weather", pieces), Text("msg_1", ["x"])],
                            cut_after=1)
    done = next(e for e in iter_events(upstream) if b"response.output_item.done" in e)
    no_arguments = done.replace(b'"arguments":"{\\"skill\\":\\"sql\\"}",', b"")
    assert no_arguments != done
    outcome = run_stream(upstream.replace(done, no_arguments)).outcomes[0]
    assert [(c.name, c.arguments) for c in outcome.calls] == [("get_weather", '{"skill":"sql"}')]


# Errors


def test_an_error_event_mid_stream_passes_renumbered_and_ends_the_answer():
    first = openai_round("resp_1", [Text("msg_1", ["a"]), Call("fc_1", "call_1", "read_skill_file")])
    second = openai_round("resp_2", [Text("msg_2", ["b", "c"])], cut_after=1)
    error = sse("error", sequence_number=9, code="server_error", message="the model crashed", param=None)
    run = run_stream(first, second + error)
    events = run.events
    assert_one_response(events)
    assert events[-1] == ("error", {"type": "error", "sequence_number": len(events) - 1, "code": "server_error",
                                    "message": "the model crashed", "param": None})
    assert run.outcomes[-1].saw_error and not run.outcomes[-1].calls


def test_a_failed_response_goes_out_at_once_with_every_rounds_visible_output():
    first = openai_round("resp_1", [Text("msg_1", ["a"]), Call("fc_1", "call_1", "read_skill_file")])
    second = openai_round("resp_2", [Text("msg_2", ["b"])], ending="response.failed")
    run = run_stream(first, second)
    events = run.events
    assert_one_response(events)
    name, failed = events[-1]
    assert name == "response.failed" and failed["response"]["id"] == "resp_1"
    assert [item["id"] for item in failed["response"]["output"]] == ["msg_1", "msg_2"]
    assert failed["response"]["usage"]["total_tokens"] == 30
    assert run.outcomes[-1].saw_error


def test_an_incomplete_answer_ends_the_stream_and_runs_no_calls():
    upstream = openai_round("resp_1", [Text("msg_1", ["a"]), Call("fc_1", "call_1", "read_skill_file")],
                            ending="response.incomplete")
    run = run_stream(upstream)
    events = run.events
    assert_one_response(events)
    assert events[-1][0] == "response.incomplete"
    assert [item["id"] for item in events[-1][1]["response"]["output"]] == ["msg_1"]
    assert run.rounds.rounds == 0 and run.outcomes[0].calls == []


def test_a_later_round_the_upstream_refuses_becomes_an_error_event_with_the_next_sequence_number():
    first = openai_round("resp_1", [Text("msg_1", ["a"]), Call("fc_1", "call_1", "read_skill_file")])
    ids = itertools.count()
    rounds = ToolRounds(_SkillTools(), OURS, 3, lambda: f"call_skp_{next(ids)}")

    async def send(body: dict[str, Any]) -> UpstreamResponse:
        response = httpx.Response(500, json={"error": {"message": "out of memory"}},
                                  request=httpx.Request("POST", URL))
        return UpstreamResponse(500, list(response.headers.items()), URL, 1.0, response)

    loop = ToolLoop(rounds, {"input": "q"}, send, "http://upstream.test", lambda r: None, _Wire())

    async def collect() -> bytes:
        return b"".join([out async for out in loop.stream(streamed_answer(first))])

    events = parse(asyncio.run(collect()))
    numbers = [data["sequence_number"] for _, data in events]
    assert numbers == list(range(len(numbers)))
    name, error = events[-1]
    assert name == "error" and error["type"] == "error" and "out of memory" in error["message"]
    assert error["param"] is None and error["code"]


def test_an_error_frame_carries_the_next_sequence_number():
    frames = ResponsesStreamFrames()
    round_ = frames.stream_round(OURS, None)
    for raw in iter_events(openai_round("resp_1", [Text("msg_1", ["a"])], cut_after=1)):
        round_.feed(raw)
    frame = frames.error_frame(UpstreamError("upstream went away", code="upstream_unreachable"))
    assert frame.startswith(b"event: error\ndata: ") and frame.endswith(b"\n\n")
    assert json.loads(event_data(frame)) == {"type": "error", "code": "upstream_unreachable",
                                             "message": "upstream went away", "param": None,
                                             "sequence_number": 8}
    assert frames.end_frame() == b""


# Odd events


def test_events_no_client_could_read_are_skipped_and_counted():
    upstream = openai_round("resp_1", [Text("msg_1", ["Hi"])])
    odd = b"event: ping\n\n" + b"data: not json\n\n" + b"data: [1, 2]\n\n" + b": comment\n\n"
    events = list(iter_events(upstream))
    run = run_stream(b"".join(events[:3]) + odd + b"".join(events[3:]))
    assert run.client == b"".join(events[:3]) + b": comment\n\n" + b"".join(events[3:])
    assert run.outcomes[0].skipped == 3


def test_a_done_marker_some_servers_add_is_held_to_the_very_end():
    first = openai_round("resp_1", [Call("fc_1", "call_1", "read_skill_file")]) + b"data: [DONE]\n\n"
    second = openai_round("resp_2", [Text("msg_2", ["ok"])]) + b"data: [DONE]\n\n"
    client = run_stream(first, second).client
    assert client.count(b"[DONE]") == 1 and client.endswith(b"data: [DONE]\n\n")


def unnumbered(raw: bytes) -> bytes:
    """A stream as llama-server sends it: no `sequence_number`, no `output_index`."""
    out = []
    for event in iter_events(raw):
        data = json.loads(event_data(event))
        data.pop("sequence_number", None)
        data.pop("output_index", None)
        out.append(sse(data.pop("type"), **data))
    return b"".join(out)


def test_a_stream_without_sequence_numbers_or_output_indexes_gets_none_added():
    first = LLAMA_TOOL_STREAM.read_bytes().replace(b'"name":"get_weather"', b'"name":"read_skill_file"')
    second = unnumbered(openai_round("resp_2", [Text("msg_2", ["ok"])]))
    run = run_stream(first, second)
    events = run.events
    assert_one_response(events)
    assert b"read_skill_file" not in run.client and b"fc_" not in run.client
    assert not [d for _, d in events if "sequence_number" in d or "output_index" in d]
    assert events[-1][1]["response"]["id"] == "resp_HGts2YPh5DdK14vO3Cad2deS31x8C4CN"
    assert [item["id"] for item in events[-1][1]["response"]["output"]] == ["msg_2"]
    assert run.outcomes[0].calls[1].arguments == '{"city": "Paris"}'


def test_llama_servers_text_stream_after_a_hidden_tool_round_is_one_response():
    first = LLAMA_TOOL_STREAM.read_bytes().replace(b'"name":"get_weather"', b'"name":"read_skill_file"')
    second = LLAMA_TEXT_STREAM.read_bytes()
    run = run_stream(first, second)
    events = run.events
    assert_one_response(events)
    completed = events[-1][1]
    assert completed["response"]["id"] == "resp_HGts2YPh5DdK14vO3Cad2deS31x8C4CN"
    assert [item["id"] for item in completed["response"]["output"]] == ["msg_Igtxf5at6405N3IsEyjYBlEJhtpWyMx3"]
    assert completed["response"]["usage"] == {"input_tokens": 138, "output_tokens": 88, "total_tokens": 226,
                                              "input_tokens_details": {"cached_tokens": 128}}
    assert "timings" in completed, "what the proxy does not change stays"
    assert run.outcomes[0].response_id == "resp_HGts2YPh5DdK14vO3Cad2deS31x8C4CN"
    assert run.outcomes[1].response_id == "resp_SVUE7vwxYfiXNkzoGVICGi3jUIOcCj3a"
    unchanged = [e for e in iter_events(second) if b"output_text.delta" in e]
    assert all(e in run.client for e in unchanged), "the second round's deltas pass as the upstream's bytes"


def test_llama_servers_text_stream_passes_byte_identical():
    upstream = LLAMA_TEXT_STREAM.read_bytes()
    run = run_stream(upstream)
    assert run.client == upstream
    assert run.outcomes[0].content.startswith("Say hello in five words.")


def test_a_proxy_call_known_only_by_its_output_index_is_hidden():
    upstream = openai_round("resp_1", [Text("msg_1", ["a"]), Call("", "call_1", "read_skill_file")])
    no_ids = upstream.replace(b'"item_id":"",', b"").replace(b'"id":"",', b"")
    assert b'"id":""' not in no_ids and b'"item_id":""' not in no_ids
    run = run_stream(no_ids, openai_round("resp_2", [Text("msg_2", ["b"])]))
    assert_one_response(run.events)
    assert b"read_skill_file" not in run.client and b"function_call_arguments" not in run.client


# Any sequence of rounds


@st.composite
def scripted_rounds(draw: st.DrawFn) -> list[list[Text | Call]]:
    """Rounds that go on (the proxy's calls, maybe text) and a last one (text and client calls, maybe ours)."""
    names = itertools.count()

    def text() -> st.SearchStrategy[Text]:
        return st.lists(st.text("ab \n\"", min_size=1, max_size=3), min_size=1, max_size=3).map(
            lambda deltas: Text(f"msg_{next(names)}", deltas))

    def call(tool: st.SearchStrategy[str]) -> st.SearchStrategy[Call]:
        return tool.map(lambda name: Call(f"fc_{next(names)}", f"call_{next(names)}", name))

    ours, theirs = call(st.sampled_from(sorted(OURS))), call(st.just("get_weather"))
    going_on = st.tuples(st.lists(ours, min_size=1, max_size=2), st.lists(text(), max_size=2)).flatmap(
        lambda parts: st.permutations([*parts[0], *parts[1]]))
    rounds = draw(st.lists(going_on, max_size=3))
    last = draw(st.lists(st.one_of(text(), theirs), max_size=3))
    if any(isinstance(item, Call) for item in last) and draw(st.booleans()):
        last = [*last, draw(ours)]
    return [*rounds, last]


@settings(max_examples=60, deadline=None)
@given(script=scripted_rounds(), sizes=st.lists(st.integers(min_value=1, max_value=200), min_size=1, max_size=4))
def test_any_sequence_of_rounds_reaches_the_client_as_one_consistent_response(script, sizes):
    answers = [openai_round(f"resp_{n}", items) for n, items in enumerate(script)]
    run = run_stream(*answers, sizes=sizes, max_rounds=5)
    events = run.events
    assert_one_response(events)
    visible = [item for items in script for item in items
               if isinstance(item, Text) or item.name not in OURS]
    completed = events[-1][1]
    assert completed["type"] == "response.completed" and completed["response"]["id"] == "resp_0"
    assert [item["id"] for item in completed["response"]["output"]] == [item.item_id for item in visible]
    added = [d["item"]["id"] for _, d in events if d["type"] == "response.output_item.added"]
    assert added == [item.item_id for item in visible]
    for name in OURS:
        assert name.encode() not in run.client
    texts = "".join(d["delta"] for _, d in events if d["type"] == "response.output_text.delta")
    assert texts == "".join("".join(item.deltas) for item in visible if isinstance(item, Text))
    assert completed["response"]["usage"]["total_tokens"] == 15 * len(script)
    assert run.rounds.rounds == len(script) - 1 + (1 if run.rounds.mixed else 0)


def test_each_event_reaches_the_client_before_the_upstream_sends_the_next():
    events = list(iter_events(openai_round("resp_1", [Text("msg_1", ["a", "b"])])))
    received: list[bytes] = []
    behind: list[int] = []

    async def body() -> AsyncIterator[bytes]:
        for n, event in enumerate(events):
            await asyncio.sleep(0)
            if n:
                behind.append(n - len(received))
            yield event

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body(),
                              request=httpx.Request("POST", URL))
    answer = UpstreamResponse(200, list(response.headers.items()), URL, 1.0, response)
    rounds = ToolRounds(_SkillTools(), OURS, 3, lambda: "call_skp")
    loop = ToolLoop(rounds, {"input": "q"}, lambda body: None, "http://upstream.test",  # type: ignore[arg-type]
                    lambda r: None, _Wire())

    async def collect() -> None:
        async for out in loop.stream(answer):
            received.append(out)

    asyncio.run(collect())
    assert b"".join(received) == b"".join(events)
    assert behind and set(behind) == {0}, "every event went out before the next one was read"
