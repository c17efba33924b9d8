"""Relaying a stream of whole units (SSE events, NDJSON lines) with failures framed.

What lives here: `UnitBuffer`, what a buffer that cuts bytes into whole units
offers, and `relay_whole_units`, the body iterator both framed streams share:
bytes go out up to the end of the last whole unit as soon as it is whole,
never re-serialised; a failure after the stream began, or a stream that ends
before its first unit, becomes the surface's error frame (`stream_frame`).
The upstream response is closed in every case (finished, failed, or cancelled
because the client went away).

What must not: know where a unit ends (the buffers do), parse or change the
units, or know about skills.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

import structlog

from proxy.errors import ErrorShape, ProxyError, empty_stream_error
from proxy.upstream.client import UpstreamResponse

log = structlog.get_logger("proxy.streaming")


class UnitBuffer(Protocol):
    """Bytes in as they arrive; out, the bytes up to the end of the last whole unit."""

    @property
    def rest(self) -> bytes: ...

    def feed(self, chunk: bytes) -> bytes: ...


async def relay_whole_units(upstream: UpstreamResponse, units: UnitBuffer,
                            errors: ErrorShape) -> AsyncIterator[bytes]:
    """The upstream's bytes, whole units at a time; a failure becomes the surface's error frame."""
    received = False
    try:
        async for chunk in upstream.iter_bytes():
            received = received or bool(chunk.strip())
            complete = units.feed(chunk)
            if complete:
                yield complete
        if units.rest:
            yield units.rest
        if not received:
            raise empty_stream_error(upstream.url)
    except ProxyError as error:
        log.warning("stream_error_framed", dropped_bytes=len(units.rest), code=error.code)
        yield errors.stream_frame(error)
    finally:
        await upstream.aclose()
