"""Errors as Anthropic's clients read them: `{"type": "error", "error": {"type", "message"}}`.

What lives here: `AnthropicErrors`, the `ErrorShape` of `/v1/messages` and
`/v1/messages/count_tokens`. The error's `type` follows its status the way
Anthropic's API names them (400 `invalid_request_error`, 401
`authentication_error`, 404 `not_found_error`, 413 `request_too_large`, 500
and 502 `api_error`, 529 `overloaded_error`, ...). An upstream's own
Anthropic-shaped error passes on as it came; any other error body (OpenAI's,
LM Studio's, an HTML page) is read as the OpenAI surface reads it and put
into this shape. A failure after a stream began is an `event: error` frame.

What must not: any web framework or HTTP client.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.core import json_codec
from proxy.errors import ProxyError, normalise_error

_TYPE_BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}
KNOWN_TYPES = frozenset({*_TYPE_BY_STATUS.values(), "api_error"})


def error_type(status: int) -> str:
    """Anthropic's error `type` for an HTTP status."""
    if status in _TYPE_BY_STATUS:
        return _TYPE_BY_STATUS[status]
    return "invalid_request_error" if 400 <= status < 500 else "api_error"


def anthropic_error(message: str, type_: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


def is_anthropic_error(data: Any) -> bool:
    return (isinstance(data, dict) and data.get("type") == "error" and isinstance(data.get("error"), dict)
            and isinstance(data["error"].get("message"), str))


class AnthropicErrors:
    def answer(self, error: ProxyError) -> bytes:
        return _bytes(anthropic_error(error.message, error_type(error.status)))

    def upstream_answer(self, status: int, raw: bytes, upstream: str) -> Any:
        data = _parse_json(raw)
        if is_anthropic_error(data):
            return data
        inner = normalise_error(status, raw, upstream)["error"]
        upstream_type = inner.get("type")
        kind = upstream_type if upstream_type in KNOWN_TYPES else error_type(status)
        return anthropic_error(str(inner.get("message") or f"upstream {upstream} answered HTTP {status}"), kind)

    def stream_frame(self, error: ProxyError) -> bytes:
        return error_event(error.message)


def error_event(message: str, type_: str = "api_error") -> bytes:
    """A mid-stream failure as Anthropic streams one: `event: error` and its data."""
    return b"event: error\ndata: " + _bytes(anthropic_error(message, type_)) + b"\n\n"


def _parse_json(raw: bytes) -> Any:
    try:
        return json_codec.loads(raw)
    except ValueError:
        return None


def _bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


ANTHROPIC_ERRORS = AnthropicErrors()
