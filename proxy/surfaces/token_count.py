"""Token counting beside a chat surface: what the model will really get, counted by the upstream.

What lives here: `TokenCount`, the handler of `POST /v1/messages/count_tokens`
(Anthropic) and `POST /v1/responses/input_tokens` (Responses). It shares the
surface's own `SkillRoute`, so the body is read, previewed and written exactly
as that route would forward it: the same packet, routed block, reminder and
replay (`engine.preview`: nothing is stored), a skill's model, and the proxy's
tools when server mode would add them (a model whose upstream refused tools
counts without them, as it is sent). The upstream's answer is relayed, an
error in the surface's shape. A preview that fails or outlasts the scan
timeout counts the body as the client sent it, and says so in the log: a
count must not fail on the preprocessor.

What must not: keep turn records, run the tool loop, or talk httpx.
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from fastapi import Request, Response

from proxy.core.turns.modes import SkillsMode
from proxy.core.turns.request_options import RequestOptions
from proxy.middleware import DisconnectWatch
from proxy.request_body import read_body
from proxy.request_record import RequestRecord, request_record
from proxy.surfaces.skill_route import SkillRoute, json_bytes, loggable_model

log = structlog.get_logger("proxy.token_count")


class TokenCount:
    def __init__(self, route: SkillRoute, upstream_path: str) -> None:
        self.route = route
        self.upstream_path = upstream_path  # under the upstream's base, as the surface's own path is

    async def handle(self, request: Request) -> Response:
        route = self.route
        surface, settings = route.surface, route.settings
        body = surface.parse_body(await read_body(request, settings.max_body_bytes), settings.max_messages)
        record = request_record(request.scope)
        record.surface, record.model = surface.name, loggable_model(body.get("model"))
        options = route.options_for(request, body)
        async with DisconnectWatch(request.receive) as watch:
            counted = await watch.guard(self._as_forwarded(body, options, record))
            upstream = route.forwarder.upstreams.for_model(counted.get("model"))
            answer = await watch.guard(route.forwarder.send(request, self.upstream_path, json_bytes(counted), False,
                                                            upstream, surface.native))
            return await route.forwarder.respond(answer, watch, surface.errors, whole_json=True)

    async def _as_forwarded(self, body: dict[str, Any], options: RequestOptions,
                            record: RequestRecord) -> dict[str, Any]:
        """The body as the surface's route would forward it, the proxy's tools included in server mode."""
        route = self.route
        if options.skills_mode == SkillsMode.OFF:
            return body
        conversation = route.surface.conversation(body)
        try:
            result = await asyncio.wait_for(asyncio.to_thread(route.engine.preview, conversation, options),
                                            route.settings.scan_timeout)
        except Exception as exc:  # noqa: BLE001 - a count of the body as sent is still a useful answer
            log.warning("token_count_preview_failed", error_type=type(exc).__name__, reason=str(exc)[:200],
                        counted="the body as sent")
            return body
        counted, _ = route.with_skill_tools(route.rewritten(body, result, record), options)
        return counted
