"""Sending a client's request upstream and handing the answer back.

What lives here: `Forwarder.send` (the upstream URL and headers for a client
request; the upstream's time is noted for the request log), `Forwarder.respond`
(an error answer normalised to the OpenAI shape, anything else relayed as it
comes) and `streaming_response`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.background import BackgroundTask
from starlette.requests import ClientDisconnect

from proxy.errors import ClientDisconnected, normalise_error
from proxy.middleware import DisconnectWatch, request_fields, request_id_of
from proxy.streaming import relay, stream_headers
from proxy.upstream import Upstream, UpstreamResponse


class Forwarder:
    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream

    async def send(self, request: Request, path: str, content: Any, keep_length: bool) -> UpstreamResponse:
        url = self.upstream.url_for(path, request.url.query)
        headers = self.upstream.request_headers(
            [(k, v) for k, v in request.headers.items()], request_id_of(request.scope), keep_length)
        try:
            answer = await self.upstream.send(request.method, url, headers, content)
        except ClientDisconnect:
            raise ClientDisconnected() from None
        request_fields(request.scope)["upstream_ms"] = answer.upstream_ms
        return answer

    async def respond(self, answer: UpstreamResponse, watch: DisconnectWatch) -> Response:
        if answer.status >= 400:
            try:
                raw = await watch.guard(answer.read())
            finally:
                await answer.aclose()
            body = normalise_error(answer.status, raw, self.upstream.base_url)
            return JSONResponse(body, status_code=answer.status)
        return streaming_response(answer, relay(answer), BackgroundTask(answer.aclose))


def streaming_response(answer: UpstreamResponse, body: AsyncIterator[bytes], background: BackgroundTask | None = None,
               ) -> StreamingResponse:
    """The client's response: the upstream's status and headers, `body` as it comes."""
    response = StreamingResponse(body, status_code=answer.status, background=background)
    response.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in stream_headers(answer)]
    return response
