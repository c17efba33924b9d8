"""The chat routes' short way in: a POST to a chat surface's path goes straight to its handler.

What lives here: `FastPath`, pure ASGI middleware (inside `RequestContext`, so
every request still gets its id, key check, error rendering and `request`
line) that hands a POST to one of the paths it was given to that path's
handler, as Starlette's `request_response` would, past FastAPI's router (a
match against every route), its dependency resolution and its exception
middleware: on every chat request those cost about as much as the proxy's own
work on it. The same handlers stay registered as FastAPI routes, which describe
the API (the OpenAPI document) and serve anything the short way does not take.

What must not: know what a handler does, or render errors (`proxy.middleware` does).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.requests import Request
from starlette.responses import Response

from proxy.middleware import ASGIApp, Receive, Scope, Send

Handler = Callable[[Request], Awaitable[Response]]


class FastPath:
    def __init__(self, app: ASGIApp, routes: Mapping[str, Handler]) -> None:
        self.app = app
        self._routes = routes  # path: handler of its POSTs (read per request: filled once the routes are made)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self._routes.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if handler is None:
            await self.app(scope, receive, send)
            return
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)
