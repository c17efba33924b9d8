"""The proxy's one error hierarchy and how errors look on the wire.

What lives here: `ProxyError` and its kinds, each with an HTTP status hint;
rendering an error as OpenAI's `{"error": {"message", "type", "code"}}`; turning
the error bodies of other servers (LM Studio's `{"error": "text"}`, vLLM's
legacy `{"object": "error", ...}`, FastAPI's `{"detail": ...}`, plain text)
into that shape.

What must not: any web framework or HTTP client. Mapping httpx exceptions to
these kinds happens in `proxy.upstream` only.
"""

from __future__ import annotations

import json
from typing import Any

MAX_TEXT_CHARS = 2000


class ProxyError(Exception):
    """An error the proxy answers with itself; `status` is the HTTP status hint."""

    status = 500
    type = "server_error"
    code = "internal_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def body(self) -> dict[str, Any]:
        return error_body(self.message, self.type, self.code)


class BadRequest(ProxyError):
    status = 400
    type = "invalid_request_error"
    code = "invalid_request"


class Unauthorized(ProxyError):
    status = 401
    type = "invalid_request_error"
    code = "invalid_api_key"


class NotFound(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = "not_found"


class BodyTooLarge(ProxyError):
    status = 413
    type = "invalid_request_error"
    code = "request_too_large"


class UpstreamError(ProxyError):
    """The upstream could not be reached, broke off, or answered nonsense."""

    status = 502
    type = "upstream_error"
    code = "upstream_unreachable"


def empty_stream_error(url: str) -> UpstreamError:
    return UpstreamError(f"upstream {url} ended the event stream without sending any event; its own log may say "
                         "why (a prompt longer than its context is a common cause)", code="upstream_empty_stream")


class UpstreamTimeout(UpstreamError):
    status = 504
    code = "upstream_timeout"


class ClientDisconnected(Exception):
    """The client went away; nothing is sent, the request is logged with status 499."""


def error_body(message: str, type_: str, code: Any) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "code": code}}


def error_bytes(error: ProxyError) -> bytes:
    return json.dumps(error.body(), ensure_ascii=False).encode("utf-8")


def sse_error_frame(error: ProxyError) -> bytes:
    """A mid-stream error as SSE: one `data: {"error": ...}` event, then `data: [DONE]`."""
    return b"data: " + error_bytes(error) + b"\n\ndata: [DONE]\n\n"


def is_openai_error(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("error"), dict) and "message" in data["error"]


def normalise_error(status: int, raw: bytes, upstream: str) -> dict[str, Any]:
    """The OpenAI-shaped body for an upstream error response of any shape."""
    data = _parse_json(raw)
    type_ = "invalid_request_error" if status < 500 else "upstream_error"
    if is_openai_error(data):
        error = dict(data["error"])
        error.setdefault("type", type_)
        error.setdefault("code", None)
        return {"error": error}
    message, code = _message_and_code(data, raw)
    if not message:
        message = f"upstream {upstream} answered HTTP {status} with an empty body"
    return error_body(message, _type_of(data) or type_, code)


def _message_and_code(data: Any, raw: bytes) -> tuple[str, Any]:
    if isinstance(data, dict):
        inner = data.get("error")
        if isinstance(inner, str) and inner:
            return inner, data.get("code")
        for key in ("message", "detail", "error_message"):
            if data.get(key):
                value = data[key]
                return value if isinstance(value, str) else json.dumps(value), data.get("code")
    text = raw.decode("utf-8", errors="replace").strip()
    return text[:MAX_TEXT_CHARS], None


def _type_of(data: Any) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        return data["type"]
    return None


def _parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None
