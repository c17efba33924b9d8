"""The transport under the upstream client: httpx's API on aiohttp's connection pool.

What lives here: `AiohttpTransport`, an `httpx.AsyncBaseTransport` that sends
each request with one shared `aiohttp.ClientSession` and hands the answer back
as an `httpx.Response` whose body is read as it arrives; and the one mapping of
aiohttp's exceptions to httpx's kinds (`httpx_error`), so the rest of the
upstream client sees httpx's exceptions only, each of the kind it means: a
connection refused is a ConnectError, a pooled connection the server had
closed a RemoteProtocolError or ReadError (sent again by the caller), a stalled
answer a ReadTimeout, an answer that is not HTTP a RemoteProtocolError.

Why not httpcore: under 32 concurrent requests httpcore's pool, through anyio,
spent about half the proxy's CPU (every pooled connection checked on every
request); aiohttp's pool serves the same load at about twice the rate. A new
connection is noted in `opened_connections` (a context variable the caller
sets), so a failure on a reused connection can be told from one on a new one.

What must not: know about skills, chat or the proxy's error messages (`proxy.upstream.client` writes those).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import SimpleNamespace
from typing import Any

import aiohttp
import httpx

CHUNK_BYTES = 64 * 1024  # the most read at once; a read returns whatever has arrived, so a stream is never held

# The requests of one send attempt note here each new connection they open (set by the caller, per task).
opened_connections: ContextVar[list[str] | None] = ContextVar("opened_connections", default=None)


class AiohttpTransport(httpx.AsyncBaseTransport):
    """httpx requests sent through one aiohttp session (made on first use, inside the running loop)."""

    def __init__(self, keepalive_expiry: float) -> None:
        self._keepalive_expiry = keepalive_expiry
        self._session: aiohttp.ClientSession | None = None

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            tracing = aiohttp.TraceConfig()
            tracing.on_connection_create_start.append(_note_new_connection)
            # limit=0: no cap on connections (a cap would queue requests behind slow streams); no cookies kept,
            # no proxy from the environment (httpx mounts its own transport for those), no retries of its own.
            connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=self._keepalive_expiry)
            self._session = aiohttp.ClientSession(connector=connector, trace_configs=[tracing],
                                                  cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False,
                                                  skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding",
                                                                     "Content-Type"))
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeout = request.extensions.get("timeout", {})
        streamed = None if isinstance(request.stream, httpx.ByteStream) else _StreamedBody(request.stream)
        body: Any = request.content if streamed is None else streamed.chunks()
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "transfer-encoding"]
        with _mapped(request, streamed):
            answer = await self._session_now().request(
                request.method, str(request.url), headers=headers, data=body or None, allow_redirects=False,
                compress=False, server_hostname=request.extensions.get("sni_hostname"),
                timeout=aiohttp.ClientTimeout(total=None, connect=timeout.get("pool"),
                                              sock_connect=timeout.get("connect"), sock_read=timeout.get("read")))
        extensions = {"http_version": b"HTTP/1.1", "reason_phrase": (answer.reason or "").encode("latin-1")}
        return httpx.Response(answer.status, headers=answer.raw_headers, stream=_AnswerStream(answer, request),
                              request=request, extensions=extensions)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _AnswerStream(httpx.AsyncByteStream):
    def __init__(self, answer: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._answer = answer
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _mapped(self._request):
            async for chunk in self._answer.content.iter_chunked(CHUNK_BYTES):
                yield chunk

    async def aclose(self) -> None:
        # Released: back to the pool when the answer was read to its end, else the connection is closed.
        self._answer.release()


class _StreamedBody:
    """A request body sent as it comes; what went wrong reading it (the client's body over the cap, the client
    gone) is kept, to be raised as itself rather than as the connection error aiohttp makes of it."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failure: BaseException | None = None

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._stream:
                yield chunk
        except BaseException as exc:
            self.failure = exc
            raise


async def _note_new_connection(_session: aiohttp.ClientSession, _context: SimpleNamespace, _params: Any) -> None:
    opened = opened_connections.get()
    if opened is not None:
        opened.append("connection.connect_tcp")


@contextmanager
def _mapped(request: httpx.Request, body: _StreamedBody | None = None) -> Iterator[None]:
    try:
        yield
    except (TimeoutError, aiohttp.ClientError) as exc:
        if body is not None and body.failure is not None and not isinstance(body.failure, asyncio.CancelledError):
            raise body.failure from None
        raise httpx_error(exc, request) from exc


def httpx_error(exc: BaseException, request: httpx.Request) -> httpx.HTTPError:
    """The httpx exception that says what an aiohttp one means (its message kept, worded as httpx words it)."""
    detail = str(exc) or type(exc).__name__
    kind: type[httpx.TransportError]
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        kind = httpx.ConnectTimeout
    elif isinstance(exc, (aiohttp.ServerTimeoutError, asyncio.TimeoutError)):
        kind = httpx.ReadTimeout
    elif isinstance(exc, aiohttp.ClientConnectorError):
        kind = httpx.ConnectError
    elif isinstance(exc, aiohttp.ServerDisconnectedError):
        kind, detail = httpx.RemoteProtocolError, "Server disconnected without sending a response."
    elif isinstance(exc, aiohttp.ClientPayloadError):
        kind = httpx.RemoteProtocolError
        detail = f"peer closed connection without sending complete message body ({detail})"
    elif isinstance(exc, aiohttp.ClientResponseError):  # the answer's head did not parse as HTTP
        kind, detail = _unparsed_answer(exc)
    elif isinstance(exc, (aiohttp.NonHttpUrlClientError, aiohttp.InvalidURL)):
        kind = httpx.UnsupportedProtocol
    elif isinstance(exc, OSError):  # reset, broken pipe: a connection that died under the request
        kind = httpx.ReadError
    else:
        kind = httpx.NetworkError
    return kind(detail, request=request)


def _unparsed_answer(exc: aiohttp.ClientResponseError) -> tuple[type[httpx.TransportError], str]:
    """An answer whose head is not HTTP: a server that does not speak HTTP at all (its bytes do not even start
    like a status line: a ReadError, as a connection that ended without an answer), or an HTTP answer that is
    broken (a RemoteProtocolError, with the parser's words)."""
    message = " ".join(str(exc.message).split())
    if "Expected HTTP/" in message:
        sent = message.rsplit(":", 1)[-1].strip(" ^")
        return httpx.ReadError, f"the answer is not HTTP: it began {sent}"
    if "status line" in message.lower():
        return httpx.RemoteProtocolError, f"illegal status line: {message}"
    return httpx.RemoteProtocolError, f"invalid HTTP answer: {message}"
