"""The web app: `create_app(settings, engine)` and its routes.

What lives here: the routes, and the lifespan that owns the engine (starts
it, then closes it) and the upstream connections. The chat surfaces' POSTs are served the short way
(`proxy.fast_path`), past FastAPI's router, by the same handlers their routes name. `POST /v1/chat/completions` is
`proxy.surfaces.chat_completions`, `/v1/skills...` is `proxy.skills_api.routes`; every other
`/v1/...` path and method is forwarded
untouched (and `/api/...`, Ollama's native API, by `proxy.surfaces.ollama_api`, beside
`POST /api/chat`, `proxy.surfaces.ollama_chat`), to the upstream its JSON body's `model` names when `upstreams:` is
set; with several upstreams, `GET /v1/models` merges their lists (see
`proxy.upstream.upstreams`); `/healthz` and `/readyz` (each upstream); `/metrics` (see
`proxy.metrics`, fed by the request observers and the catalog watcher); the
inspect page under `/_skillproxy/` (`proxy.inspect`); an OpenAI-shaped 404
elsewhere. With `tracing:` on, a span around each request (`proxy.tracing`);
off, no part of it is added.

Errors: a route raises a `ProxyError` and `proxy.middleware` renders it. Two are rendered
here: the framework's own (a method no route takes, such as TRACE), put into the path's
shape (OpenAI's, or the surface's in `ERROR_SHAPES`) by `_framework_error`; and `/readyz`'s
503, whose body holds the unready upstream's error in OpenAI's shape beside its status.

What must not: talk httpx (see `proxy.upstream.client`) or know how skills are chosen
(see the engine behind `ChatPreprocessor`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from proxy.engine.preprocess_runner import ChatPreprocessor
from proxy.errors import OPENAI_ERRORS, BadRequest, ErrorCode, ErrorShape, NotFound, UpstreamError, error_body
from proxy.fast_path import FastPath, Handler
from proxy.http_methods import ALL_METHODS
from proxy.inspect.history import RequestHistory
from proxy.inspect.routes import PAGE_PATHS, InspectPage
from proxy.inspect.routes import register as register_inspect_page
from proxy.metrics import Metrics
from proxy.middleware import OPEN_PATHS, DisconnectWatch, RequestContext, RequestObserver
from proxy.relay.body_model import upstream_for_body
from proxy.relay.forwarding import Forwarder, with_trace_headers
from proxy.request_body import CHAT_REQUEST_DOC
from proxy.request_record import request_id_of, request_record
from proxy.settings import Settings
from proxy.skills_api.routes import SkillsApi
from proxy.skills_api.routes import register as register_skills_api
from proxy.surfaces.anthropic_errors import ANTHROPIC_ERRORS
from proxy.surfaces.anthropic_surface import ANTHROPIC_MESSAGES_SURFACE
from proxy.surfaces.chat_completions import CHAT_COMPLETIONS
from proxy.surfaces.ollama_api import OllamaApi
from proxy.surfaces.ollama_chat import OLLAMA_CHAT
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS
from proxy.surfaces.responses_route import RESPONSES, ResponsesRoute
from proxy.surfaces.responses_surface import RESPONSES_ERRORS
from proxy.surfaces.skill_route import SkillRoute
from proxy.surfaces.surface import Surface
from proxy.surfaces.token_count import TokenCount
from proxy.tracing.request_trace import Tracing, request_trace, start_tracing
from proxy.upstream.client import Upstream, UpstreamResponse
from proxy.upstream.upstreams import Upstreams


def create_app(settings: Settings, engine: ChatPreprocessor, upstream: Upstream | None = None,
               observers: tuple[RequestObserver, ...] = (), tracing: Tracing | None = None) -> FastAPI:
    """`tracing` replaces the one `settings.tracing` would start (tests give one with an in-memory exporter)."""
    upstreams = Upstreams(settings, single=upstream)
    metrics = Metrics.for_engine(engine)
    tracing = tracing or start_tracing(settings.tracing)  # None while tracing is off: nothing of it runs

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        engine.start()  # in this process: each worker runs its own lifespan, so its own watcher
        try:
            yield
        finally:
            try:
                await upstreams.aclose()
            finally:
                try:
                    await asyncio.to_thread(engine.close)  # may wait for the watcher and for queued state writes
                finally:
                    if tracing is not None:
                        await asyncio.to_thread(tracing.shutdown)  # sends the spans still queued

    app = FastAPI(title="skillproxy", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan,
                  exception_handlers={HTTPException: _framework_error})
    history = RequestHistory(settings.inspect_history)
    if history.enabled:
        observers = (*observers, history.observe)
    chat_posts: dict[str, Handler] = {}  # filled below, as each chat route is made
    app.add_middleware(FastPath, routes=chat_posts)  # added first: inside RequestContext
    app.add_middleware(RequestContext, api_keys=settings.api_keys, observers=(metrics.observe, *observers),
                       open_paths=OPEN_PATHS | PAGE_PATHS, error_shape_for=error_shape_for)
    if tracing is not None:  # outermost: its server span holds everything, error rendering included
        app.add_middleware(tracing.middleware, routes=chat_posts)
    forwarder = Forwarder(upstreams)
    proxy = _Routes(settings, forwarder)
    app.add_api_route("/healthz", proxy.healthz, methods=["GET"])
    app.add_api_route("/readyz", proxy.readyz if not upstreams.several else proxy.readyz_each, methods=["GET"])
    if upstreams.several:
        app.add_api_route("/v1/models", proxy.models, methods=["GET"])
    for path, surface, route_type, count_path in SURFACES:
        route = route_type(surface, settings, engine, forwarder)
        app.add_api_route(path, route.handle, methods=["POST"],
                          openapi_extra=CHAT_REQUEST_DOC if surface is CHAT_COMPLETIONS else None)
        chat_posts[path] = route.handle
        if count_path:  # beside the route, sharing it: counted as that route forwards
            count = TokenCount(route, f"{surface.upstream_path}/{count_path}")
            app.add_api_route(f"{path}/{count_path}", count.handle, methods=["POST"])
            chat_posts[f"{path}/{count_path}"] = count.handle
    register_skills_api(app, SkillsApi(settings, engine))
    register_inspect_page(app, InspectPage(engine, history))
    app.add_api_route("/v1/{path:path}", proxy.forward, methods=ALL_METHODS)
    app.add_api_route("/metrics", metrics.page, methods=["GET"])
    app.add_api_route("/api/{path:path}", OllamaApi(settings, forwarder).forward, methods=ALL_METHODS)
    app.add_api_route("/{path:path}", proxy.not_found, methods=ALL_METHODS)
    return app


# Each chat surface's route: the path its clients post to, the surface that serves it, the route (the shared
# one, or Responses', which also keeps what a request continuing an answer by its id needs), and the path of its
# token count beside it, if it has one.
SURFACES: tuple[tuple[str, Surface, type[SkillRoute], str], ...] = (
    ("/v1/chat/completions", CHAT_COMPLETIONS, SkillRoute, ""),
    ("/v1/responses", RESPONSES, ResponsesRoute, "input_tokens"),
    ("/v1/messages", ANTHROPIC_MESSAGES_SURFACE, SkillRoute, "count_tokens"),
    ("/api/chat", OLLAMA_CHAT, SkillRoute, ""),
)
# Paths whose clients read errors in a shape other than OpenAI's: a surface's route and the paths beside it
# (its token counting, its model listing), longest prefix first.
ERROR_SHAPES: tuple[tuple[str, ErrorShape], ...] = (
    ("/v1/responses", RESPONSES_ERRORS),
    ("/v1/messages", ANTHROPIC_ERRORS),  # and /v1/messages/count_tokens
    ("/api", OLLAMA_ERRORS),
)


def error_shape_for(path: str) -> ErrorShape:
    """The error shape the client of `path` reads: its surface's, OpenAI's elsewhere."""
    for prefix, shape in ERROR_SHAPES:
        if path == prefix or path.startswith(prefix.rstrip("/") + "/"):
            return shape
    return OPENAI_ERRORS


async def _framework_error(request: Request, exc: HTTPException) -> Response:
    """The framework's own errors (a method no route takes, such as TRACE) in the shape the path's clients read."""
    allowed = f" (allowed: {exc.headers['Allow']})" if exc.headers and "Allow" in exc.headers else ""
    code = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}.get(exc.status_code, ErrorCode.INVALID_REQUEST)
    message = f"{exc.detail}: {request.method} {request.url.path}{allowed}"
    shape = error_shape_for(request.url.path)
    if shape is not OPENAI_ERRORS:  # a surface whose clients read another shape (Anthropic's, Ollama's)
        error = BadRequest(message, code=code)
        error.status = exc.status_code
        return Response(shape.answer(error), exc.status_code, headers=exc.headers, media_type="application/json")
    return JSONResponse(error_body(message, "invalid_request_error", code), exc.status_code, headers=exc.headers)


class _Routes:
    def __init__(self, settings: Settings, forwarder: Forwarder) -> None:
        self.settings = settings
        self.forwarder = forwarder
        self.upstreams = forwarder.upstreams

    async def healthz(self) -> dict[str, str]:
        return {"status": "ok"}

    async def readyz(self) -> Response:
        ready, body = await _readiness(self.upstreams.default)
        return JSONResponse(body, status_code=200 if ready else 503)

    async def readyz_each(self) -> Response:
        """Every upstream's readiness: "ready" when all are, "degraded" (still 200) when some are."""
        results = await asyncio.gather(*(_readiness(member) for member in self.upstreams.members))
        ready = sum(1 for ok, _ in results if ok)
        status = "ready" if ready == len(results) else "degraded" if ready else "unavailable"
        each = [{"name": member.name, **body} for member, (_, body) in zip(self.upstreams.members, results)]
        return JSONResponse({"status": status, "upstreams": each}, status_code=503 if not ready else 200)

    async def models(self, request: Request) -> Response:
        """`GET /v1/models` with several upstreams: their lists merged, each model id once."""
        headers = with_trace_headers(list(request.headers.items()), request_trace(request.scope).upstream_headers())
        async with DisconnectWatch(request.receive) as watch:
            body, answered = await watch.guard(self.upstreams.model_list(
                headers, request_id_of(request.scope), request.url.query))
        request_record(request.scope).upstream = ",".join(answered)
        return JSONResponse(body)

    async def not_found(self, request: Request, path: str) -> Response:
        raise NotFound(f"no such endpoint: {request.method} {request.url.path}; "
                       "skillproxy serves the OpenAI API under /v1 and Ollama's under /api "
                       "(and /healthz, /readyz, /metrics)")

    async def forward(self, request: Request, path: str) -> Response:
        return await self.forwarder.pass_through(request, self.settings.max_body_bytes,
                                                 lambda content: self._send_to_chosen(request, path, content))

    async def _send_to_chosen(self, request: Request, path: str, content: Any) -> UpstreamResponse:
        """With `upstreams:`, sent where the body's `model` (or `/models/ID`) says; else to the default."""
        upstream = None
        if self.upstreams.routed:
            upstream, content = await _chosen_upstream(self.upstreams, request, path, content)
        return await self.forwarder.send(request, path, content, True, upstream)


async def _readiness(upstream: Upstream) -> tuple[bool, dict[str, Any]]:
    """Whether `upstream`'s `/models` answers below 500, and what /readyz says about it."""
    url = upstream.url_for("models")
    try:
        status = await upstream.probe()
    except UpstreamError as error:
        return False, {**error.body(), "status": "unavailable", "upstream": url}
    if status >= 500:
        message = f"upstream {url} answered HTTP {status}; it may still be loading a model"
        body = {"error": {"message": message, "type": "upstream_error", "code": "upstream_not_ready"}}
        return False, {**body, "status": "unavailable", "upstream": url}
    return True, {"status": "ready", "upstream": url, "upstream_status": status}


async def _chosen_upstream(upstreams: Upstreams, request: Request, path: str, content: Any) -> tuple[Upstream, Any]:
    """The upstream for a passthrough request, and its body (read whole when it had to be looked into)."""
    if request.method == "GET" and path.startswith("models/"):
        return upstreams.for_model(path[len("models/"):]), content
    upstream, content = await upstream_for_body(upstreams, request.headers.get("content-type", ""), content,
                                                lambda body: body.get("model"))
    return upstream or upstreams.default, content
