"""Relaying an upstream answer's body to the client as it arrives.

What lives here: the body iterators handed to the response. Bytes are never
re-serialised: what the client gets is what the upstream sent. For SSE, bytes
are passed on up to the last complete event (the blank line that ends it), so
an event split across reads is sent as soon as it is whole and an error after
the stream began can be framed cleanly: `data: {"error": ...}` then
`data: [DONE]`; so is a stream that ends before its first event (llama-cpp-python
does that when a prompt is over its context). The upstream response is closed in every case (finished,
failed, or cancelled because the client went away).

What must not: parse or change the events, or know about skills.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import structlog

from proxy.errors import ProxyError, empty_stream_error, sse_error_frame
from proxy.upstream import UpstreamResponse

log = structlog.get_logger("proxy.streaming")

EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
SSE_HEADERS = (("cache-control", "no-cache"), ("x-accel-buffering", "no"))


def split_complete_events(buffer: bytes) -> tuple[bytes, bytes]:
    """(bytes up to and including the last event terminator, the rest)."""
    end = 0
    for match in EVENT_END.finditer(buffer):
        end = match.end()
    return buffer[:end], buffer[end:]


async def relay_events(upstream: UpstreamResponse) -> AsyncIterator[bytes]:
    """SSE bytes, whole events at a time; a failure becomes a framed error event."""
    pending, received = b"", False
    try:
        async for chunk in upstream.iter_bytes():
            received = received or bool(chunk.strip())
            complete, pending = split_complete_events(pending + chunk)
            if complete:
                yield complete
        if pending:
            yield pending
        if not received:
            raise empty_stream_error(upstream.url)
    except ProxyError as error:
        log.warning("stream_error_framed", dropped_bytes=len(pending), code=error.code)
        yield sse_error_frame(error)
    finally:
        await upstream.aclose()


async def relay_bytes(upstream: UpstreamResponse) -> AsyncIterator[bytes]:
    """Any other body, chunk by chunk. A failure aborts the connection (nothing to frame)."""
    try:
        async for chunk in upstream.iter_bytes():
            yield chunk
    finally:
        await upstream.aclose()


def relay(upstream: UpstreamResponse) -> AsyncIterator[bytes]:
    return relay_events(upstream) if upstream.is_event_stream else relay_bytes(upstream)


def stream_headers(upstream: UpstreamResponse) -> list[tuple[str, str]]:
    """The headers for the relayed answer: the upstream's, plus no-buffering hints for SSE."""
    if not upstream.is_event_stream:
        return list(upstream.headers)
    kept = [(k, v) for k, v in upstream.headers if k.lower() not in dict(SSE_HEADERS)]
    return kept + list(SSE_HEADERS)
