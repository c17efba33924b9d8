"""A scripted Anthropic Messages upstream: a raw ASGI app served by a real uvicorn.

It records every request (method, path, query, headers, body) and answers
`POST /v1/messages` in Anthropic's documented shapes: a message object, or
with `stream: true` the SSE events (`message_start`, `content_block_start`,
`ping`, `content_block_delta` with `text_delta` / `input_json_delta`,
`content_block_stop`, `message_delta`, `message_stop`). A `tool_use`
block's input streams split across two `input_json_delta` events.

The script is a list of steps, one per round after the newest message of a
person (a round is an assistant message with `tool_use` blocks after it):
`{"content": "...", "calls": [{"name", "arguments"}]}` or `{"answer": "..."}`,
from the `x-fake-script` header (the proxy forwards client headers) or
`scripted_model.DEFAULT_SCRIPT`. `"{routed}"` in an argument is the routed
skill's name. Every round reuses the ids `toolu_0`, `toolu_1`, ... on purpose.

Models with a meaning: `refuses-tools` answers 400 ("tools are not supported")
to a request with tools; `error-midstream` streams some text and then an
`event: error`; `overloaded` answers 529 in Anthropic's error shape.
`POST /v1/messages/count_tokens` answers `{"input_tokens": N}` with N from
the body's size.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from .fake_upstream import Recorded
from .scripted_model import DEFAULT_SCRIPT

ROUTED_NAME = re.compile(r"<n>([^<]+)</n>")


def _is_person(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    if message.get("role") != "user":
        return False
    return not (isinstance(content, list) and any(b.get("type") == "tool_result" for b in content))


def _has_tool_use(message: Any) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_use" for b in content)


def current_step(body: dict[str, Any], script: list[dict[str, Any]]) -> dict[str, Any]:
    messages = body.get("messages", [])
    last = max((i for i, m in enumerate(messages) if _is_person(m)), default=-1)
    round_ = sum(1 for m in messages[last + 1:] if m.get("role") == "assistant" and _has_tool_use(m))
    return script[min(round_, len(script) - 1)]


def routed_name(body: dict[str, Any]) -> str:
    match = ROUTED_NAME.search(json.dumps(body.get("messages", [])))
    return match.group(1) if match else "no-routed-skill"


def usage_for(body: dict[str, Any]) -> dict[str, int]:
    return {"input_tokens": len(json.dumps(body.get("messages", []))) // 4, "output_tokens": 7,
            "cache_read_input_tokens": 3, "cache_creation_input_tokens": 0}


def _blocks(step: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    text = step.get("answer", step.get("content"))
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for number, call in enumerate(step.get("calls", [])):
        arguments = {k: (routed_name(body) if v == "{routed}" else v) for k, v in call["arguments"].items()}
        blocks.append({"type": "tool_use", "id": f"toolu_{number}", "name": call["name"], "input": arguments})
    return blocks


def message(body: dict[str, Any], script: list[dict[str, Any]]) -> dict[str, Any]:
    step = current_step(body, script)
    blocks = _blocks(step, body)
    return {"id": f"msg_round_{len(body.get('messages', []))}", "type": "message", "role": "assistant",
            "model": body.get("model"), "content": blocks,
            "stop_reason": "tool_use" if step.get("calls") else "end_turn", "stop_sequence": None,
            "usage": usage_for(body)}


def sse(data: dict[str, Any]) -> bytes:
    return b"event: " + data["type"].encode() + b"\ndata: " + json.dumps(data).encode() + b"\n\n"


def stream_events(body: dict[str, Any], script: list[dict[str, Any]]) -> list[bytes]:
    whole = message(body, script)
    usage = whole["usage"]
    start = {**whole, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events = [sse({"type": "message_start", "message": start}), sse({"type": "ping"})]
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            events.append(sse({"type": "content_block_start", "index": index,
                               "content_block": {"type": "text", "text": ""}}))
            for word in re.findall(r"\S+\s*", block["text"]):
                events.append(sse({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "text_delta", "text": word}}))
        else:
            events.append(sse({"type": "content_block_start", "index": index,
                               "content_block": {**block, "input": {}}}))
            arguments = json.dumps(block["input"])
            half = len(arguments) // 2
            for piece in (arguments[:half], arguments[half:]):
                events.append(sse({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(sse({"type": "content_block_stop", "index": index}))
    events.append(sse({"type": "message_delta", "delta": {"stop_reason": whole["stop_reason"],
                                                          "stop_sequence": None},
                       "usage": {"output_tokens": usage["output_tokens"]}}))
    events.append(sse({"type": "message_stop"}))
    return events


def error_body(status: int, type_: str, text: str) -> tuple[int, bytes]:
    return status, json.dumps({"type": "error", "error": {"type": type_, "message": text}}).encode()


class AnthropicUpstream:
    def __init__(self) -> None:
        self.received: list[Recorded] = []
        self.lock = threading.Lock()
        self.url = ""

    def clear(self) -> None:
        with self.lock:
            self.received.clear()

    def messages(self) -> list[Recorded]:
        return [r for r in self.received if r.path == "/v1/messages"]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        recorded = Recorded(scope["method"], scope["path"], scope["query_string"].decode(), headers, body)
        with self.lock:
            self.received.append(recorded)
        status, content_type, chunks = self.answer(recorded)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", content_type.encode())]})
        for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    def answer(self, recorded: Recorded) -> tuple[int, str, list[bytes]]:
        try:
            body = recorded.json
        except ValueError:
            body = {}
        if recorded.path == "/v1/messages/count_tokens":
            return 200, "application/json", [json.dumps({"input_tokens": len(recorded.body) // 4}).encode()]
        if recorded.path != "/v1/messages":
            status, raw = error_body(404, "not_found_error", f"no route {recorded.path}")
            return status, "application/json", [raw]
        model = body.get("model")
        if model == "refuses-tools" and body.get("tools"):
            status, raw = error_body(400, "invalid_request_error", "tools are not supported by this model")
            return status, "application/json", [raw]
        if model == "overloaded":
            status, raw = error_body(529, "overloaded_error", "Overloaded")
            return status, "application/json", [raw]
        raw_script = recorded.header("x-fake-script")
        script = json.loads(raw_script) if raw_script else DEFAULT_SCRIPT
        if model == "error-midstream":
            events = stream_events(body, [{"answer": "Partial answer that breaks"}])[:5]
            events.append(sse({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
            return 200, "text/event-stream", events
        if body.get("stream"):
            return 200, "text/event-stream", stream_events(body, script)
        return 200, "application/json", [json.dumps(message(body, script)).encode()]
