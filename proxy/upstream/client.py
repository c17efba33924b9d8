"""The boundary to one upstream server: its own httpx.AsyncClient (connection pool) and key.

What lives here: building the upstream URL and headers (hop-by-hop headers
dropped, `Accept-Encoding: identity`, the Authorization and x-api-key rule), sending a request
and reading its answer as a stream, the readiness probe, and the ONE place where
httpx exceptions become `proxy.errors` kinds; no httpx type leaves this module.
It logs `upstream_retry` and `upstream_error`, and the step events `upstream_request` and
`upstream_response` at debug (written with `log_events`).

Keep-alive: upstreams close idle connections (uvicorn and llama.cpp's server
after 5 s, some after each answer). The pool drops a connection after 4 s idle,
before they do; and a request that meets a pooled connection the upstream has
closed anyway (it fails before any answer) is sent again on another one, when
its body can be sent again. A failure on a new connection is the upstream's.

What must not: know about chat completions, skills or FastAPI.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import structlog

from proxy.errors import ErrorCode, ProxyError, UpstreamError, UpstreamTimeout
from proxy.logs.timing import ms_since
from proxy.settings import Settings
from proxy.upstream.aiohttp_transport import AiohttpTransport, opened_connections
from proxy.upstream.config import UpstreamConfig

log = structlog.get_logger("proxy.upstream")

HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
    "te", "trailer", "trailers", "transfer-encoding", "upgrade", "host",
})
NOT_FORWARDED_UP = HOP_BY_HOP | {"accept-encoding", "authorization", "x-request-id"}
NOT_FORWARDED_DOWN = HOP_BY_HOP | {"content-length", "content-encoding", "date", "server", "x-request-id"}

Headers = list[tuple[str, str]]
Content = bytes | AsyncIterable[bytes] | None
ReadGuard = Callable[[Coroutine[Any, Any, bytes]], Awaitable[bytes]]  # runs the read, or refuses to

KEEPALIVE_EXPIRY = 4.0  # seconds; below the 5 s after which uvicorn and llama.cpp close an idle connection
# Idle connections kept for reuse. Under 32 concurrent clients a pool of 32 was too small: a connection
# freed just after the next request took a new one was closed, and about every other request paid for
# a new TCP connection (half the throughput at c32). Idle ones still close after KEEPALIVE_EXPIRY.
MAX_IDLE_CONNECTIONS = 128
MAX_STALE_RETRIES = 8  # each stale connection fails once and leaves the pool, so this bounds a burst of them
DEFAULT_SETTING = "`upstream`"  # named in error messages; an entry of `upstreams` names its own base_url
STALE_ERRORS = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
NDJSON_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl")  # Ollama's stream: the first


@dataclass
class UpstreamResponse:
    """An upstream answer whose body has not been read yet; always `aclose()` it."""

    status: int
    headers: Headers
    url: str
    upstream_ms: float
    _response: httpx.Response = field(repr=False)
    _secret: str | None = field(default=None, repr=False)  # the upstream key, kept out of error bodies
    base_url: str = ""  # of the upstream that answered, for error messages
    setting: str = DEFAULT_SETTING  # the config a person fixes when this upstream fails

    @property
    def method(self) -> str:
        """The method of the request this answers."""
        return self._response.request.method

    @property
    def content_type(self) -> str:
        content_type: str = self._response.headers.get("content-type", "")
        return content_type

    @property
    def is_event_stream(self) -> bool:
        return self.content_type.split(";")[0].strip().lower() == "text/event-stream"

    @property
    def is_ndjson(self) -> bool:
        """One JSON object per line (Ollama's native stream)."""
        return self.content_type.split(";")[0].strip().lower() in NDJSON_TYPES

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        with _mapped_errors(self.url, "reading the answer", setting=self.setting):
            async for chunk in self._response.aiter_bytes():
                yield chunk

    async def read(self) -> bytes:
        """The whole body; in an error answer, an echo of the upstream key becomes `[redacted]`."""
        with _mapped_errors(self.url, "reading the answer", setting=self.setting):
            raw = await self._response.aread()
        if self.status >= 400 and self._secret:
            raw = raw.replace(self._secret.encode("utf-8"), b"[redacted]")
        return raw

    async def read_and_close(self, guard: ReadGuard | None = None) -> bytes:
        """The whole body, as `read` gives it, and the answer closed however the read ends.

        `guard` wraps the read (a client-disconnect watch); the answer is closed even when the guard
        refuses to start it."""
        try:
            return await (guard(self.read()) if guard else self.read())
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            await self._response.aclose()


class Upstream:
    """One upstream server and the one client (connection pool) used to talk to it.

    Without `config` it is the single `upstream` with `upstream_api_key`, named "default";
    with one, an entry of `upstreams`, with its own name, URL and key. `transport` replaces the
    aiohttp one; it should note each new connection in `opened_connections`, or a failure before
    any answer counts as a stale pooled connection and the request is sent again (up to the cap).
    """

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None,
                 config: UpstreamConfig | None = None) -> None:
        self.name = config.name if config else "default"
        self.base_url = (config.base_url if config else settings.upstream).rstrip("/")
        self._api_key = config.api_key if config else settings.upstream_api_key
        self.setting = f"the base_url of upstream {config.name!r}" if config else DEFAULT_SETTING
        native_url = config.native_url if config else settings.upstream_native_url
        self._native_url = native_url.rstrip("/") if native_url else None
        self.native_setting = (f"the native_url of upstream {config.name!r} (its base_url without /v1 when unset)"
                               if config else "`upstream_native_url` (`upstream` without its /v1 when unset)")
        self._drop_client_auth = bool(settings.api_keys)
        self._probe_timeout = settings.connect_timeout
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(
                connect=settings.connect_timeout,
                read=settings.read_timeout,
                write=settings.read_timeout,
                pool=settings.connect_timeout,
            ),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=MAX_IDLE_CONNECTIONS,
                                keepalive_expiry=KEEPALIVE_EXPIRY),
            transport=transport or AiohttpTransport(KEEPALIVE_EXPIRY),
            follow_redirects=False,
        )

    def url_for(self, path: str, query: str = "") -> str:
        url = f"{self.base_url}/{path.lstrip('/')}"
        return f"{url}?{query}" if query else url

    @property
    def native_root(self) -> str:
        """The server's own root, where a native API lives (Ollama's `/api/...`): the configured native URL, or
        else the base URL without `/v1`."""
        if self._native_url:
            return self._native_url
        return self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url

    def native_url_for(self, path: str, query: str = "") -> str:
        url = f"{self.native_root}/{path.lstrip('/')}"
        return f"{url}?{query}" if query else url

    def request_headers(self, client_headers: Headers, request_id: str, keep_length: bool) -> Headers:
        """The client's headers as the upstream should get them."""
        named_by_connection = _connection_tokens(client_headers)
        dropped = NOT_FORWARDED_UP | named_by_connection | (set() if keep_length else {"content-length"})
        headers = [(k, v) for k, v in client_headers if k.lower() not in dropped]
        headers.append(("accept-encoding", "identity"))
        headers.append(("x-request-id", request_id))
        authorization = self._authorization(client_headers)
        if authorization:
            headers.append(("authorization", authorization))
        if self._api_key or self._drop_client_auth:  # Anthropic's clients send their key as x-api-key
            headers = [(k, v) for k, v in headers if k.lower() != "x-api-key"]
        if self._api_key:
            headers.append(("x-api-key", self._api_key))
        return headers

    async def send(
        self,
        method: str,
        url: str,
        headers: Headers,
        content: Content,
        timeout: float | None = None,
    ) -> UpstreamResponse:
        """Send a request; the answer's headers are in, its body is not read yet.

        `timeout` (seconds, each of connect, read and write) replaces the configured ones."""
        size = len(content) if isinstance(content, bytes) else None
        log.debug("upstream_request", upstream=self.name, method=method, url=url, body_bytes=size)
        started = time.perf_counter()
        setting = self._setting_for(url)
        with _mapped_errors(url, "sending the request or waiting for its answer to start", started, setting):
            response = await self._send_past_stale_connections(method, url, headers, content, timeout)
        upstream_ms = ms_since(started)
        log.debug("upstream_response", upstream=self.name, url=url, status=response.status_code,
                 content_type=response.headers.get("content-type"), upstream_ms=upstream_ms)
        return UpstreamResponse(response.status_code, response_headers(response.headers.raw),
                                url, upstream_ms, response, self._api_key, self.base_url, setting)

    def _setting_for(self, url: str) -> str:
        """The config a person fixes when a request to `url` fails: the native root's for a native path."""
        native = not url.startswith(self.base_url + "/") and url.startswith(self.native_root + "/")
        return self.native_setting if native else self.setting

    async def _send_past_stale_connections(self, method: str, url: str, headers: Headers, content: Content,
                                           timeout: float | None = None) -> httpx.Response:
        """The answer; a pooled connection found closed is dropped and the request sent again."""
        replayable = content is None or isinstance(content, bytes)
        retries = 0
        while True:
            opened: list[str] = []  # each new connection the transport opens for this attempt
            request = self._client.build_request(method, url, headers=headers, content=content,
                                                 timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout)
            noting = opened_connections.set(opened)
            try:
                return await self._client.send(request, stream=True)
            except STALE_ERRORS as exc:
                retries += 1
                if opened or not replayable or retries > MAX_STALE_RETRIES:
                    raise
                log.info("upstream_retry", url=url, reason="stale keep-alive connection",
                         error=str(exc) or type(exc).__name__, retry=retries)
            finally:
                opened_connections.reset(noting)

    async def probe(self) -> int:
        """Status of `GET {upstream}/models`; raises an UpstreamError when unreachable."""
        url = self.url_for("models")
        headers = [("authorization", f"Bearer {self._api_key}")] if self._api_key else []
        with _mapped_errors(url, "checking readiness", setting=self.setting):
            response = await self._send_past_stale_connections("GET", url, headers, None, self._probe_timeout)
            try:
                await response.aread()
            finally:
                await response.aclose()
        return response.status_code

    async def aclose(self) -> None:
        await self._client.aclose()

    def _authorization(self, client_headers: Headers) -> str | None:
        if self._api_key:
            return f"Bearer {self._api_key}"
        if self._drop_client_auth:
            return None  # the client's key is for the proxy, not for the upstream
        return next((v for k, v in client_headers if k.lower() == "authorization"), None)


def response_headers(raw: list[tuple[bytes, bytes]]) -> Headers:
    """The upstream's response headers as the client should get them."""
    decoded = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw]
    dropped = NOT_FORWARDED_DOWN | _connection_tokens(decoded)
    return [(k, v) for k, v in decoded if k.lower() not in dropped]


def _connection_tokens(headers: Headers) -> set[str]:
    values = (v for k, v in headers if k.lower() == "connection")
    return {token.strip().lower() for value in values for token in value.split(",") if token.strip()}


@contextmanager
def _mapped_errors(url: str, doing: str, started: float | None = None,
                   setting: str = DEFAULT_SETTING) -> Iterator[None]:
    """Turn httpx exceptions into ProxyErrors that say which upstream and what failed."""
    try:
        yield
    except httpx.HTTPError as exc:
        error = _map_httpx_error(exc, url, doing, setting)
        elapsed = ms_since(started) if started is not None else None
        log.warning("upstream_error", url=url, doing=doing, error_type=type(exc).__name__,
                    status=error.status, code=error.code, message=error.message, upstream_ms=elapsed)
        raise error from None


def _map_httpx_error(exc: httpx.HTTPError, url: str, doing: str, setting: str = DEFAULT_SETTING) -> ProxyError:
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return UpstreamError(f"upstream {url} did not accept a connection in time while {doing} "
                             f"({detail}); is the host right and reachable? (connect_timeout)")
    if isinstance(exc, httpx.ConnectError):
        return UpstreamError(f"cannot connect to upstream {url} while {doing}: {detail}; "
                             f"is the model server running, and is {setting} right?")
    if isinstance(exc, httpx.TimeoutException):
        return UpstreamTimeout(f"upstream {url} did not answer in time while {doing} ({type(exc).__name__}); "
                               "a local model may still be loading: raise `read_timeout` if it needs longer")
    if isinstance(exc, httpx.RemoteProtocolError) and not _broke_off(detail):
        return UpstreamError(f"upstream {url} answered something that is not valid HTTP while {doing}: {detail}; "
                             f"is {setting} the right host and port, and plain http:// or https:// as the "
                             "server expects?", code=ErrorCode.UPSTREAM_PROTOCOL_ERROR)
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError)):
        return UpstreamError(f"upstream {url} closed the connection while {doing}: {detail}; the model server "
                             f"may have crashed or restarted (see its log), or {setting} is not an HTTP server",
                             code=ErrorCode.UPSTREAM_CONNECTION_CLOSED)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return UpstreamError(f"upstream URL {url} is not usable: {detail}; check {setting}",
                             code=ErrorCode.UPSTREAM_MISCONFIGURED)
    return UpstreamError(f"upstream {url} failed while {doing}: {type(exc).__name__}: {detail}")


def _broke_off(detail: str) -> bool:
    """Whether a protocol error's message says the connection ended early (not that the bytes were wrong)."""
    return any(words in detail.lower() for words in ("disconnected", "closed connection", "connection closed"))
