"""Reading a client's request: the body under its size cap, a chat request's JSON, the X-Skills-* headers.

What lives here: reading a whole body or streaming one through, both under
`max_body_bytes` (a clear 413, not a hang or a truncation), and checking that
a chat request is a JSON object with `messages` (a clear 400 otherwise).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request
from starlette.requests import ClientDisconnect

from proxy.core.request_options import BadSkillsHeader, RequestOptions, options_from_headers
from proxy.errors import BadRequest, BodyTooLarge, ClientDisconnected


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


def parse_chat_body(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"request body is not valid JSON: {exc}", code="invalid_json") from None
    if not isinstance(body, dict):
        raise BadRequest(f"request body must be a JSON object, not {type(body).__name__}", code="invalid_body")
    if not isinstance(body.get("messages"), list):
        raise BadRequest("request body needs `messages`: a list of chat messages", code="invalid_messages")
    return body


def skills_options(request: Request) -> RequestOptions:
    """The request's X-Skills-Allow/-Deny/-Mode choices; a bad value is a 400 that names the header."""
    try:
        return options_from_headers({k.lower(): v for k, v in request.headers.items()})
    except BadSkillsHeader as exc:
        raise BadRequest(str(exc), code="invalid_skills_header") from None
