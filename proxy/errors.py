"""The proxy's one error hierarchy and how errors look on the wire.

What lives here: `ErrorCode`, every `code` the proxy itself puts in an error;
`ProxyError` and its kinds, each with an HTTP status hint;
rendering an error as OpenAI's `{"error": {"message", "type", "code"}}`; turning
the error bodies of other servers (LM Studio's `{"error": "text"}`, vLLM's
legacy `{"object": "error", ...}`, FastAPI's `{"detail": ...}`, plain text, and
the HTML pages of whatever stands in front of them: nginx, Cloudflare) into that
shape, and the error for an answer that is not what was asked for (an HTML page
or plain text where a chat completion should be).

What must not: any web framework or HTTP client. Mapping httpx exceptions to
these kinds happens in `proxy.upstream.client` only.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Protocol, TypedDict

from proxy.core import json_codec
from proxy.core.sse import DONE_FRAME

MAX_TEXT_CHARS = 2000
MAX_PAGE_CHARS = 300
MAX_PAGE_BYTES = 100_000  # an HTML error page is read this far: its title and first words are what matter
_HTML_START = re.compile(r"\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)
_HTML_HIDDEN = re.compile(r"<(script|style|noscript)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_HTML_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>")
BASE_URL_HINT = "is `upstream` the model server's OpenAI API base URL (usually ending in /v1)?"


class ErrorCode(StrEnum):
    """The `code` of an error the proxy answers with itself, as clients and logs see it."""

    INTERNAL_ERROR = "internal_error"
    # the client's request
    INVALID_REQUEST = "invalid_request"
    INVALID_API_KEY = "invalid_api_key"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    PATH_REFUSED = "path_refused"
    REQUEST_TOO_LARGE = "request_too_large"
    INVALID_BODY = "invalid_body"
    INVALID_JSON = "invalid_json"
    JSON_TOO_DEEP = "json_too_deep"
    NUMBER_OUT_OF_RANGE = "number_out_of_range"
    INVALID_MESSAGES = "invalid_messages"
    TOO_MANY_MESSAGES = "too_many_messages"
    INVALID_SKILLS_HEADER = "invalid_skills_header"
    MODEL_NOT_FOUND = "model_not_found"
    SKILL_NOT_FOUND = "skill_not_found"
    REQUEST_NOT_FOUND = "request_not_found"
    INVALID_LIMIT = "invalid_limit"
    # the upstream
    UPSTREAM_ERROR = "upstream_error"
    UPSTREAM_UNREACHABLE = "upstream_unreachable"
    UPSTREAM_TIMEOUT = "upstream_timeout"
    UPSTREAM_PROTOCOL_ERROR = "upstream_protocol_error"
    UPSTREAM_CONNECTION_CLOSED = "upstream_connection_closed"
    UPSTREAM_MISCONFIGURED = "upstream_misconfigured"
    UPSTREAM_EMPTY_STREAM = "upstream_empty_stream"
    UPSTREAM_BAD_STREAM = "upstream_bad_stream"
    UPSTREAM_INVALID_RESPONSE = "upstream_invalid_response"
    UPSTREAM_HTML_ERROR = "upstream_html_error"
    # the skill tool loop
    TOOL_ROUNDS_EXCEEDED = "tool_rounds_exceeded"


class ProxyError(Exception):
    """An error the proxy answers with itself; `status` is the HTTP status hint."""

    status = 500
    type = "server_error"
    code: str = ErrorCode.INTERNAL_ERROR

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def body(self) -> ErrorBody:
        return error_body(self.message, self.type, self.code)


class BadRequest(ProxyError):
    status = 400
    type = "invalid_request_error"
    code = ErrorCode.INVALID_REQUEST


class Unauthorized(ProxyError):
    status = 401
    type = "invalid_request_error"
    code = ErrorCode.INVALID_API_KEY


class NotFound(ProxyError):
    status = 404
    type = "invalid_request_error"
    code = ErrorCode.NOT_FOUND


class BodyTooLarge(ProxyError):
    status = 413
    type = "invalid_request_error"
    code = ErrorCode.REQUEST_TOO_LARGE


class UpstreamError(ProxyError):
    """The upstream could not be reached, broke off, or answered nonsense."""

    status = 502
    type = "upstream_error"
    code = ErrorCode.UPSTREAM_UNREACHABLE


def empty_stream_error(url: str) -> UpstreamError:
    return UpstreamError(f"upstream {url} ended the event stream without sending any event; its own log may say "
                         "why (a prompt longer than its context is a common cause)",
                         code=ErrorCode.UPSTREAM_EMPTY_STREAM)


def invalid_answer_error(url: str, status: int, content_type: str, raw: bytes) -> UpstreamError:
    """An answer that should have been a chat completion (a JSON object) and is something else."""
    what = content_type.split(";")[0].strip() or "no content type"
    if "json" in what and raw.strip() and not is_html(raw):
        why = (f"{len(raw)} bytes that do not parse as a JSON object ({readable_text(raw)[:120]!r}); the answer may "
               "have been cut off or mangled: see the model server's log")
    else:
        shown = f'an HTML page: "{html_summary(raw)}"' if is_html(raw) else repr(readable_text(raw)[:200])
        why = f"{shown if raw.strip() else 'an empty body'}; {BASE_URL_HINT}"
    return UpstreamError(f"upstream {url} answered HTTP {status} ({what}) instead of a chat completion, with {why}",
                         code=ErrorCode.UPSTREAM_INVALID_RESPONSE)


def completion_object(url: str, status: int, content_type: str, raw: bytes) -> dict[str, Any]:
    """The chat completion in `raw`: a JSON object, or else the `invalid_answer_error` that says what came."""
    data = _parse_json(raw)
    if not isinstance(data, dict):
        raise invalid_answer_error(url, status, content_type, raw)
    return data


class UpstreamTimeout(UpstreamError):
    status = 504
    code = ErrorCode.UPSTREAM_TIMEOUT


class ClientDisconnected(Exception):
    """The client went away; nothing is sent, the request is logged with status 499."""


class ErrorObject(TypedDict):
    message: str
    type: str
    code: Any  # one of ours is an ErrorCode; an upstream's may be any JSON value, or null


class ErrorBody(TypedDict):
    """An error answer in the OpenAI shape: `{"error": {"message", "type", "code"}}`."""

    error: ErrorObject


def error_body(message: str, type_: str, code: Any) -> ErrorBody:
    return {"error": {"message": message, "type": type_, "code": code}}


def error_bytes(error: ProxyError) -> bytes:
    """The error as JSON in the standard library's spelling (`"code": "..."`), which clients of the stream see."""
    return json.dumps(error.body(), ensure_ascii=False).encode("utf-8")


def sse_error_frame(error: ProxyError) -> bytes:
    """A mid-stream error as SSE: one `data: {"error": ...}` event, then `data: [DONE]`."""
    return b"data: " + error_bytes(error) + b"\n\n" + DONE_FRAME


class ErrorShape(Protocol):
    """How one surface's clients expect an error: an answer's body, an upstream's error re-shaped, a stream's."""

    def answer(self, error: ProxyError) -> bytes:
        """The JSON body of an error answer the proxy makes itself (its status is `error.status`)."""
        ...

    def upstream_answer(self, status: int, raw: bytes, upstream: str) -> Any:
        """The JSON value the client gets for an upstream's error answer of any shape (same status)."""
        ...

    def stream_frame(self, error: ProxyError) -> bytes:
        """A failure after a stream began, as the surface's stream carries one, ending the stream."""
        ...


class OpenAIErrors:
    """OpenAI's shape: `{"error": {"message", "type", "code"}}`; in a stream, that object then `[DONE]`."""

    def answer(self, error: ProxyError) -> bytes:
        return error_bytes(error)

    def upstream_answer(self, status: int, raw: bytes, upstream: str) -> Any:
        return normalise_error(status, raw, upstream)

    def stream_frame(self, error: ProxyError) -> bytes:
        return sse_error_frame(error)


OPENAI_ERRORS = OpenAIErrors()


def is_openai_error(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("error"), dict) and "message" in data["error"]


def normalise_error(status: int, raw: bytes, upstream: str) -> Mapping[str, Any]:
    """The OpenAI-shaped body for an upstream error response of any shape.

    An upstream's own OpenAI error object passes on with every key it has (`param` too) and its
    values as they came: hence a mapping, where our own errors are an `ErrorBody`."""
    data = _parse_json(raw)
    type_ = "invalid_request_error" if status < 500 else "upstream_error"
    if data is None and is_html(raw):
        return error_body(_html_error_message(status, raw, upstream), type_, ErrorCode.UPSTREAM_HTML_ERROR)
    if is_openai_error(data):
        error = dict(data["error"])
        error.setdefault("type", type_)
        error.setdefault("code", None)
        return {"error": error}
    message, code = _message_and_code(data, raw)
    if not message:
        message = f"upstream {upstream} answered HTTP {status} with an empty body"
    return error_body(message, _type_of(data) or type_, code)


def is_html(raw: bytes) -> bool:
    return bool(_HTML_START.match(raw[:4096].decode("utf-8", "replace").lstrip("\ufeff")))


def html_summary(raw: bytes) -> str:
    """What a person would read on an HTML page: its title, then its visible text, in short."""
    page = _HTML_HIDDEN.sub(" ", raw[:MAX_PAGE_BYTES].decode("utf-8", "replace"))
    title_match = _HTML_TITLE.search(page)
    title = _plain(title_match.group(1)) if title_match else ""
    text = _plain(_HTML_TITLE.sub(" ", page))
    summary = f"{title}: {text}" if title and text and not text.startswith(title) else text or title
    return summary if len(summary) <= MAX_PAGE_CHARS else summary[:MAX_PAGE_CHARS - 1].rstrip() + "…"


def readable_text(raw: bytes) -> str:
    """A body as text for a message: HTML summarised, anything else decoded and cut to a length."""
    if is_html(raw):
        return html_summary(raw)
    return raw.decode("utf-8", errors="replace").strip()[:MAX_TEXT_CHARS]


def _plain(markup: str) -> str:
    return " ".join(html.unescape(_HTML_TAG.sub(" ", markup)).split())


def _html_error_message(status: int, raw: bytes, upstream: str) -> str:
    page = f'upstream {upstream} answered HTTP {status} with an HTML page, not an API error: "{html_summary(raw)}"'
    if status >= 500:
        return (f"{page}. A reverse proxy, load balancer or CDN in front of the model server answered: "
                "the model server behind it may be down, restarting or too slow; check it and its logs")
    return f"{page}; {BASE_URL_HINT}"


def _message_and_code(data: Any, raw: bytes) -> tuple[str, Any]:
    if isinstance(data, dict):
        inner = data.get("error")
        if isinstance(inner, str) and inner:
            return inner, data.get("code")
        for key in ("message", "detail", "error_message"):
            if data.get(key):
                value = data[key]
                return value if isinstance(value, str) else json.dumps(value), data.get("code")
    return readable_text(raw), None


def _type_of(data: Any) -> str | None:
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def _parse_json(raw: bytes) -> Any:
    try:
        return json_codec.loads(raw)
    except ValueError:
        return None
