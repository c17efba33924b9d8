"""A fast, deterministic OpenAI-style upstream for load runs, and what it promises to send.

`POST /v1/chat/completions` (and any path not named below) with `"stream": true`
answers `stream_events(seed, count)`:
`seed` and `max_tokens` (the event count) come from the request body, so a client can
compute the exact bytes it should receive through the proxy. `max_tokens` above
`ENDLESS` streams until the client goes away (for abort runs). `GET /stats` says how
many requests are open, how many finished, and when each disconnected request's
connection was seen closed (by `X-Request-ID`, on the machine-wide monotonic clock).

`POST /v1/responses`, `POST /v1/messages` and `POST /api/chat` answer in the
OpenAI Responses, Anthropic Messages and Ollama wire formats
(bench/surface_answers.py), non-streamed or streamed, with the same pause
between stream events.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

from bench import surface_answers

ENDLESS = 100_000
SURFACE_PATHS = frozenset({surface_answers.RESPONSES, surface_answers.MESSAGES, surface_answers.OLLAMA})
COMPLETION = json.dumps({
    "id": "chatcmpl-load", "object": "chat.completion", "created": 1, "model": "load",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


def stream_events(seed: int, count: int) -> list[bytes]:
    """The SSE events (each a complete `data: …\\n\\n`) answered for `seed`, ending in [DONE]."""
    return list(iter_stream_events(seed, count))


def iter_stream_events(seed: int, count: int) -> Iterator[bytes]:
    """`stream_events`, each built as it is sent: a long stream's first event goes out at once."""
    yield _chunk(seed, {"role": "assistant", "content": ""}, None)
    for number in range(count):
        yield _chunk(seed, {"content": f" w{seed}-{number}"}, None)
    yield _chunk(seed, {}, "stop")
    yield b"data: [DONE]\n\n"


def expected_stream(seed: int, count: int) -> bytes:
    return b"".join(stream_events(seed, count))


def _chunk(seed: int, delta: dict[str, Any], finish: str | None) -> bytes:
    data = {"id": f"chatcmpl-{seed}", "object": "chat.completion.chunk", "created": 1, "model": "load",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


class LoadUpstream:
    """The ASGI app. `gap` is the pause between stream events, in seconds."""

    def __init__(self, gap: float = 0.005) -> None:
        self.gap = gap
        self.open = 0
        self.finished = 0
        self.closed_at: dict[str, float] = {}
        self.answered = 0

    def stats(self) -> dict[str, Any]:
        return {"open": self.open, "finished": self.finished, "closed_at": dict(self.closed_at)}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
        elif scope["path"] == "/stats":
            await _send_json(send, json.dumps(self.stats()).encode())
        elif scope["path"] == "/stats/reset":
            self.finished, self.closed_at = 0, {}
            await _send_json(send, b"{}")
        elif scope["path"] in SURFACE_PATHS:
            await self._surface(scope["path"], receive, send)
        else:
            await self._chat(scope, receive, send)

    async def _surface(self, path: str, receive: Any, send: Any) -> None:
        body = json.loads(await _read_body(receive) or b"{}")
        self.answered += 1
        content_type, pieces = surface_answers.answer(path, body, self.answered)
        if content_type == surface_answers.JSON:
            await _send_json(send, b"".join(pieces))
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", content_type), (b"cache-control", b"no-cache")]})
        for piece in pieces:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            if self.gap:
                await asyncio.sleep(self.gap)
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        self.finished += 1

    async def _chat(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = json.loads(await _read_body(receive) or b"{}")
        if not body.get("stream"):
            await _send_json(send, COMPLETION)
            return
        request_id = dict(scope["headers"]).get(b"x-request-id", b"").decode()
        self.open += 1
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_wait_disconnect(receive, gone))
        try:
            if await self._stream(send, int(body.get("seed", 0)), int(body.get("max_tokens", 8)), gone):
                self.finished += 1
            else:
                self.closed_at[request_id] = time.monotonic()
        finally:
            watcher.cancel()
            self.open -= 1

    async def _stream(self, send: Any, seed: int, count: int, gone: asyncio.Event) -> bool:
        """True when every event went out; False when the client left first."""
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
        events = iter_stream_events(seed, count) if count < ENDLESS else _endless(seed)
        for event in events:
            if gone.is_set():
                return False
            await send({"type": "http.response.body", "body": event, "more_body": True})
            try:
                await asyncio.wait_for(gone.wait(), self.gap)
                return False
            except TimeoutError:
                pass
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return True


def _endless(seed: int) -> Any:
    number = 0
    while True:
        yield _chunk(seed, {"content": f" w{seed}-{number}"}, None)
        number += 1


async def _wait_disconnect(receive: Any, gone: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


async def _read_body(receive: Any) -> bytes:
    parts = []
    while True:
        message = await receive()
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(parts)


async def _send_json(send: Any, body: bytes) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def main() -> None:
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="the load-run upstream")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--gap", type=float, default=0.005, help="seconds between stream events")
    args = parser.parse_args()
    uvicorn.run(LoadUpstream(args.gap), host="127.0.0.1", port=args.port, log_level="warning",
                access_log=False, lifespan="on")


if __name__ == "__main__":
    main()
