"""The response for a relayed stream: it stops, and its upstream closes, as soon as the client leaves.

What lives here: `RelayResponse`, a Starlette response that sends the upstream's
status and headers, then the body iterator's bytes as they come, while a
`DisconnectWatch` listens for the client going away. When it does, the pump is
cancelled where it waits and the body iterator is closed, which closes the
upstream answer (an endless stream would otherwise be read forever: uvicorn
drops writes to a closed connection without an error).

Starlette's StreamingResponse relies on anyio cancelling its pump task from a
second task; under a few hundred concurrent streams some pumps were never
cancelled and relayed to nobody indefinitely (bench/load_bench.py found 900 of
1,000 aborted streams still open). Here the pump runs in the request's own task
and is cancelled directly.

What must not: read or change the bytes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, MutableMapping
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import Response

from proxy.errors import ClientDisconnected
from proxy.middleware import DisconnectWatch
from proxy.request_record import request_record


class RelayResponse(Response):
    def __init__(self, body: AsyncIterator[bytes], status_code: int, headers: list[tuple[bytes, bytes]],
                 background: BackgroundTask | None = None) -> None:
        self.body_iterator = body
        self.status_code = status_code
        self.raw_headers = headers
        self.background = background

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            async with DisconnectWatch(receive) as watch:
                await watch.guard(self._pump(send))
        except ClientDisconnected:
            request_record(scope).client_disconnected = True  # the status already sent stays in the log
        finally:
            await _close(self.body_iterator)
        if self.background is not None:
            await self.background()

    async def _pump(self, send: Any) -> None:
        async for chunk in self.body_iterator:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _close(body: AsyncIterator[bytes]) -> None:
    aclose = getattr(body, "aclose", None)
    if aclose is not None:
        await aclose()
