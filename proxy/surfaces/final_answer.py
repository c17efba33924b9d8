"""The non-streamed answer a tool loop ends with, in every surface: the upstream's bytes or the rounds' JSON.

What lives here: `final_json_answer`, which every `ToolLoopWire.final_response`
ends with: when the model did not use the proxy's tools (no round ran) the
client gets the upstream's own bytes; after rounds, the surface's body as
JSON. The upstream's headers go with it either way, but its content type and
length (the response sets its own). And `with_usage`, a body with `usage`
summed over the rounds.

What must not: know a surface's body (the wire builds it), or decide
whether the loop goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse, Response

from proxy.upstream.client import UpstreamResponse


def final_json_answer(answer: UpstreamResponse, raw: bytes, rounds_run: int, data: Mapping[str, Any]) -> Response:
    """`raw` as the upstream sent it when no round ran, else `data`; the upstream's status and headers."""
    headers = {k: v for k, v in answer.headers if k.lower() not in ("content-type", "content-length")}
    if rounds_run == 0:  # the model did not use the proxy's tools: the upstream's own bytes
        return Response(raw, answer.status, headers=headers, media_type=answer.content_type or "application/json")
    return JSONResponse(data, answer.status, headers=headers)


def with_usage(data: Mapping[str, Any], usage: dict[str, Any] | None) -> dict[str, Any]:
    """`data` with its `usage` replaced by the usage summed over the rounds (kept when there is none)."""
    return {**data, "usage": usage} if usage is not None else dict(data)
