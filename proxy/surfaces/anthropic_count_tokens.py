"""`POST /v1/messages/count_tokens`: Anthropic's token count of what the model will really get.

What lives here: `CountTokens`, the route's handler. The body is read as
`/v1/messages` reads it, previewed by the engine (the same skill packet,
routed block, reminder and replay a `/v1/messages` request would get, with
nothing stored), given the proxy's tools when server mode would add them, and
sent to the upstream's `messages/count_tokens`; its answer is relayed, an error
in Anthropic's shape. A preview that fails or takes longer than the scan
timeout counts the body as the client sent it (and says so in the log).

What must not: keep turn records, run the tool loop, or talk httpx.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import structlog
from fastapi import Request, Response

from proxy.core.tools.skill_tools import tool_specs
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.modes import SkillsMode
from proxy.engine.preprocess_runner import ChatPreprocessor
from proxy.middleware import DisconnectWatch
from proxy.relay.forwarding import Forwarder
from proxy.request_body import read_body, skills_options
from proxy.request_record import request_record
from proxy.settings import Settings
from proxy.surfaces.anthropic_surface import ANTHROPIC_MESSAGES_SURFACE
from proxy.surfaces.skill_route import json_bytes, loggable_model

log = structlog.get_logger("proxy.count_tokens")
UPSTREAM_PATH = "messages/count_tokens"


class CountTokens:
    def __init__(self, settings: Settings, engine: ChatPreprocessor, forwarder: Forwarder) -> None:
        self.settings = settings
        self.engine = engine
        self.forwarder = forwarder
        self.surface = ANTHROPIC_MESSAGES_SURFACE
        self.tool_specs = tool_specs()

    async def handle(self, request: Request) -> Response:
        body = self.surface.parse_body(await read_body(request, self.settings.max_body_bytes),
                                       self.settings.max_messages)
        record = request_record(request.scope)
        record.surface, record.model = self.surface.name, loggable_model(body.get("model"))
        options = skills_options(request)
        tool_mode, _ = self.surface.tool_mode_for(self.settings.tool_mode, body, ())
        options = replace(options, tool_mode=tool_mode)
        async with DisconnectWatch(request.receive) as watch:
            counted = await watch.guard(self._previewed(body, options))
            upstream = self.forwarder.upstreams.for_model(counted.get("model"))
            answer = await watch.guard(self.forwarder.send(request, UPSTREAM_PATH, json_bytes(counted), False,
                                                           upstream))
            return await self.forwarder.respond(answer, watch, self.surface.errors, whole_json=True)

    async def _previewed(self, body: dict[str, Any], options: Any) -> dict[str, Any]:
        """The body as `/v1/messages` would forward it, the proxy's tools included in server mode."""
        if options.skills_mode == SkillsMode.OFF:
            return body
        conversation = self.surface.conversation(body)
        try:
            result = await asyncio.wait_for(asyncio.to_thread(self.engine.preview, conversation, options),
                                            self.settings.scan_timeout)
        except Exception as exc:  # noqa: BLE001 - a count of the body as sent is still a useful answer
            log.warning("count_tokens_preview_failed", error_type=type(exc).__name__, reason=str(exc)[:200])
            return body
        counted = self.surface.forwarded_body(body, result.conversation)
        if result.model:
            counted["model"] = result.model
        if options.tool_mode == ToolMode.SERVER and self.surface.can_take_tools(counted) \
                and self.engine.skill_tools(options) is not None:
            counted, _ = self.surface.add_tools(counted, self.tool_specs)
        return counted
