"""A fake OpenAI-compatible upstream: a raw ASGI app served by a real uvicorn.

It records every request it receives (method, path, headers, body) and when the
client closed the connection early. What it answers is chosen by the request's
`model` on `/v1/chat/completions`, and by the path elsewhere (see `SSE_SCENARIOS`,
`ERRORS`, and `FAULTS` for the upstream fault matrix: streamed when the request
says `stream`, a JSON completion otherwise). A fault's `x-fault-gap` header sets
its pause in seconds; with `x-fault-round: N` the scripted model answers rounds
before N (its `x-fake-script`), so a fault can hit a later round of a tool loop.
Faults HTTP itself cannot express (bad status lines, wrong lengths, closed
keep-alive connections) are in raw_upstream.py.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
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
    return [*events, chunk({}, finish="stop"), b"data: [DONE]\n\n"]


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

NGINX_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
             b"</center>\r\n<hr><center>nginx/1.24.0 (Ubuntu)</center>\r\n</body>\r\n</html>\r\n")
NGINX_504 = NGINX_502.replace(b"502 Bad Gateway", b"504 Gateway Time-out")
CLOUDFLARE_502 = (b'<!DOCTYPE html>\n<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->\n'
                  b'<html lang="en-US"><head><title>models.example.com | 502: Bad gateway</title>'
                  b'<meta charset="UTF-8" /><style>body{margin:0;padding:0}' + b"#cf-wrapper{display:block}" * 200 +
                  b'</style><script>(function(){window._cf_chl_opt={cvId: "3"};})();</script></head><body>'
                  b'<div id="cf-wrapper"><h1><span class="inline-block">Bad gateway</span> '
                  b'<span class="code-label">Error code 502</span></h1><p>Visit <a href="https://www.cloudflare.com">'
                  b'cloudflare.com</a> for more information.</p><div class="cf-error-details"><h2>What happened?</h2>'
                  b'<p>The web server reported a bad gateway error.</p><h2>What can I do?</h2><p>Please try again in a '
                  b'few minutes.</p></div><span>Cloudflare Ray ID: <strong>8f1e2d3c4b5a6978</strong></span></div>'
                  b"</body></html>")
LOGIN_PAGE = (b"<!doctype html><html><head><title>Sign in &middot; Model Gateway</title><script>var a=1;</script>"
              b"</head><body><form><h1>Sign in to continue</h1><input name=user></form></body></html>")
OPENAI_500 = json.dumps({"error": {"message": "CUDA error: out of memory", "type": "server_error",
                                   "code": "internal_error"}}).encode()
DETAIL_503 = json.dumps({"detail": "Service Unavailable: the model is still loading"}).encode()
# model -> (status, body, content type): answered whatever the request asked for
FAULT_ANSWERS: dict[str, tuple[int, bytes, str]] = {
    "fault-500-openai": (500, OPENAI_500, "application/json"),
    "fault-503-detail": (503, DETAIL_503, "application/json"),
    "fault-502-nginx": (502, NGINX_502, "text/html"),
    "fault-504-nginx": (504, NGINX_504, "text/html"),
    "fault-502-cloudflare": (502, CLOUDFLARE_502, "text/html; charset=UTF-8"),
    "fault-200-html": (200, LOGIN_PAGE, "text/html"),
    "fault-200-text": (200, b"OK", "text/plain"),
    "fault-200-bad-json": (200, b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [', "application/json"),
}


def big_image() -> str:
    """About 2 MB of base64 in one string, the same every time (a generated image in one event)."""
    seed = b"".join(hashlib.sha256(str(n).encode()).digest() for n in range(46_000))
    return "data:image/png;base64," + base64.b64encode(seed).decode()


BIG_IMAGE = big_image()
FAULT_TEXT = "".join(SSE_WORDS)


def garbage_events() -> list[bytes]:
    """What some servers put between chunks: comments, odd fields, non-JSON data, blank lines, CRLF."""
    role, *words, finish, done = content_events()
    return [b": ping\n\n", role, b"event: ping\n\n", b"data: not json\n\n", b"\n\n",
            words[0].replace(b"\n", b"\r\n"), b"id: 1\nretry: 100\n\n", b"garbage line\n" + words[1],
            b": comment\r\n\r\n", b'data: ["a", "list"]\n\n', *words[2:], finish, done]


def fault_events(model: str) -> list[bytes]:
    """The events a streamed fault scenario sends, for tests to compare with what arrived."""
    events = content_events()
    if model == "fault-no-done":
        return events[:-1]
    if model == "fault-no-done-unterminated":
        return [*events[:-2], events[-2].rstrip(b"\n")]
    if model == "fault-garbage":
        return garbage_events()
    if model == "fault-big-line":
        return [events[0], chunk({"content": BIG_IMAGE}), events[-2], events[-1]]
    return events


def fault_completion(model: str) -> bytes:
    return json.dumps(completion(BIG_IMAGE if model == "fault-big-line" else FAULT_TEXT)).encode()


class FakeUpstream:
    """The ASGI app. `gate` lets a test decide when each gated SSE event is produced."""

    def __init__(self) -> None:
        self.received: list[Recorded] = []
        self.gate = threading.Semaphore(0)
        self.gate_timeouts = 0
        self.delay = 0.01
        self.url = ""  # where it listens: set by the `upstream` fixture once the server is up

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
        elif model.startswith("fault-"):
            await self._fault(model, record, send, gone)
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

    async def _fault(self, model: str, record: Recorded, send: Any, gone: asyncio.Event) -> None:
        headers = dict(record.headers)
        if round_of(record.json) < int(headers.get("x-fault-round", "1")):
            await self._scripted(record, send, gone)
            return
        gap, stream = float(headers.get("x-fault-gap", "2.0")), bool(record.json.get("stream"))
        if model in FAULT_ANSWERS:
            await _send(send, record, *FAULT_ANSWERS[model])
        elif model == "fault-401-echo-key":  # as some servers do: the key they refused, in full
            refused = headers.get("authorization", "").removeprefix("Bearer ")
            error = {"error": {"message": f"Incorrect API key provided: {refused}", "type": "invalid_request_error",
                               "code": "invalid_api_key"}}
            await _json(send, record, 401, error)
        elif model == "fault-slow-headers":
            await asyncio.sleep(gap)
            await self._fault("fault-plain", record, send, gone)
        elif model == "fault-slow-body":
            await self._trickle(record, send, gap, stream, gone)
        elif model == "fault-reset" and stream:
            await self._sse(record, send, content_events(), gone, stop_after=3)
        elif model == "fault-reset":
            body = fault_completion(model)
            await _start(send, 200, "application/json", [(b"content-length", str(len(body)).encode())])
            await send({"type": "http.response.body", "body": body[:40], "more_body": True})
        elif stream:
            await self._sse(record, send, fault_events(model), gone)
        else:
            await _send(send, record, 200, fault_completion(model), "application/json")

    async def _trickle(self, record: Recorded, send: Any, gap: float, stream: bool, gone: asyncio.Event) -> None:
        """The answer in pieces, `gap` seconds apart (until the client leaves)."""
        body = fault_completion("fault-slow-body")
        pieces = content_events() if stream else [body[:30], body[30:90], body[90:]]
        await _start(send, 200, "text/event-stream" if stream else "application/json")
        for number, piece in enumerate(pieces):
            await asyncio.sleep(gap if number else 0)
            if gone.is_set():
                return
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        record.finished = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})

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
        r, s, [*content_events()[:2], b'data: {"error": {"message": "Model unloaded"}}\n\n'], g),
}


def round_of(body: dict[str, Any]) -> int:
    """1 for the first request of a turn; one more for each tool-call answer after the newest user message."""
    messages = body.get("messages") or []
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return 1 + sum(1 for m in messages[last_user + 1:] if m.get("role") == "assistant" and m.get("tool_calls"))


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
    headers = [(b"content-type", ctype.encode()), *list(extra)]
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
