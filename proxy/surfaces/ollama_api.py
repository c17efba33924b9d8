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

from collections.abc import Mapping
from typing import Any

from fastapi import Request, Response

from proxy.relay.body_model import upstream_for_body
from proxy.relay.forwarding import Forwarder
from proxy.settings import Settings
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS
from proxy.upstream.client import Upstream, UpstreamResponse


class OllamaApi:
    def __init__(self, settings: Settings, forwarder: Forwarder) -> None:
        self.settings = settings
        self.forwarder = forwarder
        self.upstreams = forwarder.upstreams

    async def forward(self, request: Request, path: str) -> Response:
        return await self.forwarder.pass_through(request, self.settings.max_body_bytes,
                                                 lambda content: self._send(request, "api/" + path, content),
                                                 OLLAMA_ERRORS, whole_json=False)

    async def _send(self, request: Request, path: str, content: Any) -> UpstreamResponse:
        upstream: Upstream | None = None
        if self.upstreams.routed:
            upstream, content = await upstream_for_body(self.upstreams, request.headers.get("content-type", ""),
                                                        content, _model_named)
        return await self.forwarder.send(request, path, content, True, upstream, native=True)


def _model_named(body: Mapping[str, Any]) -> Any:
    """The body's `model` (or `name`, as older clients send to `/api/show`)."""
    return body.get("model") or body.get("name")
