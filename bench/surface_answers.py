"""What the load upstream answers on the non-Chat surfaces, in each one's own wire format.

Minimal but valid answers, built once per event count and reused (up to
`CACHED_EVENTS` events; a longer stream is built as it is sent, so its first
event goes out at once), so the fake upstream spends as little CPU as it can
(it shares the machine with the proxy it measures):
- OpenAI Responses (`POST /v1/responses`): a `response` object; streamed, the
  SSE events `response.created`, `response.in_progress`,
  `response.output_item.added`, `response.content_part.added`, one
  `response.output_text.delta` per event asked for, `response.output_text.done`,
  `response.content_part.done`, `response.output_item.done`,
  `response.completed`, each with its `sequence_number`. Every answer carries a
  response id of its own (the proxy keeps a record under it, as it does for a
  real upstream).
- Anthropic Messages (`POST /v1/messages`): a `message` object; streamed,
  `message_start`, `content_block_start`, one `content_block_delta` per event,
  `content_block_stop`, `message_delta`, `message_stop`.
- Ollama (`POST /api/chat`): one JSON object when the body says
  `"stream": false`; otherwise NDJSON, one line per event and a last line with
  `"done": true` and the counts.

How many content events a stream has comes from the body, as each API names
the limit: `max_output_tokens` (Responses), `max_tokens` (Messages),
`options.num_predict` (Ollama). What must not: serve HTTP (bench/load_upstream.py
does), or pause (it answers as fast as it can).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import chain
from typing import Any

RESPONSES, MESSAGES, OLLAMA = "/v1/responses", "/v1/messages", "/api/chat"
SSE, NDJSON, JSON = b"text/event-stream", b"application/x-ndjson", b"application/json"
RESPONSE_ID = b"resp_00000000"  # replaced by each answer's own id, of the same length
DEFAULT_EVENTS = 8
CACHED_EVENTS = 64
USAGE = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}


def event_count(path: str, body: dict[str, Any]) -> int:
    """The content events the body asks for, read where its API keeps the limit."""
    if path == RESPONSES:
        value = body.get("max_output_tokens")
    elif path == OLLAMA:
        options = body.get("options")
        value = options.get("num_predict") if isinstance(options, dict) else None
    else:
        value = body.get("max_tokens")
    return int(value) if isinstance(value, int) and value > 0 else DEFAULT_EVENTS


def streams(path: str, body: dict[str, Any]) -> bool:
    """Ollama streams unless told `"stream": false`; the others only when told `"stream": true`."""
    return body.get("stream") is not False if path == OLLAMA else body.get("stream") is True


def answer(path: str, body: dict[str, Any], number: int) -> tuple[bytes, Iterable[bytes]]:
    """(content type, the answer's body in the pieces it is sent in) for request `number` on `path`."""
    stream = streams(path, body)
    if path == RESPONSES:
        own_id = f"resp_{number % 10**8:08d}".encode()
        if not stream:
            return JSON, [responses_object().replace(RESPONSE_ID, own_id)]
        return SSE, (piece.replace(RESPONSE_ID, own_id) for piece in _pieces(responses_events, body, path))
    if path == MESSAGES:
        return (SSE, _pieces(messages_events, body, path)) if stream else (JSON, [messages_object()])
    return (NDJSON, _pieces(ollama_lines, body, path)) if stream else (JSON, [ollama_object()])


def _pieces(events: Callable[[int], Iterator[bytes]], body: dict[str, Any], path: str) -> Iterable[bytes]:
    """A stream's pieces: the cached list for a usual length, built one by one for a long stream."""
    count = event_count(path, body)
    return _cached(events, count) if count <= CACHED_EVENTS else events(count)


@lru_cache(maxsize=32)
def _cached(events: Callable[[int], Iterator[bytes]], count: int) -> list[bytes]:
    return list(events(count))


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def _sse(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\n".encode() + b"data: " + _dumps(data) + b"\n\n"


# --- OpenAI Responses --------------------------------------------------------------------------------------

def _response(status: str, output: list[Any], usage: dict[str, int] | None) -> dict[str, Any]:
    return {"id": RESPONSE_ID.decode(), "object": "response", "created_at": 1, "status": status, "model": "load",
            "output": output, "usage": usage}


def _message_item(text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status == "completed" else []
    return {"type": "message", "id": "msg_load", "status": status, "role": "assistant", "content": content}


@lru_cache(maxsize=1)
def responses_object() -> bytes:
    return _dumps(_response("completed", [_message_item("ok", "completed")], USAGE))


def responses_events(count: int) -> Iterator[bytes]:
    words = [f" w{number}" for number in range(count)]
    text = "".join(words)
    item = _message_item(text, "completed")
    part = {"type": "output_text", "text": "", "annotations": []}
    where = {"item_id": "msg_load", "output_index": 0, "content_index": 0}
    opening: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response("in_progress", [], None)},
        {"type": "response.in_progress", "response": _response("in_progress", [], None)},
        {"type": "response.output_item.added", "output_index": 0, "item": _message_item("", "in_progress")},
        {"type": "response.content_part.added", **where, "part": part},
    ]
    deltas: Iterator[dict[str, Any]] = (
        {"type": "response.output_text.delta", **where, "delta": word, "logprobs": []} for word in words)
    closing: list[dict[str, Any]] = [
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": {**part, "text": text}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": _response("completed", [item], USAGE)},
    ]
    for number, event in enumerate(chain(opening, deltas, closing)):
        yield _sse({**event, "sequence_number": number})


# --- Anthropic Messages ------------------------------------------------------------------------------------

def _message(content: list[Any], stop_reason: str | None, output_tokens: int) -> dict[str, Any]:
    return {"id": "msg_load", "type": "message", "role": "assistant", "model": "load", "content": content,
            "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": output_tokens}}


@lru_cache(maxsize=1)
def messages_object() -> bytes:
    return _dumps(_message([{"type": "text", "text": "ok"}], "end_turn", 1))


def messages_events(count: int) -> Iterator[bytes]:
    yield _sse({"type": "message_start", "message": _message([], None, 1)})
    yield _sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    for number in range(count):
        yield _sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f" w{number}"}})
    yield _sse({"type": "content_block_stop", "index": 0})
    yield _sse({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": count}})
    yield _sse({"type": "message_stop"})


# --- Ollama native -----------------------------------------------------------------------------------------

CREATED = "2026-01-01T00:00:00Z"
DONE = {"done": True, "done_reason": "stop", "total_duration": 1000, "load_duration": 100,
        "prompt_eval_count": 1, "prompt_eval_duration": 100, "eval_count": 1, "eval_duration": 100}


@lru_cache(maxsize=1)
def ollama_object() -> bytes:
    return _dumps({"model": "load", "created_at": CREATED, "message": {"role": "assistant", "content": "ok"},
                   **DONE})


def ollama_lines(count: int) -> Iterator[bytes]:
    for number in range(count):
        yield _dumps({"model": "load", "created_at": CREATED,
                      "message": {"role": "assistant", "content": f" w{number}"}, "done": False}) + b"\n"
    yield _dumps({"model": "load", "created_at": CREATED, "message": {"role": "assistant", "content": ""},
                  **DONE, "eval_count": count}) + b"\n"
