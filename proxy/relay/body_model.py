"""Which upstream a passthrough request goes to, by the model its JSON body names.

What lives here: `upstream_for_body`, shared by the OpenAI passthrough and
Ollama's native endpoints when `upstreams:` routes by model. A body that may
be JSON (a JSON type, no type, or curl's default for `-d`; not an upload
such as multipart, audio or octet-stream) is read whole and the model it
names picks the upstream; the body read goes on to the upstream in its
place. A body that cannot be JSON, or none, chooses nothing and is sent as
it streams.

What must not: change the body, or know which field names the model in a
surface (the caller says).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from proxy.core import json_codec
from proxy.upstream.client import Upstream
from proxy.upstream.upstreams import Upstreams

ModelOf = Callable[[Mapping[str, Any]], Any]  # the model a JSON object body names (None: none)


async def upstream_for_body(upstreams: Upstreams, content_type: str, content: Any,
                            model_of: ModelOf) -> tuple[Upstream | None, Any]:
    """The upstream serving the body's model (None when the body cannot say), and the body to send."""
    if content is None or not may_be_json(content_type):
        return None, content
    raw = b"".join([chunk async for chunk in content])
    return upstreams.for_model(_model_in(raw, model_of)), raw


def may_be_json(content_type: str) -> bool:
    """JSON, or no type, or curl's default for `-d`; not an upload (multipart, audio, octet-stream)."""
    kind = content_type.split(";")[0].strip().lower()
    return kind in ("", "application/x-www-form-urlencoded") or "json" in kind


def _model_in(raw: bytes, model_of: ModelOf) -> Any:
    try:
        body = json_codec.loads(raw)
    except ValueError:
        return None
    return model_of(body) if isinstance(body, dict) else None
