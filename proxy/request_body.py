"""Reading a client's request: the body under its size cap, a chat request's JSON, the X-Skills-* headers.

What lives here: reading a whole body or streaming one through, both under
`max_body_bytes` (a clear 413, not a hang or a truncation), and checking that
a chat request is a JSON object with `messages` (a clear 400 otherwise) of at
most `max_messages` (413). JSON the proxy could not forward faithfully is a
400 too: numbers out of a double's range (`1e400`, which would go out as
`Infinity`) or longer than Python reads (4,300 digits), `NaN`/`Infinity`
literals, and nesting deeper than `MAX_JSON_DEPTH`. Anything else odd inside
is left for the upstream to judge.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request
from starlette.requests import ClientDisconnect

from proxy.core import json_codec
from proxy.core.turns.modes import SkillsMode
from proxy.core.turns.request_options import BadSkillsHeader, RequestOptions, options_from_headers
from proxy.errors import BadRequest, BodyTooLarge, ClientDisconnected, ErrorCode

# Deeper JSON is refused: far more than any chat request needs (a tool's JSON
# schema ten objects deep is about 25 levels), and well inside what the
# Python code that copies, hashes and logs a request can recurse through.
MAX_JSON_DEPTH = 128


# The chat request as the OpenAPI document describes it (openapi_extra). Documentation only: the
# handlers read the raw body and check just what they must act on, so a request that strays from
# this (unknown fields, other roles, odd content) is still forwarded for the upstream to judge.
_TEXT_PART = {"type": "object", "required": ["type", "text"],
              "properties": {"type": {"const": "text"}, "text": {"type": "string"}}}
_OTHER_PART = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
_MESSAGE = {
    "type": "object",
    "required": ["role"],
    "properties": {
        "role": {"type": "string", "enum": ["system", "developer", "user", "assistant", "tool"]},
        "content": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"anyOf": [_TEXT_PART, _OTHER_PART]}},
                              {"type": "null"}]},
        "name": {"type": "string"},
        "tool_call_id": {"type": "string"},
        "tool_calls": {"type": "array", "items": {"type": "object"}},
    },
}
_SKILLS_HEADERS = [
    {"name": "X-Skills-Mode", "in": "header", "required": False,
     "schema": {"type": "string", "enum": [mode.value for mode in SkillsMode]}},
    {"name": "X-Skills-Allow", "in": "header", "required": False, "schema": {"type": "string"}},
    {"name": "X-Skills-Deny", "in": "header", "required": False, "schema": {"type": "string"}},
]
CHAT_REQUEST_DOC: dict[str, Any] = {
    "parameters": _SKILLS_HEADERS,
    "requestBody": {"required": True, "content": {"application/json": {"schema": {
        "type": "object",
        "required": ["messages"],
        "properties": {
            "model": {"type": "string"},
            "messages": {"type": "array", "items": _MESSAGE},
            "stream": {"type": "boolean"},
            "tools": {"type": "array", "items": {"type": "object"}},
        },
    }}}},
}

async def read_body(request: Request, limit: int) -> bytes:
    check_declared_length(request, limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(size, limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise ClientDisconnected() from None
    return b"".join(chunks)


async def capped_stream(request: Request, limit: int, done: asyncio.Event) -> AsyncIterator[bytes]:
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(size, limit)
        yield chunk
    done.set()


def check_declared_length(request: Request, limit: int) -> None:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(int(declared), limit)


def _too_large(size: int, limit: int) -> BodyTooLarge:
    return BodyTooLarge(f"request body ({size} bytes or more) is over the limit of {limit} bytes; "
                        "raise `max_body_bytes` (SKILLPROXY_MAX_BODY_BYTES) to accept it")


def parse_chat_body(raw: bytes, max_messages: int | None = None) -> dict[str, Any]:
    """The chat request in `raw`; a 400 or 413 that names the problem when the proxy cannot act on it."""
    body = load_json_body(raw)
    if not isinstance(body, dict):
        raise BadRequest(f"request body must be a JSON object, not {json_type(body)}", code=ErrorCode.INVALID_BODY)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise BadRequest("request body needs `messages`: a list of chat messages", code=ErrorCode.INVALID_MESSAGES)
    if max_messages is not None and len(messages) > max_messages:
        raise BodyTooLarge(f"request has {len(messages)} messages, over the limit of {max_messages}; raise "
                           "`max_messages` (SKILLPROXY_MAX_MESSAGES) to accept it", code=ErrorCode.TOO_MANY_MESSAGES)
    return body


def load_json_body(raw: bytes) -> Any:
    # What orjson refuses (the odd cases the careful reader names) or may read differently (long whole
    # numbers) is judged by the careful reader.
    data = json_codec.loads(raw, _careful_load)
    if _deeper_than(data, MAX_JSON_DEPTH):
        raise _too_deep()
    return data


def _careful_load(raw: bytes) -> Any:
    try:
        return json.loads(raw, parse_float=_finite_float, parse_int=_whole_number, parse_constant=_not_json)
    except RecursionError:
        raise _too_deep() from None
    except _OutOfRange as exc:
        raise BadRequest(f"request body holds {exc}", code=ErrorCode.NUMBER_OUT_OF_RANGE) from None
    except ValueError as exc:
        raise BadRequest(f"request body is not valid JSON: {exc}", code=ErrorCode.INVALID_JSON) from None


class _OutOfRange(ValueError):
    """A JSON number the proxy cannot carry: beyond a 64-bit float (it would go out as `Infinity`, which
    is not JSON), or a whole number longer than Python reads."""


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _OutOfRange(f"the number {text[:40]}, beyond what a 64-bit float holds; it cannot be forwarded as sent")
    return value


def _whole_number(text: str) -> int:
    digits, limit = len(text.lstrip("-")), sys.get_int_max_str_digits()  # limit 0: no limit
    if limit and digits > limit:
        raise _OutOfRange(f"a whole number of {digits} digits, more than the {limit} skillproxy reads")
    return int(text)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _too_deep() -> BadRequest:
    return BadRequest(f"request body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels, "
                      "more than skillproxy forwards", code=ErrorCode.JSON_TOO_DEEP)


def _deeper_than(data: Any, limit: int) -> bool:
    """True when `data` has arrays or objects nested more than `limit` levels deep (level by level, no recursion)."""
    level = [data] if isinstance(data, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [child for value in level for child in (value.values() if isinstance(value, dict) else value)
                 if isinstance(child, (dict, list))]
    return False


def json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def skills_options(request: Request) -> RequestOptions:
    """The request's X-Skills-Allow/-Deny/-Mode choices; a bad value is a 400 that names the header."""
    try:
        return options_from_headers({k.lower(): v for k, v in request.headers.items()})
    except BadSkillsHeader as exc:
        raise BadRequest(str(exc), code=ErrorCode.INVALID_SKILLS_HEADER) from None
