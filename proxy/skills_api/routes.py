"""`/v1/skills`: the catalog for clients and tooling, and a dry run of the preprocessor.

- `GET /v1/skills`: every skill in scope (config and X-Skills-* headers) as JSON.
- `GET /v1/skills/{name}`: one skill's metadata and SKILL.md body.
- `GET /v1/skills/{name}/files/{path}`: a supporting file, with the same
  containment and size cap as the `read_skill_file` tool (web clients have no
  file tools).
- `POST /v1/skills/route`: `{"messages": [...]}` in, the decision the
  preprocessor would take out (mode, route, selected skills, their scores and
  reasons and the top-ranked candidates, the log events, the rewritten
  messages); nothing is forwarded or stored.

Any other method or path under `/v1/skills` is an OpenAI-shaped 404: the
proxy owns that prefix, so none of it reaches the upstream.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse

from proxy.core.catalog.files import read_skill_body
from proxy.core.tools.skill_tools import READ_SKILL_FILE, closest_skill_names
from proxy.engine.preprocess_runner import ChatPreprocessor
from proxy.errors import ErrorCode, NotFound, ProxyError
from proxy.http_methods import ALL_METHODS
from proxy.inspect.request_view import candidate_row
from proxy.json_response import json_response
from proxy.request_body import CHAT_REQUEST_DOC, parse_chat_body, read_body, skills_options
from proxy.settings import Settings
from proxy.skills_api.skill_json import skill_detail, skill_summary
from proxy.surfaces.chat_messages import read_messages

# read_skill_file's error codes as HTTP statuses
_STATUS_FOR = {"unknown_skill": 404, "not_found": 404, "path_refused": 400, "is_directory": 400,
               "not_a_file": 400, "binary_file": 415, "bad_arguments": 400}


class SkillsApi:
    def __init__(self, settings: Settings, engine: ChatPreprocessor) -> None:
        self.settings = settings
        self.engine = engine

    async def list(self, request: Request) -> Response:
        catalog = self.engine.skills(skills_options(request))
        data = [skill_summary(skill) for skill in sorted(catalog.skills, key=lambda s: s.name)]
        return JSONResponse({"object": "list", "data": data})

    async def get(self, request: Request, name: str) -> Response:
        catalog = self.engine.skills(skills_options(request))
        skill = catalog.get(name)
        if skill is None:
            closest = ", ".join(closest_skill_names(name, catalog)) or "none"
            raise NotFound(f"no skill named {name!r} (closest: {closest}); GET /v1/skills lists them",
                           code=ErrorCode.SKILL_NOT_FOUND)
        try:
            body, error = read_skill_body(skill.skill_file, self.settings.max_skill_file_bytes), None
        except OSError as exc:
            body, error = None, f"SKILL.md could not be read: {exc.strerror or exc}"
        return JSONResponse(skill_detail(skill, body, error))

    async def file(self, request: Request, name: str, path: str) -> Response:
        tools = self.engine.skill_tools(skills_options(request))
        if tools is None:
            raise NotFound("no skills are loaded", code=ErrorCode.SKILL_NOT_FOUND)
        result = tools.call(READ_SKILL_FILE, {"skill": name, "path": path})
        if result.ok:
            return PlainTextResponse(result.content, headers={"x-skill-file-truncated": str(
                bool(result.event.get("truncated"))).lower()})
        raise _FileError(_STATUS_FOR.get(str(result.event.get("error")), 400),
                         result.content.removeprefix("error: "), str(result.event.get("error")))

    async def route(self, request: Request) -> Response:
        body = parse_chat_body(await read_body(request, self.settings.max_body_bytes), self.settings.max_messages)
        result = await asyncio.to_thread(self.engine.preview, read_messages(body.get("messages")),
                                         skills_options(request))
        return json_response({
            "mode": result.mode,
            "route": result.route_header,
            "selected": list(result.selected),
            "selected_detail": [candidate_row(c) for c in result.decision.selected] if result.decision else [],
            "candidates": [candidate_row(c) for c in result.decision.candidates] if result.decision else [],
            "injected_chars": result.injected_chars,
            "events": list(result.events),
            "messages": result.messages,
        })


class _FileError(ProxyError):
    type = "invalid_request_error"

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message, code=code)
        self.status = status


async def no_such_endpoint(request: Request) -> Response:
    raise NotFound(f"no such skills endpoint: {request.method} {request.url.path}; the skills API is "
                   "GET /v1/skills, GET /v1/skills/{name}, GET /v1/skills/{name}/files/{path} "
                   "and POST /v1/skills/route")


def register(app: Any, api: SkillsApi) -> None:
    app.add_api_route("/v1/skills", api.list, methods=["GET"])
    app.add_api_route("/v1/skills/route", api.route, methods=["POST"], openapi_extra=CHAT_REQUEST_DOC)
    app.add_api_route("/v1/skills/{name}", api.get, methods=["GET"])
    app.add_api_route("/v1/skills/{name}/files/{path:path}", api.file, methods=["GET"])
    for prefix in ("/v1/skills", "/v1/skills/{rest:path}"):  # the rest of /v1/skills is never forwarded
        app.add_api_route(prefix, no_such_endpoint, methods=ALL_METHODS, include_in_schema=False)
