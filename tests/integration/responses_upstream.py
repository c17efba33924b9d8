"""A scripted OpenAI Responses upstream: a raw ASGI app served by a real uvicorn.

It records every request (method, path, headers, body) and answers
`POST /v1/responses` as a tool-calling model would, non-streamed or as SSE
(`stream: true`), in one of two modes:
- `stateful` (OpenAI, LM Studio): it keeps each response (the whole input it
  saw, then its output) by id, answers `store: true` (or what the request
  said), and resolves `previous_response_id` to that history; an unknown id
  is a 404 like OpenAI's;
- `stateless` (llama.cpp, Ollama): no `store` field, and any
  `previous_response_id` is a 400 with llama.cpp's words;
- `forgetful`: says `store: true` like a stateful one, and answers
  `previous_response_id` like a stateless one.

The script is a list of steps, one per round after the newest user message
(the round: how many `function_call_output` items follow it in the whole
history). A step is `{"calls": [{"name", "arguments"}], "content": "..."}` or
`{"answer": "..."}`; it comes from the `x-fake-script` header, or is the
default: read the routed skill, list its files, answer. `"{routed}"` in an
argument is the first routed or activated skill's name. Every round reuses
the call ids `call_0`, `call_1`, ... as llama.cpp does not, on purpose.
`x-fake-break: N` drops the connection after N events of a stream;
`x-fake-refuse-tools: 1` refuses any request with `tools` as llama.cpp without `--jinja` does.

Besides: `POST /v1/responses/input_tokens` counts the input (a quarter of its
JSON length), and `GET`/`DELETE /v1/responses/{id}`, `GET
/v1/responses/{id}/input_items` and `POST /v1/responses/{id}/cancel` answer
from what it keeps.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

DEFAULT_SCRIPT = [
    {"content": "Let me read the skill.", "calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}}]},
    {"calls": [{"name": "list_skill_files", "arguments": {"skill": "{routed}"}}]},
    {"answer": "I read the skill and its files. Here is the answer."},
]
ROUTED_NAME = re.compile(r"<n>([^<]+)</n>")
NO_CHAINING = {"error": {"code": 400, "message": "llama.cpp does not support 'previous_response_id'.",
                         "type": "invalid_request_error"}}


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class ResponsesUpstream:
    def __init__(self, mode: str = "stateful") -> None:
        self.mode = mode
        self.received: list[Received] = []
        self.kept: dict[str, dict[str, Any]] = {}  # id -> {"history": [...], "response": {...}}
        self.conversations: dict[str, list[Any]] = {}  # a `conversation` id (a string) -> its items
        self.counter = 0
        self.lock = threading.Lock()

    def clear(self, mode: str = "stateful") -> None:
        self.mode = mode
        self.received.clear()
        self.kept.clear()
        self.conversations.clear()
        self.counter = 0

    def posts(self) -> list[dict[str, Any]]:
        """The bodies of every `POST /v1/responses`, in order."""
        return [r.json for r in self.received if r.method == "POST" and r.path == "/v1/responses"]

    def wait_for_posts(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.posts()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"upstream got {len(self.posts())} request(s), expected {count}")
            time.sleep(0.01)
        return self.posts()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        record = Received(scope["method"], scope["path"],
                          {k.decode().lower(): v.decode() for k, v in scope["headers"]}, body)
        self.received.append(record)
        await self._answer(record, send)

    async def _answer(self, record: Received, send: Any) -> None:
        path, method = record.path, record.method
        if path == "/v1/responses" and method == "POST":
            await self._respond(record, send)
        elif path == "/v1/responses/input_tokens":
            await _json(send, 200, {"object": "response.input_tokens",
                                    "input_tokens": len(json.dumps(record.json.get("input"))) // 4,
                                    "seen": record.json})
        elif path.startswith("/v1/responses/"):
            await self._by_id(record, send)
        else:
            await _json(send, 404, {"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}})

    async def _by_id(self, record: Received, send: Any) -> None:
        parts = record.path.split("/")[3:]
        kept = self.kept.get(parts[0])
        if kept is None:
            await _json(send, 404, {"error": {"message": f"Response with id '{parts[0]}' not found.",
                                              "type": "invalid_request_error", "param": None, "code": None}})
        elif record.method == "DELETE":
            del self.kept[parts[0]]
            await _json(send, 200, {"id": parts[0], "object": "response.deleted", "deleted": True})
        elif parts[1:] == ["input_items"]:
            await _json(send, 200, {"object": "list", "data": kept["history"]})
        elif parts[1:] == ["cancel"]:
            await _json(send, 200, {**kept["response"], "status": "cancelled"})
        else:
            await _json(send, 200, kept["response"])

    async def _respond(self, record: Received, send: Any) -> None:
        body = record.json
        if record.headers.get("x-fake-refuse-tools") and "tools" in body:
            await _json(send, 400, {"error": {"code": 400, "type": "invalid_request_error",
                                              "message": "tools param requires --jinja flag"}})
            return
        previous = body.get("previous_response_id")
        history: list[Any] = []
        if previous is not None:
            if self.mode in ("stateless", "forgetful"):
                await _json(send, 400, NO_CHAINING)
                return
            if previous not in self.kept:
                await _json(send, 404, {"error": {"message": f"Previous response with id '{previous}' not found.",
                                                  "type": "invalid_request_error", "param": "previous_response_id",
                                                  "code": "previous_response_not_found"}})
                return
            history = list(self.kept[previous]["history"])
        conversation = body.get("conversation")
        if conversation is not None:
            history = self.conversations.setdefault(str(conversation), [])
        value = body.get("input")
        history += [{"role": "user", "content": value}] if isinstance(value, str) else list(value or [])
        unanswered = _unanswered(history)
        if previous is not None and unanswered:
            await _json(send, 400, {"error": {"message": f"No tool output found for function call {unanswered[0]}.",
                                              "type": "invalid_request_error", "param": "input", "code": None}})
            return
        script = json.loads(record.headers.get("x-fake-script") or "null") or DEFAULT_SCRIPT
        step = script[min(_round(history), len(script) - 1)]
        with self.lock:
            self.counter += 1
            number = self.counter
        response_id = f"resp_{number:04d}"
        output = _output(step, history, number)
        response: dict[str, Any] = {"id": response_id, "object": "response", "created_at": 1, "status": "completed",
                                    "model": body.get("model"), "output": output,
                                    "usage": {"input_tokens": len(json.dumps(history)) // 4, "output_tokens": 7,
                                              "total_tokens": len(json.dumps(history)) // 4 + 7,
                                              "input_tokens_details": {"cached_tokens": 2},
                                              "output_tokens_details": {"reasoning_tokens": 0}}}
        if self.mode == "forgetful":
            response["store"] = True
        if self.mode == "stateful":
            response["store"] = body.get("store", True)
            response["previous_response_id"] = previous
            if response["store"]:
                self.kept[response_id] = {"history": [*history, *output], "response": response}
        if conversation is not None:
            history.extend(output)  # the conversation's own list: it holds every turn and round
        if body.get("stream"):
            await _sse(send, _events(response), int(record.headers.get("x-fake-break") or 0))
        else:
            await _json(send, 200, response)


def _unanswered(history: list[Any]) -> list[str]:
    """The call ids of function calls in the history that no `function_call_output` answers (OpenAI refuses)."""
    answered = {item.get("call_id") for item in history if isinstance(item, dict)
                and item.get("type") == "function_call_output"}
    return [item["call_id"] for item in history if isinstance(item, dict) and item.get("type") == "function_call"
            and item.get("call_id") not in answered]


def _round(history: list[Any]) -> int:
    last_user = max((i for i, item in enumerate(history) if isinstance(item, dict) and item.get("role") == "user"),
                    default=-1)
    return sum(1 for item in history[last_user + 1:]
               if isinstance(item, dict) and item.get("type") == "function_call_output")


def _routed(history: list[Any]) -> str:
    users = [item for item in history if isinstance(item, dict) and item.get("role") == "user"]
    match = ROUTED_NAME.search(json.dumps(users[-1], ensure_ascii=False) if users else "")
    return match.group(1) if match else "no-routed-skill"


def _output(step: dict[str, Any], history: list[Any], number: int) -> list[dict[str, Any]]:
    text = step.get("answer") or step.get("content")
    output: list[dict[str, Any]] = []
    if text:
        output.append({"type": "message", "id": f"msg_{number:04d}", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for index, call in enumerate(step.get("calls", [])):
        arguments = {k: (_routed(history) if v == "{routed}" else v) for k, v in call["arguments"].items()}
        output.append({"type": "function_call", "id": f"fc_{number:04d}_{index}", "status": "completed",
                       "call_id": f"call_{index}", "name": call["name"], "arguments": json.dumps(arguments)})
    return output


def _events(response: dict[str, Any]) -> list[dict[str, Any]]:
    start = {**response, "status": "in_progress", "output": [], "usage": None}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": start},
                                    {"type": "response.in_progress", "response": start}]
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "content": []}})
            events.append({"type": "response.content_part.added", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}})
            for word in re.findall(r"\S+\s*", text):
                events.append({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                               "content_index": 0, "delta": word, "logprobs": []})
            events.append({"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "text": text, "logprobs": []})
            events.append({"type": "response.content_part.done", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "part": item["content"][0]})
        else:
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "arguments": ""}})
            arguments = item["arguments"]
            for piece in (arguments[:5], arguments[5:]):
                events.append({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                               "output_index": index, "delta": piece})
            events.append({"type": "response.function_call_arguments.done", "item_id": item["id"],
                           "output_index": index, "arguments": arguments})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response})
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


async def _sse(send: Any, events: list[dict[str, Any]], break_after: int) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
    for number, event in enumerate(events):
        if break_after and number == break_after:
            raise ConnectionError("the scripted upstream breaks off the stream")  # uvicorn drops the connection
        frame = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
        await send({"type": "http.response.body", "body": frame, "more_body": True})
        await asyncio.sleep(0)
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _json(send: Any, status: int, data: Any) -> None:
    body = json.dumps(data).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
