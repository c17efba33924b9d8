"""Reading what an answer says about itself as it goes by: each surface's streams and whole answers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from proxy.surfaces.answer_facts import FACT_READERS, AnswerFacts
from proxy.tracing.traced_answer import AnswerTap


def answer(kind: str = "sse", status: int = 200) -> SimpleNamespace:
    return SimpleNamespace(status=status, is_event_stream=kind == "sse", is_ndjson=kind == "ndjson")


def sse(data: dict, event: str | None = None) -> bytes:
    return (f"event: {event}\n" if event else "").encode() + b"data: " + json.dumps(data).encode() + b"\n\n"


class Counting:
    """A surface's reader that counts the events it was given to parse."""

    def __init__(self, surface: str) -> None:
        self.reader = FACT_READERS[surface]
        self.events = 0

    def whole(self, data, facts, text):
        self.reader.whole(data, facts, text)

    def event(self, data, facts, text):
        self.events += 1
        self.reader.event(data, facts, text)

    def may_matter(self, raw):
        return self.reader.may_matter(raw)


def tapped(surface: str, body: bytes, kind: str = "sse", text: bool = False, piece: int = 1,
           status: int = 200) -> tuple[AnswerFacts, Counting, list]:
    """`body` fed `piece` bytes at a time, then the answer closed twice."""
    reader, ended = Counting(surface), []
    tap = AnswerTap(reader, answer(kind, status), text, lambda facts, error: ended.append((facts, error)))
    for start in range(0, len(body), piece):
        tap.read(body[start:start + piece])
    tap.closed()
    tap.closed()
    assert len(ended) == 1, "the facts are handed on once, however often the answer is closed"
    return ended[0][0], reader, ended


def chunk(delta: dict, finish: str | None = None, **extra) -> bytes:
    return sse({"id": "chatcmpl-9", "model": "qwen3", "choices": [{"index": 0, "delta": delta,
                                                                  "finish_reason": finish}], **extra})


USAGE = {"prompt_tokens": 12, "completion_tokens": 2}
CHAT_STREAM = b"".join([chunk({"role": "assistant", "content": ""}), chunk({"content": "Hel"}),
                        chunk({"content": "lo"}), b": ping\n\n", chunk({}, "stop"),
                        sse({"id": "chatcmpl-9", "choices": [], "usage": USAGE}), b"data: [DONE]\n\n"])


@pytest.mark.parametrize("piece", [1, 7, len(CHAT_STREAM)], ids=["byte-by-byte", "7-bytes", "whole"])
def test_a_chat_stream_gives_its_finish_and_usage_and_only_those_events_are_parsed(piece):
    facts, reader, _ = tapped("chat_completions", CHAT_STREAM, piece=piece)
    assert (facts.response_id, facts.model, facts.finish_reasons) == ("chatcmpl-9", "qwen3", ["stop"])
    assert (facts.input_tokens, facts.output_tokens, facts.text) == (12, 2, [])
    assert reader.events == 2, "content deltas are not parsed when the text is not wanted"


def test_with_the_text_wanted_every_delta_is_read():
    facts, reader, _ = tapped("chat_completions", CHAT_STREAM, text=True, piece=5)
    assert "".join(facts.text) == "Hello" and reader.events == 5


def test_a_stream_error_event_is_noted():
    body = chunk({"content": "x"}) + sse({"error": {"message": "Model unloaded", "code": "model_unloaded"}})
    facts, _, _ = tapped("chat_completions", body)
    assert facts.error == "model_unloaded"


def test_a_responses_stream_gives_the_completed_responses_facts():
    response = {"id": "resp_1", "model": "gpt-x", "status": "in_progress", "output": [], "usage": None}
    done = {**response, "status": "completed", "usage": {"input_tokens": 30, "output_tokens": 5},
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "Hi there"}]}]}
    body = b"".join([sse({"type": "response.created", "response": response}, "response.created"),
                     sse({"type": "response.output_text.delta", "delta": "Hi there"}, "response.output_text.delta"),
                     sse({"type": "response.completed", "response": done}, "response.completed")])
    facts, _, _ = tapped("responses", body, text=True, piece=11)
    assert (facts.response_id, facts.finish_reasons, facts.input_tokens, facts.output_tokens) == (
        "resp_1", ["stop"], 30, 5)
    assert facts.text == ["Hi there"]
    calls = {**done, "output": [{"type": "function_call", "name": "list_skills"}]}
    assert tapped("responses", sse({"type": "response.completed", "response": calls}))[0].finish_reasons == [
        "tool_calls"]
    short = {**done, "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    assert tapped("responses", sse({"type": "response.incomplete", "response": short}))[0].finish_reasons == [
        "max_output_tokens"]


def test_an_anthropic_stream_counts_cached_input_and_the_last_output_count():
    start = {"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "usage": {
        "input_tokens": 20, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5, "output_tokens": 1}}}
    body = b"".join([sse(start, "message_start"),
                     sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
                         "content_block_delta"),
                     sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                          "usage": {"output_tokens": 9}}, "message_delta"),
                     sse({"type": "message_stop"}, "message_stop")])
    facts, _, _ = tapped("messages", body, text=True, piece=3)
    assert (facts.response_id, facts.model, facts.finish_reasons) == ("msg_1", "claude-x", ["end_turn"])
    assert (facts.input_tokens, facts.output_tokens, facts.text) == (125, 9, ["Hi"])


def test_an_ollama_ndjson_stream_reads_its_last_line_even_without_a_newline():
    lines = [{"model": "llama3", "message": {"role": "assistant", "content": "Hi"}, "done": False},
             {"model": "llama3", "message": {"role": "assistant", "content": ""}, "done": True,
              "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 4}]
    body = b"\n".join(json.dumps(line).encode() for line in lines)  # no newline after the last line
    facts, reader, _ = tapped("ollama_chat", body, kind="ndjson", piece=4)
    assert (facts.model, facts.finish_reasons, facts.input_tokens, facts.output_tokens) == ("llama3", ["stop"], 26, 4)
    assert reader.events == 1 and facts.response_id is None


def test_a_whole_answer_read_twice_is_read_afresh():
    reader, ended = Counting("chat_completions"), []
    tap = AnswerTap(reader, answer("json"), False, lambda facts, error: ended.append(facts))
    raw = json.dumps({"id": "c1", "choices": [{"finish_reason": "length", "message": {"content": "x"}}],
                      "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()
    tap.read_whole(raw)
    tap.read_whole(raw)  # a route that read the answer hands it on to be read again
    tap.closed()
    assert ended[0].finish_reasons == ["length"] and ended[0].input_tokens == 3


def test_a_json_answer_relayed_as_bytes_is_read_when_it_ends():
    raw = json.dumps({"model": "llama3", "done": True, "done_reason": "stop", "eval_count": 2}).encode()
    facts, _, _ = tapped("ollama_chat", raw, kind="json", piece=10)
    assert facts.finish_reasons == ["stop"] and facts.output_tokens == 2


def test_an_error_answer_is_not_read_for_facts():
    raw = json.dumps({"id": "x", "choices": [{"finish_reason": "stop"}]}).encode()
    facts, _, _ = tapped("chat_completions", raw, kind="json", status=500)
    assert facts == AnswerFacts()
