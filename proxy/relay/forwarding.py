"""Sending a client's request upstream and handing the answer back.

What lives here: `Forwarder.send` (the upstream URL and headers for a client
request, to the upstream the caller chose or the default one; a passthrough
body of a declared length up to 1 MiB is read first, so that a request meeting
a keep-alive connection the upstream closed can be sent again; the upstream's
name and time are noted for the request log; with tracing on, the request's
trace context goes upstream as `traceparent` instead of the client's),
`Forwarder.respond` (an error
answer in the surface's error shape, OpenAI's by default; a chat completion
that is not an event stream read whole first, so that an answer that breaks
off, stalls past `read_timeout` or is not JSON at all becomes a 502/504 the
client can act on rather than a cut connection or an HTML page; anything
else relayed as it comes), `Forwarder.pass_through` (a request's body
streamed upstream, capped, and the answer relayed) and `streaming_response`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from starlette.background import BackgroundTask
from starlette.requests import ClientDisconnect

from proxy.errors import OPENAI_ERRORS, ClientDisconnected, ErrorShape, completion_object
from proxy.middleware import DisconnectWatch
from proxy.relay.relay_response import RelayResponse
from proxy.relay.streaming import relay, stream_headers
from proxy.request_body import capped_stream, check_declared_length
from proxy.request_record import request_record
from proxy.tracing.request_trace import TraceHeaders, request_trace
from proxy.upstream.client import Upstream, UpstreamResponse
from proxy.upstream.upstreams import Upstreams

REPLAYABLE_BODY_BYTES = 1 << 20  # larger bodies (uploads) stream through as they come


class Forwarder:
    def __init__(self, upstreams: Upstreams) -> None:
        self.upstreams = upstreams

    async def send(self, request: Request, path: str, content: Any, keep_length: bool,
                   upstream: Upstream | None = None, native: bool = False,
                   trace_headers: TraceHeaders = ()) -> UpstreamResponse:
        """Send to `upstream` (the default one when None); the request's record notes which one.

        `native`: `path` is under the server's own root (Ollama's `/api/...`), not its OpenAI base.
        `trace_headers`: the trace context to send instead of the client's (by default, with tracing on, the
        request's own span's)."""
        upstream = upstream or self.upstreams.default
        url = (upstream.native_url_for if native else upstream.url_for)(path, request.url.query)
        record = request_record(request.scope)
        headers = upstream.request_headers([(k, v) for k, v in request.headers.items()], record.request_id, keep_length)
        headers = with_trace_headers(headers, trace_headers or request_trace(request.scope).upstream_headers())
        record.upstream = upstream.name
        try:
            content = await _replayable(request, content)
            answer = await upstream.send(request.method, url, headers, content)
        except ClientDisconnect:
            raise ClientDisconnected() from None
        record.upstream_ms = answer.upstream_ms
        return answer

    async def pass_through(self, request: Request, max_body_bytes: int,
                           send: Callable[[Any], Coroutine[Any, Any, UpstreamResponse]],
                           errors: ErrorShape = OPENAI_ERRORS, whole_json: bool | None = None) -> Response:
        """A passthrough: the request's body (None when it declares none) streamed to `send`, capped at
        `max_body_bytes`, and the answer relayed by `respond`; a client that goes away cancels both."""
        check_declared_length(request, max_body_bytes)
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        body_done = asyncio.Event()
        content = capped_stream(request, max_body_bytes, body_done) if has_body else None
        if content is None:
            body_done.set()
        async with DisconnectWatch(request.receive, body_done) as watch:
            answer = await watch.guard(send(content))
            return await self.respond(answer, watch, errors, whole_json)

    async def respond(self, answer: UpstreamResponse, watch: DisconnectWatch, errors: ErrorShape = OPENAI_ERRORS,
                      whole_json: bool | None = None) -> Response:
        """The upstream's answer relayed; an error answer in the surface's error shape. `whole_json`: the
        answer, when not a stream, must be one JSON object (by default: when it answers chat completions)."""
        if answer.status >= 400:
            raw = await answer.read_and_close(watch.guard)
            return JSONResponse(errors.upstream_answer(answer.status, raw, answer.base_url), status_code=answer.status)
        if whole_json is None:
            whole_json = _is_chat_completion(answer)
        if whole_json and not answer.is_event_stream:
            return _completion_response(answer, await answer.read_and_close(watch.guard))
        return streaming_response(answer, relay(answer, errors), BackgroundTask(answer.aclose))


def with_trace_headers(headers: list[tuple[str, str]], trace_headers: TraceHeaders) -> list[tuple[str, str]]:
    """`headers` with the client's trace context (if any) replaced by `trace_headers` (none: as they are)."""
    if not trace_headers:
        return headers
    names = {name for name, _ in trace_headers}
    return [(k, v) for k, v in headers if k.lower() not in names] + list(trace_headers)


def _is_chat_completion(answer: UpstreamResponse) -> bool:
    return answer.method == "POST" and answer.url.split("?", 1)[0] == answer.base_url + "/chat/completions"


async def _replayable(request: Request, content: Any) -> Any:
    """A streamed body of a small declared length, read whole; any other body as it is."""
    declared = request.headers.get("content-length", "")
    if not isinstance(content, AsyncIterable) or not declared.isdigit() or int(declared) > REPLAYABLE_BODY_BYTES:
        return content
    return b"".join([chunk async for chunk in content])


def _completion_response(answer: UpstreamResponse, raw: bytes) -> Response:
    """The upstream's own bytes, once they are known to be a JSON object."""
    completion_object(answer.url, answer.status, answer.content_type, raw)
    response = Response(raw, status_code=answer.status)
    response.raw_headers = [*_raw_headers(stream_headers(answer)), (b"content-length", str(len(raw)).encode())]
    return response


def streaming_response(answer: UpstreamResponse, body: AsyncIterator[bytes],
                       background: BackgroundTask | None = None) -> RelayResponse:
    """The client's response: the upstream's status and headers, `body` as it comes."""
    return RelayResponse(body, answer.status, _raw_headers(stream_headers(answer)), background)


def _raw_headers(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
