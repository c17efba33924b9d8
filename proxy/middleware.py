"""Pure ASGI plumbing around every request (no BaseHTTPMiddleware: it hides disconnects).

What lives here: `RequestContext`, the middleware that gives each request its id
(kept from `X-Request-ID` when the client sent a sane one), binds it to the log
context, checks the key (`Authorization: Bearer` or `x-api-key`) when `api_keys` is set (in constant time, against
every key), refuses a path with a `..` segment or a control character, renders
every `ProxyError` (and anything unexpected) as an OpenAI-shaped error, adds
`X-Request-ID` and the headers a handler put in the request record's
`response_headers` to the answer (to an error answer too), writes the one
canonical `request` log line from the record and hands the finished record to
the request observers. And `DisconnectWatch`, which races work against the
client going away.

What must not: know about chat completions, skills or the upstream.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any, TypeVar

import structlog

from proxy.errors import (
    OPENAI_ERRORS,
    BadRequest,
    ClientDisconnected,
    ErrorCode,
    ErrorShape,
    ProxyError,
    Unauthorized,
)
from proxy.request_record import RequestRecord, request_record

log = structlog.get_logger("proxy.request")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
T = TypeVar("T")

OPEN_PATHS = frozenset({"/healthz"})
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")


RequestObserver = Callable[[RequestRecord], None]


class RequestContext:
    def __init__(self, app: ASGIApp, api_keys: tuple[str, ...] = (),
                 observers: tuple[RequestObserver, ...] = (), open_paths: frozenset[str] = OPEN_PATHS,
                 error_shape_for: Callable[[str], ErrorShape] = lambda path: OPENAI_ERRORS) -> None:
        self.app = app
        self._error_shape_for = error_shape_for  # by path: each surface's clients read errors in its own shape
        self._open_paths = open_paths  # answered without a key (health, the inspect page's own files)
        self._observers = observers  # each gets every finished request's record (metrics, the inspect page)
        self._auth_required = bool(api_keys)
        self._key_digests = tuple(_digest(key.strip().encode("utf-8")) for key in api_keys if key.strip())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _client_request_id(scope) or uuid.uuid4().hex
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        record = request_record(scope)
        record.request_id, record.method, record.path = request_id, scope["method"], scope["path"]
        started = time.perf_counter()
        send = _with_answer_headers(send, request_id, record)
        try:
            await self._handle(scope, receive, send)
        finally:
            _log_request(record, started)
            for observe in self._observers:
                _observe(observe, record)

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        record = request_record(scope)
        try:
            if self._auth_required and scope["path"] not in self._open_paths:
                self._authorize(scope)
            _check_path(scope["path"])
            await self.app(scope, receive, send)
        except ClientDisconnected:
            record.status = 499
            record.client_disconnected = True
        except ProxyError as error:
            await _send_or_abort(send, record, error, self._error_shape_for(scope["path"]))
        except Exception as exc:  # never a bare 500 or a traceback to the client
            log.error("unhandled_error", error_type=type(exc).__name__, exc_info=exc)
            internal = ProxyError(f"internal proxy error ({type(exc).__name__}); "
                                  f"see the proxy log for request_id {record.request_id}")
            await _send_or_abort(send, record, internal, self._error_shape_for(scope["path"]))

    def _authorize(self, scope: Scope) -> None:
        """Compares the digest of the given key (the Bearer token, else `x-api-key`) with every key's, without
        stopping at a match."""
        scheme, _, token = _header(scope, b"authorization").partition(" ")
        given = token.strip() if scheme.lower() == "bearer" else ""
        given = given or _header(scope, b"x-api-key").strip()  # as Anthropic's clients send the key
        given_digest, matched = _digest(given.encode("latin-1")), False  # the header's own bytes
        for key in self._key_digests:
            matched |= hmac.compare_digest(given_digest, key)
        if not given or not matched:
            raise Unauthorized("missing or wrong API key: send the proxy's key as "
                               "`Authorization: Bearer <key>` or `x-api-key: <key>` (one of `api_keys`)")


class DisconnectWatch:
    """Runs awaitables until done or until the client disconnects, whichever comes first.

    Start it only once the request body has been read (or `body_done` is set):
    it consumes `receive` to see the `http.disconnect` message. The guarded work
    runs in the caller's own task (no task and no `asyncio.wait` per call: this
    is on every request's path); a disconnect cancels that task while it is
    inside `guard`, and `guard` turns that cancellation into ClientDisconnected.
    """

    def __init__(self, receive: Receive, body_done: asyncio.Event | None = None) -> None:
        self._receive = receive
        self._body_done = body_done
        self._task: asyncio.Task[None] | None = None
        self._gone = False
        self._guarded: asyncio.Task[Any] | None = None  # the task inside guard(), to cancel if the client leaves
        self._cancelled_it = False

    async def __aenter__(self) -> DisconnectWatch:
        self._task = asyncio.ensure_future(self._wait_for_disconnect())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def guard(self, work: Coroutine[Any, Any, T]) -> T:
        """The result of `work`; raises ClientDisconnected (and cancels `work`) if the client left."""
        assert self._task is not None, "use DisconnectWatch as an async context manager"
        if self._gone:
            work.close()
            raise ClientDisconnected()
        task = asyncio.current_task()
        assert task is not None
        outer, self._guarded = self._guarded, task
        try:
            return await work
        except asyncio.CancelledError:
            if self._cancelled_it:  # ours, unless something else cancelled the task too (then it goes on)
                self._cancelled_it = False
                if task.uncancel() == 0:
                    raise ClientDisconnected() from None
            raise
        finally:
            self._guarded = outer

    async def _wait_for_disconnect(self) -> None:
        if self._body_done is not None:
            await self._body_done.wait()
        while (await self._receive())["type"] != "http.disconnect":
            pass
        self._gone = True
        if self._guarded is not None and not self._cancelled_it:
            self._cancelled_it = True
            self._guarded.cancel()


def _digest(key: bytes) -> bytes:
    """Keys are compared as SHA-256 digests: equal lengths, so the time taken says nothing about a key."""
    return hashlib.sha256(key).digest()


def _check_path(path: str) -> None:
    """Refuses a decoded path with a control character (no route would match it) or a `..` segment
    (by either separator: it could climb out of a prefix, such as the upstream's /v1)."""
    if CONTROL_CHARACTER.search(path):
        raise BadRequest("the path holds a control character (such as %00 or %0A), which no endpoint "
                         "accepts", code=ErrorCode.PATH_REFUSED)
    if ".." in re.split(r"[/\\]", path):
        raise BadRequest("the path has a '..' segment; send the path without dot segments "
                         "(such as /v1/models)", code=ErrorCode.PATH_REFUSED)


def _with_answer_headers(send: Send, request_id: str, record: RequestRecord) -> Send:
    async def send_with_answer_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
            headers.append((b"x-request-id", request_id.encode("latin-1")))
            headers.extend((name.encode("latin-1"), _header_value(value))
                           for name, value in record.response_headers.items() if value)  # empty: no header
            message = {**message, "headers": headers}
            record.status = message["status"]
            record.response_started = True
        await send(message)

    return send_with_answer_headers


async def _send_or_abort(send: Send, record: RequestRecord, error: ProxyError, shape: ErrorShape) -> None:
    """Render `error`; if the answer already started, end it (the server closes the connection)."""
    record.error = error.code
    if record.response_started:
        return
    body = shape.answer(error)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if isinstance(error, Unauthorized):
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _log_request(record: RequestRecord, started: float) -> None:
    record.total_ms = round((time.perf_counter() - started) * 1000, 1)
    log.info("request", **record.log_line())


def _observe(observe: RequestObserver, record: RequestRecord) -> None:
    """An observer's failure is logged, never the request's: the answer has gone out already."""
    try:
        observe(record)
    except Exception as exc:  # noqa: BLE001 - whatever an observer raises, the request is done
        log.error("request_observer_failed", observer=getattr(observe, "__qualname__", repr(observe)),
                  error=repr(exc))


def _header_value(text: str) -> bytes:
    return " ".join(str(text).split()).encode("latin-1", errors="replace")


def _client_request_id(scope: Scope) -> str | None:
    value = _header(scope, b"x-request-id").strip()
    return value if SANE_REQUEST_ID.fullmatch(value) else None


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""
