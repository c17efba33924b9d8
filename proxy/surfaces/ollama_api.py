"""Ollama's other native endpoints (`/api/tags`, `/api/show`, `/api/ps`, `/api/version`, ...), passed through.

What lives here: `OllamaApi.forward`, the route for every `/api/...` path and
method but `POST /api/chat` (which is `proxy.surfaces.ollama_chat`). The
request goes to the server's native root (`Upstream.native_root`) untouched;
the answer comes back as it comes (an NDJSON stream, such as `/api/pull`'s
progress, line by line, a failure framed as an `{"error": ...}` line). With
`upstreams:`, a request whose JSON body names a `model` (or `name`, as older
clients send to `/api/show`) goes to the upstream serving it; anything else
(`GET /api/tags` included) to the first upstream, so the model list a client
sees is the first upstream's. Errors are Ollama's `{"error": "..."}`.

What must not: change a request or an answer, or know about skills.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Request, Response

from proxy.core import json_codec
from proxy.middleware import DisconnectWatch
from proxy.relay.forwarding import Forwarder
from proxy.request_body import capped_stream, check_declared_length
from proxy.settings import Settings
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS
from proxy.upstream.client import Upstream, UpstreamResponse


class OllamaApi:
    def __init__(self, settings: Settings, forwarder: Forwarder) -> None:
        self.settings = settings
        self.forwarder = forwarder
        self.upstreams = forwarder.upstreams

    async def forward(self, request: Request, path: str) -> Response:
        check_declared_length(request, self.settings.max_body_bytes)
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        body_done = asyncio.Event()
        content = capped_stream(request, self.settings.max_body_bytes, body_done) if has_body else None
        if content is None:
            body_done.set()
        async with DisconnectWatch(request.receive, body_done) as watch:
            answer = await watch.guard(self._send(request, "api/" + path, content))
            return await self.forwarder.respond(answer, watch, OLLAMA_ERRORS, whole_json=False)

    async def _send(self, request: Request, path: str, content: Any) -> UpstreamResponse:
        upstream: Upstream | None = None
        if self.upstreams.routed and content is not None and _may_be_json(request.headers.get("content-type", "")):
            content = b"".join([chunk async for chunk in content])
            upstream = self.upstreams.for_model(_model_in(content))
        return await self.forwarder.send(request, path, content, True, upstream, native=True)


def _may_be_json(content_type: str) -> bool:
    """JSON, or no type, or curl's default for `-d` (how Ollama's own examples call it)."""
    kind = content_type.split(";")[0].strip().lower()
    return kind in ("", "application/x-www-form-urlencoded") or "json" in kind


def _model_in(raw: bytes) -> Any:
    """The body's `model` (or `name`), or None when it names none."""
    try:
        body = json_codec.loads(raw)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    return body.get("model") or body.get("name")
