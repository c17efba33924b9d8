"""Relaying an NDJSON answer (one JSON object per line, Ollama's stream) as it arrives.

What lives here: `LineBuffer`, which cuts bytes into whole lines, and
`relay_lines`, the body iterator for an `application/x-ndjson` answer
(`relay_whole_units` over a `LineBuffer`): bytes go out up to the last
complete line as soon as it is whole, never re-serialised, so a failure
after the stream began can be framed as a line of its own (the surface's
`stream_frame`: `{"error": "..."}` for Ollama), and a stream that ends
before its first line is such a failure too. A line has no
size limit (an image in base64 may be megabytes). The upstream response is
closed in every case.

What must not: parse or change the lines, or know about skills.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from proxy.errors import ErrorShape
from proxy.relay.framed import relay_whole_units
from proxy.upstream.client import UpstreamResponse


class LineBuffer:
    """Bytes in as they arrive; out, the bytes up to the end of the last whole line."""

    def __init__(self) -> None:
        self._pending = bytearray()

    @property
    def rest(self) -> bytes:
        """What came after the last newline (a line still incomplete)."""
        return bytes(self._pending)

    def feed(self, chunk: bytes) -> bytes:
        newline = chunk.rfind(b"\n")
        if newline < 0:
            self._pending += chunk
            return b""
        complete = bytes(self._pending) + chunk[:newline + 1]
        self._pending = bytearray(chunk[newline + 1:])
        return complete


def iter_lines(data: bytes) -> list[bytes]:
    """Each line of `data` (which holds only whole lines), newline included."""
    return data.splitlines(keepends=True)


def relay_lines(upstream: UpstreamResponse, errors: ErrorShape) -> AsyncIterator[bytes]:
    """NDJSON bytes, whole lines at a time; a failure becomes an error line in the surface's shape."""
    return relay_whole_units(upstream, LineBuffer(), errors)
