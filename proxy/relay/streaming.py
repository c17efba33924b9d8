"""Relaying an upstream answer's body to the client as it arrives.

What lives here: the body iterators handed to the response, and `EventBuffer`,
which cuts bytes into whole SSE events. Bytes are never re-serialised: what the
client gets is what the upstream sent, comments, odd lines and all, and a
stream that ends without `[DONE]` ends without it. For SSE (`relay_events`:
`relay_whole_units` over an `EventBuffer`), bytes are passed
on up to the last complete event (the blank line that ends it), so an event
split across reads is sent as soon as it is whole and an error after the
stream began can be framed cleanly: `data: {"error": ...}` then
`data: [DONE]`; so is a stream that ends before its first event
(llama-cpp-python does that when a prompt is over its context). An event has
no size limit (a base64 image may be megabytes in one line), and each byte is
scanned once however many reads it comes in. The upstream response is closed
in every case (finished, failed, or cancelled because the client went away).

What must not: parse or change the events, or know about skills.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from proxy.core.sse import EVENT_END, LONGEST_EVENT_END
from proxy.errors import OPENAI_ERRORS, ErrorShape
from proxy.relay.framed import relay_whole_units
from proxy.relay.ndjson import relay_lines
from proxy.upstream.client import UpstreamResponse

SSE_HEADERS = (("cache-control", "no-cache"), ("x-accel-buffering", "no"))


class EventBuffer:
    """Bytes in as they arrive; out, the bytes up to the end of the last whole event."""

    def __init__(self) -> None:
        self._pending = bytearray()

    @property
    def rest(self) -> bytes:
        """What came after the last whole event (an event still incomplete)."""
        return bytes(self._pending)

    def feed(self, chunk: bytes) -> bytes:
        scan_from = max(len(self._pending) - (LONGEST_EVENT_END - 1), 0)  # earlier bytes hold no terminator
        self._pending += chunk
        end = 0
        for match in EVENT_END.finditer(self._pending, scan_from):
            end = match.end()
        complete = bytes(self._pending[:end])
        del self._pending[:end]
        return complete


def relay_events(upstream: UpstreamResponse,
                 errors: ErrorShape = OPENAI_ERRORS) -> AsyncIterator[bytes]:
    """SSE bytes, whole events at a time; a failure becomes an error event in the surface's shape."""
    return relay_whole_units(upstream, EventBuffer(), errors)


async def relay_bytes(upstream: UpstreamResponse) -> AsyncIterator[bytes]:
    """Any other body, chunk by chunk. A failure aborts the connection (nothing to frame)."""
    try:
        async for chunk in upstream.iter_bytes():
            yield chunk
    finally:
        await upstream.aclose()


def relay(upstream: UpstreamResponse, errors: ErrorShape = OPENAI_ERRORS) -> AsyncIterator[bytes]:
    if upstream.is_event_stream:
        return relay_events(upstream, errors)
    if upstream.is_ndjson:
        return relay_lines(upstream, errors)  # Ollama's stream: whole lines, a failure framed as a line
    return relay_bytes(upstream)


def stream_headers(upstream: UpstreamResponse) -> list[tuple[str, str]]:
    """The headers for the relayed answer: the upstream's, plus no-buffering hints for SSE."""
    if not upstream.is_event_stream:
        return list(upstream.headers)
    kept = [(k, v) for k, v in upstream.headers if k.lower() not in dict(SSE_HEADERS)]
    return kept + list(SSE_HEADERS)
