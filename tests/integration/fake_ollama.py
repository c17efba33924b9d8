"""A fake Ollama server: a raw ASGI app, served by a real uvicorn, speaking Ollama's native API.

No Ollama server can be installed on the test machine, so this one answers in
Ollama's documented shapes. `POST /api/chat` streams NDJSON unless the body
says `"stream": false` (then one JSON object): content in pieces, one line per
piece; tool calls whole (`{"id", "function": {"index", "name", "arguments":
{...}}}`), all of one answer's calls in one line, or one line each with
`x-fake-calls-per-line: 1`; a last line with `done: true`, `done_reason`,
`prompt_eval_count`, `eval_count` and the durations. What it says follows the
scripted model (scripted_model.py: the `x-fake-script` header, one step per
tool round after the newest user message). Models with special answers:
`no-tools` refuses a request with `tools` (HTTP 400, as Ollama answers for a
model without tool support); `error-midway` streams a piece, then an
`{"error": ...}` line, as Ollama reports a failure after the stream began;
`breaks-off` streams a piece and then drops the connection; `fails-after-tools`
answers HTTP 500 to a request that holds tool results (a later tool round).
`GET /api/tags`, `/api/ps`, `/api/version`, `POST /api/show` answer as Ollama
does; `POST /api/pull` streams NDJSON progress. Every request is recorded.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from . import scripted_model
from .fake_upstream import Recorded, _json, _lifespan, _read_body, _start

CREATED = "2026-01-01T00:00:00.000000Z"
TAGS = {"models": [{"name": "scripted:latest", "model": "scripted:latest", "modified_at": CREATED, "size": 1234,
                    "digest": "0" * 64, "details": {"parent_model": "", "format": "gguf", "family": "gemma3",
                                                   "families": ["gemma3"], "parameter_size": "270M",
                                                   "quantization_level": "Q8_0"}}]}
REFUSAL = {"error": "registry.ollama.ai/library/no-tools:latest does not support tools"}
EVAL_COUNT = 7


def prompt_count(body: dict[str, Any]) -> int:
    """The prompt's token count as this fake reports it: its messages' JSON length / 4."""
    return len(json.dumps(body.get("messages", []))) // 4


def calls_of(step: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    calls = []
    for index, call in enumerate(step.get("calls", [])):
        arguments = {k: (scripted_model.routed_name(body) if v == "{routed}" else v)
                     for k, v in call["arguments"].items()}
        calls.append({"id": f"call_{index}", "function": {"index": index, "name": call["name"],
                                                          "arguments": arguments}})
    return calls


def done_fields(body: dict[str, Any]) -> dict[str, Any]:
    return {"done": True, "done_reason": "stop", "total_duration": 5_000_000, "load_duration": 1_000_000,
            "prompt_eval_count": prompt_count(body), "prompt_eval_duration": 2_000_000,
            "eval_count": EVAL_COUNT, "eval_duration": 2_000_000}


def answer_of(body: dict[str, Any], headers: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    step = scripted_model.current_step(body, scripted_model.script_for(body, headers))
    return step.get("answer", step.get("content")) or "", calls_of(step, body)


def whole_answer(body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    content, calls = answer_of(body, headers)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {"model": body.get("model"), "created_at": CREATED, "message": message, **done_fields(body)}


def stream_lines(body: dict[str, Any], headers: dict[str, str]) -> list[bytes]:
    content, calls = answer_of(body, headers)
    model = body.get("model")
    lines = [{"model": model, "created_at": CREATED, "message": {"role": "assistant", "content": piece},
              "done": False} for piece in _pieces(content)]
    groups = [[call] for call in calls] if headers.get("x-fake-calls-per-line") else [calls] if calls else []
    lines += [{"model": model, "created_at": CREATED,
               "message": {"role": "assistant", "content": "", "tool_calls": group}, "done": False}
              for group in groups]
    lines.append({"model": model, "created_at": CREATED, "message": {"role": "assistant", "content": ""},
                  **done_fields(body)})
    return [json.dumps(line).encode() + b"\n" for line in lines]


def _pieces(text: str) -> list[str]:
    words = text.split(" ")
    return [word if i == 0 else " " + word for i, word in enumerate(words)] if text else []


class FakeOllama:
    def __init__(self) -> None:
        self.received: list[Recorded] = []
        self.url = ""

    def clear(self) -> None:
        self.received.clear()

    def chats(self) -> list[Recorded]:
        return [r for r in self.received if r.path == "/api/chat"]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        record = Recorded(scope["method"], scope["path"], scope["query_string"].decode(),
                          [(k.decode().lower(), v.decode()) for k, v in scope["headers"]])
        self.received.append(record)
        record.body = await _read_body(receive)
        path = scope["path"]
        if path == "/api/chat" and record.method == "POST":
            await self._chat(record, send)
        elif path == "/api/tags":
            await _json(send, record, 200, TAGS)
        elif path == "/api/ps":
            await _json(send, record, 200, {"models": []})
        elif path == "/api/version":
            await _json(send, record, 200, {"version": "0.14.0"})
        elif path == "/api/show":
            await _json(send, record, 200, {"modelfile": "FROM scripted", "details": TAGS["models"][0]["details"],
                                            "model_info": {"general.architecture": "gemma3"},
                                            "capabilities": ["completion", "tools"], "asked": record.json})
        elif path == "/api/pull":
            await _ndjson(send, record, [b'{"status":"pulling manifest"}\n', b'{"status":"success"}\n'])
        else:
            await _json(send, record, 404, {"error": f"404 page not found: {path}"})

    async def _chat(self, record: Recorded, send: Any) -> None:
        body = record.json
        headers = dict(record.headers)
        model = body.get("model")
        if model == "fails-after-tools" and any(m.get("role") == "tool" for m in body.get("messages", [])):
            await _json(send, record, 500, {"error": "model runner has unexpectedly stopped"})
            return
        if model == "no-tools" and body.get("tools"):
            await _json(send, record, 400, REFUSAL)
            return
        if body.get("stream") is False:
            await _json(send, record, 200, whole_answer(body, headers))
            return
        lines = stream_lines(body, headers)
        if model == "error-midway":
            lines = [lines[0], b'{"error":"an error was encountered while running the model: out of memory"}\n']
        await _ndjson(send, record, lines, break_off=model == "breaks-off")


async def _ndjson(send: Any, record: Recorded, lines: list[bytes], break_off: bool = False) -> None:
    await _start(send, 200, "application/x-ndjson")
    for line in lines[:1] if break_off else lines:
        await send({"type": "http.response.body", "body": line, "more_body": True})
        await asyncio.sleep(0.005)
    if break_off:
        raise RuntimeError("the fake Ollama drops the connection mid-stream")
    record.finished = True
    await send({"type": "http.response.body", "body": b""})
