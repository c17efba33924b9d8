"""A real HTTP upstream that answers every chat surface with one short, valid answer and records what it got.

`POST /v1/chat/completions`, `/v1/responses`, `/v1/messages` and Ollama's
`/api/chat` each get a minimal answer in their own format (never streamed:
the parity tests ask for none), so one server stands in for any model server
when a test only needs to see what the proxy forwarded. `name` tells two of
them apart (per-upstream routing); `received` holds (path, headers, JSON body)
in arrival order.
"""

from __future__ import annotations

import json
from typing import Any

ANSWER = "ok"


class SurfaceEchoUpstream:
    def __init__(self, name: str = "echo") -> None:
        self.name = name
        self.received: list[tuple[str, dict[str, str], Any]] = []
        self.url = ""

    def clear(self) -> None:
        self.received.clear()

    def last(self, path: str | None = None) -> Any:
        bodies = [body for got, _, body in self.received if path is None or got == path]
        assert bodies, f"{self.name} received no request{' on ' + path if path else ''}"
        return bodies[-1]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                kind = (await receive())["type"]
                await send({"type": kind + ".complete"})  # lifespan.startup, then lifespan.shutdown
                if kind == "lifespan.shutdown":
                    return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        body = json.loads(raw) if raw else None
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        self.received.append((scope["path"], headers, body))
        status, answer = self._answer(scope["path"], body if isinstance(body, dict) else {})
        data = json.dumps(answer).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        model = body.get("model", "m")
        if path == "/v1/chat/completions":
            return 200, {"id": f"chatcmpl-{self.name}", "object": "chat.completion", "created": 1, "model": model,
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER},
                                      "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        if path == "/v1/responses":
            return 200, {"id": f"resp_{self.name}_{len(self.received)}", "object": "response", "created_at": 1,
                         "status": "completed", "model": model, "store": False,
                         "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                     "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}],
                         "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}
        if path == "/v1/messages":
            return 200, {"id": f"msg_{self.name}", "type": "message", "role": "assistant", "model": model,
                         "content": [{"type": "text", "text": ANSWER}], "stop_reason": "end_turn",
                         "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        if path == "/api/chat":
            return 200, {"model": model, "created_at": "2026-11-25T00:00:00Z",
                         "message": {"role": "assistant", "content": ANSWER}, "done": True, "done_reason": "stop",
                         "prompt_eval_count": 1, "eval_count": 1}
        return 404, {"error": f"no such path {path}"}
