"""The web app: `create_app(settings, engine)` and its routes.

What lives here: `POST /v1/chat/completions` (read the body, run the
preprocessor, forward the rewritten request, relay the answer), every other
`/v1/...` path and method forwarded untouched, `/healthz` and `/readyz`.

What must not: talk httpx (see `proxy.upstream`), render errors (see
`proxy.middleware`), or know how skills are chosen (see the engine behind
`ChatPreprocessor`).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import structlog
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.background import BackgroundTask
from starlette.requests import ClientDisconnect

from proxy.core.preprocessed import Preprocessed
from proxy.core.skill_tools import tool_definitions
from proxy.core.tool_calls import add_tools
from proxy.core.tool_mode import rejects_tools, tool_mode_for
from proxy.core.tool_rounds import ToolRounds
from proxy.errors import BadRequest, BodyTooLarge, ClientDisconnected, NotFound, UpstreamError, normalise_error
from proxy.middleware import DisconnectWatch, RequestContext, request_fields, request_id_of
from proxy.preprocess_runner import ChatPreprocessor, log_decision_events, run_preprocessor
from proxy.settings import Settings
from proxy.streaming import relay, stream_headers
from proxy.tool_loop import ToolLoop
from proxy.upstream import Upstream, UpstreamResponse

log = structlog.get_logger("proxy.app")

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def create_app(settings: Settings, engine: ChatPreprocessor, upstream: Upstream | None = None) -> FastAPI:
    upstream = upstream or Upstream(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await upstream.aclose()

    app = FastAPI(title="skillproxy", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.add_middleware(RequestContext, api_keys=settings.api_keys)
    proxy = _Routes(settings, engine, upstream)
    app.add_api_route("/healthz", proxy.healthz, methods=["GET"])
    app.add_api_route("/readyz", proxy.readyz, methods=["GET"])
    app.add_api_route("/v1/chat/completions", proxy.chat_completions, methods=["POST"])
    app.add_api_route("/v1/{path:path}", proxy.forward, methods=ALL_METHODS)
    app.add_api_route("/{path:path}", proxy.not_found, methods=ALL_METHODS)
    return app


class _Routes:
    def __init__(self, settings: Settings, engine: ChatPreprocessor, upstream: Upstream) -> None:
        self.settings = settings
        self.engine = engine
        self.upstream = upstream
        self.tools_refused: set[str] = set()  # models whose upstream rejected our tools: inline from now on

    async def healthz(self) -> dict[str, str]:
        return {"status": "ok"}

    async def readyz(self) -> Response:
        url = self.upstream.url_for("models")
        try:
            status = await self.upstream.probe()
        except UpstreamError as error:
            return JSONResponse({**error.body(), "status": "unavailable", "upstream": url}, status_code=503)
        if status >= 500:
            message = f"upstream {url} answered HTTP {status}; it may still be loading a model"
            body = {"error": {"message": message, "type": "upstream_error", "code": "upstream_not_ready"}}
            return JSONResponse({**body, "status": "unavailable", "upstream": url}, status_code=503)
        return JSONResponse({"status": "ready", "upstream": url, "upstream_status": status})

    async def not_found(self, request: Request) -> Response:
        raise NotFound(f"no such endpoint: {request.method} {request.url.path}; "
                       "skillproxy serves the OpenAI API under /v1 (and /healthz, /readyz)")

    async def chat_completions(self, request: Request) -> Response:
        body = _parse_chat_body(await _read_body(request, self.settings.max_body_bytes))
        fields = request_fields(request.scope)
        fields.update(model=body.get("model"), stream=bool(body.get("stream")))
        tool_mode, why = tool_mode_for(self.settings.tool_mode, body, self.tools_refused)
        if why:
            log.info("tool_mode_changed", tool_mode=tool_mode, reason=why)
        async with DisconnectWatch(request.receive) as watch:
            result = await self._preprocess(body, tool_mode, fields, watch)
            forwarded, tools = self._with_skill_tools({**body, "messages": result.messages}, tool_mode)
            fields.update(tool_mode=tool_mode, skill_tools=tools is not None)
            answer = await watch.guard(self._send_chat(request, forwarded))
            if tools is None:
                return await self._respond(answer, watch)
            if answer.status >= 400:
                return await self._answer_refusal(request, body, answer, watch)
            loop = ToolLoop(ToolRounds(tools[0], tools[1], self.settings.max_tool_rounds, _call_id), forwarded,
                            lambda next_body: self._send_chat(request, next_body), self.upstream.base_url,
                            self._finisher(result, fields))
            if body.get("stream") and answer.is_event_stream:
                return _streaming(answer, loop.stream(answer))
            return await loop.complete(answer, watch.guard)

    async def _preprocess(self, body: dict[str, Any], tool_mode: str, fields: dict[str, Any],
                          watch: DisconnectWatch) -> Preprocessed:
        result = await watch.guard(run_preprocessor(self.engine, body, self.settings.scan_timeout, tool_mode))
        log_decision_events(result)
        fields.update(mode=result.mode, selected=list(result.selected), route=result.route_header)
        return result

    def _with_skill_tools(self, body: dict[str, Any], tool_mode: str) -> tuple[dict[str, Any], Any]:
        """The body with the proxy's tools added in server mode, and (runner, names added) or None."""
        runner = self.engine.skill_tools() if tool_mode == "server" else None
        if runner is None:
            return body, None
        with_tools, added = add_tools(body, tool_definitions())
        return (with_tools, (runner, added)) if added else (body, None)

    async def _answer_refusal(self, request: Request, body: dict[str, Any], answer: UpstreamResponse,
                              watch: DisconnectWatch) -> Response:
        """An error answer to a request with our tools: retried inline when it was about the tools."""
        try:
            raw = await watch.guard(answer.read())
        finally:
            await answer.aclose()
        if not rejects_tools(answer.status, raw):
            return JSONResponse(normalise_error(answer.status, raw, self.upstream.base_url), answer.status)
        model = str(body.get("model"))
        self.tools_refused.add(model)
        log.warning("upstream_rejected_tools", model=model, status=answer.status,
                    message=raw[:300].decode("utf-8", "replace"), now_using="inline")
        fields = request_fields(request.scope)
        fields["tool_mode"] = "inline"
        result = await self._preprocess(body, "inline", fields, watch)
        retry = await watch.guard(self._send_chat(request, {**body, "messages": result.messages}))
        return await self._respond(retry, watch)

    def _finisher(self, result: Preprocessed, fields: dict[str, Any]) -> Callable[[ToolRounds], None]:
        def finish(rounds: ToolRounds) -> None:
            fields.update(tool_rounds=rounds.rounds, tool_calls=rounds.calls)
            if result.anchor is not None and (rounds.exchange or rounds.mixed is not None):
                self.engine.record_tool_exchange(result.anchor, rounds.exchange, rounds.mixed)
            if rounds.rounds:
                log.info("tool_loop", rounds=rounds.rounds, calls=rounds.calls, mixed=rounds.mixed is not None,
                         capped=rounds.capped)
        return finish

    async def _send_chat(self, request: Request, body: dict[str, Any]) -> UpstreamResponse:
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        return await self._send(request, "chat/completions", content, keep_length=False)

    async def forward(self, request: Request, path: str) -> Response:
        _check_declared_length(request, self.settings.max_body_bytes)
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        body_done = asyncio.Event()
        content = _capped_stream(request, self.settings.max_body_bytes, body_done) if has_body else None
        if content is None:
            body_done.set()
        async with DisconnectWatch(request.receive, body_done) as watch:
            answer = await watch.guard(self._send(request, path, content, keep_length=True))
            return await self._respond(answer, watch)

    async def _send(self, request: Request, path: str, content: Any, keep_length: bool) -> UpstreamResponse:
        url = self.upstream.url_for(path, request.url.query)
        headers = self.upstream.request_headers(
            [(k, v) for k, v in request.headers.items()], request_id_of(request.scope), keep_length)
        try:
            answer = await self.upstream.send(request.method, url, headers, content)
        except ClientDisconnect:
            raise ClientDisconnected() from None
        request_fields(request.scope)["upstream_ms"] = answer.upstream_ms
        return answer

    async def _respond(self, answer: UpstreamResponse, watch: DisconnectWatch) -> Response:
        if answer.status >= 400:
            try:
                raw = await watch.guard(answer.read())
            finally:
                await answer.aclose()
            body = normalise_error(answer.status, raw, self.upstream.base_url)
            return JSONResponse(body, status_code=answer.status)
        return _streaming(answer, relay(answer), BackgroundTask(answer.aclose))


def _streaming(answer: UpstreamResponse, body: AsyncIterator[bytes], background: BackgroundTask | None = None,
               ) -> StreamingResponse:
    """The client's response: the upstream's status and headers, `body` as it comes."""
    response = StreamingResponse(body, status_code=answer.status, background=background)
    response.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in stream_headers(answer)]
    return response


def _call_id() -> str:
    return f"call_skp_{uuid.uuid4().hex[:24]}"


async def _read_body(request: Request, limit: int) -> bytes:
    _check_declared_length(request, limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(size, limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise ClientDisconnected() from None
    return b"".join(chunks)


async def _capped_stream(request: Request, limit: int, done: asyncio.Event) -> AsyncIterator[bytes]:
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(size, limit)
        yield chunk
    done.set()


def _check_declared_length(request: Request, limit: int) -> None:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(int(declared), limit)


def _too_large(size: int, limit: int) -> BodyTooLarge:
    return BodyTooLarge(f"request body ({size} bytes or more) is over the limit of {limit} bytes; "
                        "raise `max_body_bytes` (SKILLPROXY_MAX_BODY_BYTES) to accept it")


def _parse_chat_body(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"request body is not valid JSON: {exc}", code="invalid_json") from None
    if not isinstance(body, dict):
        raise BadRequest(f"request body must be a JSON object, not {type(body).__name__}", code="invalid_body")
    if not isinstance(body.get("messages"), list):
        raise BadRequest("request body needs `messages`: a list of chat messages", code="invalid_messages")
    return body
