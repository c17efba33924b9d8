"""A fake OpenAI-compatible upstream: a raw ASGI app served by a real uvicorn.

It records every request it receives (method, path, headers, body) and when the
client closed the connection early. What it answers is chosen by the request's
`model` on `/v1/chat/completions`, and by the path elsewhere (see `SCENARIOS`).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from . import scripted_model

TOOLS_REFUSED = json.dumps({"error": {"code": 400, "type": "invalid_request_error", "message":
                           "tools param requires --jinja flag"}}).encode()
SSE_WORDS = ["Hello", " from", " the", " fake", " upstream"]


@dataclass
class Recorded:
    method: str
    path: str
    query: str
    headers: list[tuple[str, str]]
    body: bytes = b""
    finished: bool = False
    closed_early: threading.Event = field(default_factory=threading.Event)
    closed_at: float | None = None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k == name.lower()), None)

    def header_names(self) -> set[str]:
        return {k for k, _ in self.headers}

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def chunk(delta: dict[str, Any], finish: str | None = None, choices: bool = True) -> bytes:
    data = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []}
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def content_events() -> list[bytes]:
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": word}) for word in SSE_WORDS]
    return events + [chunk({}, finish="stop"), b"data: [DONE]\n\n"]


def tool_events(whole: bool) -> list[bytes]:
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    if whole:  # Ollama: the whole call in one delta
        first["function"]["arguments"] = '{"city": "Paris"}'
        deltas = [{"tool_calls": [first]}]
    else:
        deltas = [{"tool_calls": [first]}] + [
            {"tool_calls": [{"index": 0, "function": {"arguments": part}}]} for part in ('{"city": ', '"Paris"}')]
    return [chunk({"role": "assistant"})] + [chunk(d) for d in deltas] + [chunk({}, "tool_calls"), b"data: [DONE]\n\n"]


def completion(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": "fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}


ERRORS: dict[str, tuple[int, bytes, str]] = {
    "error-openai": (404, json.dumps({"error": {"message": "The model `nope` does not exist", "type":
                     "invalid_request_error", "code": "model_not_found"}}).encode(), "application/json"),
    "error-lmstudio": (400, b'{"error": "Multiple models are loaded. Please specify a model"}', "application/json"),
    "error-vllm": (400, json.dumps({"object": "error", "message": "The model `x` does not exist.",
                   "type": "NotFoundError", "param": None, "code": 404}).encode(), "application/json"),
    "error-ollama": (404, json.dumps({"error": {"message": 'model "x" not found, try pulling it first',
                     "type": "api_error", "param": None, "code": None}}).encode(), "application/json"),
    "error-llamacpp": (400, json.dumps({"error": {"code": 400, "message": "the request exceeds the available "
                       "context size", "type": "exceed_context_size_error", "n_prompt_tokens": 9000,
                       "n_ctx": 4096}}).encode(), "application/json"),
    "error-text": (500, b"Internal failure in the model runner", "text/plain"),
    "error-empty": (503, b"", "text/plain"),
}


class FakeUpstream:
    """The ASGI app. `gate` lets a test decide when each gated SSE event is produced."""

    def __init__(self) -> None:
        self.received: list[Recorded] = []
        self.gate = threading.Semaphore(0)
        self.gate_timeouts = 0
        self.delay = 0.01

    def clear(self) -> None:
        self.received.clear()

    def last(self) -> Recorded:
        return self.received[-1]

    def wait_for_request(self, count: int = 1, timeout: float = 5.0) -> Recorded:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"upstream got {len(self.received)} request(s), expected {count}")
            time.sleep(0.01)
        return self.received[count - 1]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        record = Recorded(scope["method"], scope["path"], scope["query_string"].decode(),
                          [(k.decode().lower(), v.decode()) for k, v in scope["headers"]])
        self.received.append(record)
        record.body = await _read_body(receive)
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, record, gone))
        try:
            await self._answer(record, send, gone)
        finally:
            watcher.cancel()

    async def _answer(self, record: Recorded, send: Any, gone: asyncio.Event) -> None:
        path = record.path
        if path == "/v1/chat/completions":
            await self._chat(record, send, gone)
        elif path == "/v1/models":
            await _json(send, record, 200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        elif path == "/v1/gzip":
            body = gzip.compress(b'{"compressed": true}')
            await _send(send, record, 200, body, "application/json", [(b"content-encoding", b"gzip")])
        elif path == "/v1/broken-json":
            await _start(send, 200, "application/json")
            await send({"type": "http.response.body", "body": b'{"partial": ', "more_body": True})
        elif path.startswith("/v1/sse"):
            await self._sse(record, send, content_events(), gone)
        else:
            await _json(send, record, 200, _echo(record))

    async def _chat(self, record: Recorded, send: Any, gone: asyncio.Event) -> None:
        model = str(json.loads(record.body or b"{}").get("model", ""))
        if model in ERRORS:
            status, body, ctype = ERRORS[model]
            await _send(send, record, status, body, ctype)
        elif model == "hang":
            await gone.wait()
        elif model == "slow-json":
            await asyncio.sleep(1.5)
            await _json(send, record, 200, completion("late"))
        elif model in ("scripted", "tool-looper"):
            await self._scripted(record, send, gone)
        elif model == "tools-refused" and "tools" in record.json:
            await _send(send, record, 400, TOOLS_REFUSED, "application/json")
        elif model in SSE_SCENARIOS:
            await SSE_SCENARIOS[model](self, record, send, gone)
        else:
            await _json(send, record, 200, completion("echo: " + _last_user_text(record)),
                        extra=[(b"x-upstream-custom", b"yes"), (b"keep-alive", b"timeout=5"),
                               (b"proxy-authenticate", b"Basic")])

    async def _sse(self, record: Recorded, send: Any, events: list[bytes], gone: asyncio.Event,
                   gated: bool = False, stop_after: int | None = None, hang: bool = False) -> None:
        await _start(send, 200, "text/event-stream", [(b"cache-control", b"no-cache")])
        for number, event in enumerate(events):
            if stop_after is not None and number == stop_after:
                if hang:
                    await gone.wait()
                return  # returning mid-body: the server drops the connection
            await send({"type": "http.response.body", "body": event, "more_body": True})
            if gated and not await asyncio.to_thread(self.gate.acquire, True, 5):
                self.gate_timeouts += 1
            elif not gated:
                await asyncio.sleep(self.delay)
        record.finished = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _scripted(self, record: Recorded, send: Any, gone: asyncio.Event) -> None:
        body, headers = record.json, dict(record.headers)
        step = scripted_model.current_step(body, scripted_model.script_for(body, headers))
        if "fail" in step:
            error = {"error": {"message": "the model runner crashed", "type": "server_error", "code": None}}
            await _json(send, record, step["fail"], error)
        elif body.get("stream"):
            await self._sse(record, send, scripted_model.stream_events(body, headers), gone)
        else:
            await _json(send, record, 200, scripted_model.completion(body, headers))

    async def _split(self, record: Recorded, send: Any, gone: asyncio.Event) -> None:
        event = chunk({"content": "split"})
        await _start(send, 200, "text/event-stream")
        for part in (event[:10], event[10:30], event[30:], b"data: [DONE]\n\n"):
            await send({"type": "http.response.body", "body": part, "more_body": True})
            await asyncio.sleep(self.delay)
        record.finished = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _usage(self, record: Recorded, send: Any, gone: asyncio.Event) -> None:
        events = content_events()
        if json.loads(record.body).get("stream_options", {}).get("include_usage"):
            usage = chunk({}, choices=False)[:-3] + b', "usage": {"total_tokens": 5}}\n\n'
            events.insert(-1, usage)
        await self._sse(record, send, events, gone)


SSE_SCENARIOS: dict[str, Any] = {
    "sse": lambda up, r, s, g: up._sse(r, s, content_events(), g),
    "sse-gated": lambda up, r, s, g: up._sse(r, s, content_events(), g, gated=True),
    "sse-split": lambda up, r, s, g: up._split(r, s, g),
    "sse-empty": lambda up, r, s, g: up._sse(r, s, [], g),  # llama-cpp-python, prompt over its context
    "sse-usage": lambda up, r, s, g: up._usage(r, s, g),
    "tools": lambda up, r, s, g: up._sse(r, s, tool_events(whole=False), g),
    "tools-whole": lambda up, r, s, g: up._sse(r, s, tool_events(whole=True), g),
    "reset-mid-stream": lambda up, r, s, g: up._sse(r, s, content_events(), g, stop_after=3),
    "hang-mid-stream": lambda up, r, s, g: up._sse(r, s, content_events(), g, stop_after=2, hang=True),
    "lmstudio-stream-error": lambda up, r, s, g: up._sse(
        r, s, content_events()[:2] + [b'data: {"error": {"message": "Model unloaded"}}\n\n'], g),
}


def _last_user_text(record: Recorded) -> str:
    messages = json.loads(record.body).get("messages", [])
    users = [m for m in messages if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def _echo(record: Recorded) -> dict[str, Any]:
    return {"method": record.method, "path": record.path, "query": record.query,
            "body_bytes": len(record.body), "headers": dict(record.headers)}


async def _read_body(receive: Any) -> bytes:
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(parts)
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(parts)


async def _watch_disconnect(receive: Any, record: Recorded, gone: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    if not record.finished:
        record.closed_at = time.monotonic()
        record.closed_early.set()
    gone.set()


async def _start(send: Any, status: int, ctype: str, extra: list[tuple[bytes, bytes]] = ()) -> None:
    headers = [(b"content-type", ctype.encode())] + list(extra)
    await send({"type": "http.response.start", "status": status, "headers": headers})


async def _send(send: Any, record: Recorded, status: int, body: bytes, ctype: str,
                extra: list[tuple[bytes, bytes]] = ()) -> None:
    await _start(send, status, ctype, [(b"content-length", str(len(body)).encode()), *extra])
    record.finished = True
    await send({"type": "http.response.body", "body": body})


async def _json(send: Any, record: Recorded, status: int, data: Any, extra: list[tuple[bytes, bytes]] = ()) -> None:
    await _send(send, record, status, json.dumps(data).encode(), "application/json", extra)


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
