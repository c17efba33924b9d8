"""The web app: `create_app(settings, engine)` and its routes.

What lives here: the routes. `POST /v1/chat/completions` is
`proxy.chat_completions`, `/v1/skills...` is `proxy.skills_api`; every other
`/v1/...` path and method is forwarded
untouched; `/healthz` and `/readyz`; the inspect page under `/_skillproxy/`
(`proxy.inspect`); an OpenAI-shaped 404 elsewhere.

What must not: talk httpx (see `proxy.upstream`), render errors (see
`proxy.middleware`), or know how skills are chosen (see the engine behind
`ChatPreprocessor`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from proxy.chat_completions import ChatCompletions
from proxy.errors import NotFound, UpstreamError, error_body
from proxy.forwarding import Forwarder
from proxy.inspect.history import RequestHistory
from proxy.inspect.routes import PAGE_PATHS, InspectPage
from proxy.inspect.routes import register as register_inspect_page
from proxy.middleware import OPEN_PATHS, DisconnectWatch, RequestContext, RequestObserver
from proxy.preprocess_runner import ChatPreprocessor
from proxy.request_body import CHAT_REQUEST_DOC, capped_stream, check_declared_length
from proxy.settings import Settings
from proxy.skills_api import SkillsApi
from proxy.skills_api import register as register_skills_api
from proxy.upstream import Upstream

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def create_app(settings: Settings, engine: ChatPreprocessor, upstream: Upstream | None = None,
               observers: tuple[RequestObserver, ...] = ()) -> FastAPI:
    upstream = upstream or Upstream(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await upstream.aclose()

    app = FastAPI(title="skillproxy", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan,
                  exception_handlers={HTTPException: _framework_error})
    history = RequestHistory(settings.inspect_history)
    if history.enabled:
        observers = (*observers, history.observe)
    app.add_middleware(RequestContext, api_keys=settings.api_keys, observers=observers,
                       open_paths=OPEN_PATHS | PAGE_PATHS)
    forwarder = Forwarder(upstream)
    proxy = _Routes(settings, forwarder)
    app.add_api_route("/healthz", proxy.healthz, methods=["GET"])
    app.add_api_route("/readyz", proxy.readyz, methods=["GET"])
    app.add_api_route("/v1/chat/completions", ChatCompletions(settings, engine, forwarder).handle,
                      methods=["POST"], openapi_extra=CHAT_REQUEST_DOC)
    register_skills_api(app, SkillsApi(settings, engine))
    register_inspect_page(app, InspectPage(engine, history))
    app.add_api_route("/v1/{path:path}", proxy.forward, methods=ALL_METHODS)
    app.add_api_route("/{path:path}", proxy.not_found, methods=ALL_METHODS)
    return app


async def _framework_error(request: Request, exc: HTTPException) -> Response:
    """The framework's own errors (a method no route takes, such as TRACE) in the OpenAI shape."""
    allowed = f" (allowed: {exc.headers['Allow']})" if exc.headers and "Allow" in exc.headers else ""
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid_request")
    message = f"{exc.detail}: {request.method} {request.url.path}{allowed}"
    return JSONResponse(error_body(message, "invalid_request_error", code), exc.status_code, headers=exc.headers)


class _Routes:
    def __init__(self, settings: Settings, forwarder: Forwarder) -> None:
        self.settings = settings
        self.forwarder = forwarder
        self.upstream = forwarder.upstream

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

    async def not_found(self, request: Request, path: str) -> Response:
        raise NotFound(f"no such endpoint: {request.method} {request.url.path}; "
                       "skillproxy serves the OpenAI API under /v1 (and /healthz, /readyz)")

    async def forward(self, request: Request, path: str) -> Response:
        check_declared_length(request, self.settings.max_body_bytes)
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        body_done = asyncio.Event()
        content = capped_stream(request, self.settings.max_body_bytes, body_done) if has_body else None
        if content is None:
            body_done.set()
        async with DisconnectWatch(request.receive, body_done) as watch:
            answer = await watch.guard(self.forwarder.send(request, path, content, keep_length=True))
            return await self.forwarder.respond(answer, watch)
