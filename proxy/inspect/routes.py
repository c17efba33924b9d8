"""The inspect page's routes: the page and its files, and its JSON under `/_skillproxy/api/`.

- `GET /_skillproxy/`: the page (`static/index.html`); its CSS and JavaScript
  under `/_skillproxy/static/`. These hold no data, so they are open even with
  `api_keys` (`PAGE_PATHS`): a person needs the page to type the key into.
- `GET /_skillproxy/api/catalog`: the skills, their warnings, shadowed and skipped ones.
- `GET /_skillproxy/api/requests?limit=N`: the last requests, newest first.
- `GET /_skillproxy/api/requests/{request_id}`: one request's detail with the injected text.
The JSON endpoints need the Bearer key like every other path when `api_keys` is set.
The page's "try a prompt" box calls the existing `POST /v1/skills/route`.

Files are read once when the app is built and served from memory.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import Request, Response
from fastapi.responses import RedirectResponse

from proxy.engine.preprocess_runner import ChatPreprocessor
from proxy.errors import BadRequest, ErrorCode, NotFound
from proxy.http_methods import ALL_METHODS
from proxy.inspect.catalog_view import catalog_view
from proxy.inspect.history import RequestHistory
from proxy.inspect.request_view import detail, summary
from proxy.json_response import json_response

PREFIX = "/_skillproxy"
_TYPES = {"index.html": "text/html; charset=utf-8", "inspect.css": "text/css; charset=utf-8",
          "inspect.js": "text/javascript; charset=utf-8"}
PAGE_PATHS = frozenset({PREFIX, f"{PREFIX}/", f"{PREFIX}/static/inspect.css", f"{PREFIX}/static/inspect.js"})
# The page runs only its own script and style, so text from a request can never become markup or code.
_PAGE_HEADERS = {"content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                 "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
                 "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "cache-control": "no-cache"}


class InspectPage:
    def __init__(self, engine: ChatPreprocessor, history: RequestHistory) -> None:
        self.engine = engine
        self.history = history
        folder = resources.files("proxy.inspect") / "static"
        self.files = {name: (folder / name).read_bytes() for name in _TYPES}

    async def redirect(self) -> Response:
        return RedirectResponse(f"{PREFIX}/", status_code=308)

    async def page(self) -> Response:
        return self._file("index.html")

    async def static(self, name: str) -> Response:
        if name not in self.files or name == "index.html":
            raise NotFound(f"no such inspect page file: {name!r}")
        return self._file(name)

    async def catalog(self) -> Response:
        return json_response(catalog_view(self.engine.skills()))

    async def requests(self, request: Request) -> Response:
        limit = _limit(request.query_params.get("limit"), self.history.size)
        data = [summary(r) for r in self.history.recent(limit)]
        return json_response({"history": self._history_state(), "data": data})

    async def request_detail(self, request_id: str) -> Response:
        kept = self.history.find(request_id)
        if kept is None:
            why = (f"it is not among the last {self.history.size} requests kept" if self.history.enabled
                   else "the request history is off (inspect_history: 0)")
            raise NotFound(f"no request {request_id!r} in the inspect history: {why}", code=ErrorCode.REQUEST_NOT_FOUND)
        return json_response(detail(kept))

    async def unknown(self, request: Request, rest: str) -> Response:
        raise NotFound(f"no such inspect endpoint: {request.method} {request.url.path}; the page is "
                       f"{PREFIX}/ and its data {PREFIX}/api/catalog, {PREFIX}/api/requests[/ID]")

    def _file(self, name: str) -> Response:
        return Response(self.files[name], media_type=_TYPES[name], headers=_PAGE_HEADERS)

    def _history_state(self) -> dict[str, Any]:
        return {"enabled": self.history.enabled, "size": self.history.size}


def _limit(raw: str | None, size: int) -> int | None:
    if raw is None:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise BadRequest(f"query parameter 'limit' must be a whole number from 1, got {raw!r}",
                         code=ErrorCode.INVALID_LIMIT)
    return min(int(raw), max(size, 1))


def register(app: Any, page: InspectPage) -> None:
    app.add_api_route(PREFIX, page.redirect, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{PREFIX}/", page.page, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{PREFIX}/static/{{name}}", page.static, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{PREFIX}/api/catalog", page.catalog, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{PREFIX}/api/requests", page.requests, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{PREFIX}/api/requests/{{request_id}}", page.request_detail, methods=["GET"],
                      include_in_schema=False)
    app.add_api_route(f"{PREFIX}/{{rest:path}}", page.unknown, methods=ALL_METHODS, include_in_schema=False)
