"""One chat request on any surface: preprocess, add the skill tools, forward, run the tool loop.

What lives here: `SkillRoute`, the handler every chat surface's route is
(`POST /v1/chat/completions`, and the others beside it), given the surface's
`Surface`. The preprocessor runs under the scan timeout; in server tool mode
the proxy's skill tools are added and `ToolLoop` answers; an upstream that
refuses tools gets the request again in inline mode and the model is
remembered (per surface). The upstream is chosen by the forwarded `model`
(after a skill's allowed model override), each round anew.

Errors: an upstream's error answer is rendered in the surface's error shape
(unless it refuses the tools: then the request is retried inline); the proxy's
own errors are raised as `ProxyError` and rendered by `proxy.middleware` in the
shape the path's surface uses.

What must not: talk httpx, know a wire format (the surface does), or decide routes (the engine does).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import structlog
from fastapi import Request, Response
from fastapi.responses import JSONResponse

from proxy.core import json_codec
from proxy.core.tools.rounds import ToolRounds
from proxy.core.tools.skill_tools import SkillTools, tool_specs
from proxy.core.tools.tool_mode import ToolMode, rejects_tools
from proxy.core.turns.decision_events import summarize
from proxy.core.turns.modes import SkillsMode, TurnMode
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.turns.request_options import RequestOptions
from proxy.engine.preprocess_runner import ChatPreprocessor, PreprocessPace, log_decision_events, run_preprocessor
from proxy.inspect.request_view import chat_turn
from proxy.middleware import DisconnectWatch
from proxy.relay.forwarding import Forwarder, streaming_response
from proxy.request_body import read_body, skills_options
from proxy.request_record import RequestRecord, request_record
from proxy.settings import Settings
from proxy.surfaces.surface import Surface
from proxy.tool_loop import ToolLoop
from proxy.tracing.request_trace import NO_TRACE, RequestTrace, request_trace
from proxy.upstream.client import UpstreamResponse

log = structlog.get_logger("proxy.chat")
MAX_LOGGED_MODEL_CHARS = 200
ROUTE_HEADER = "x-skills-route"
SkillToolsOffer = tuple[SkillTools, frozenset[str]]  # the runner, and the names added to the request


class SkillRoute:
    def __init__(self, surface: Surface, settings: Settings, engine: ChatPreprocessor, forwarder: Forwarder) -> None:
        self.surface = surface
        self.settings = settings
        self.engine = engine
        self.forwarder = forwarder
        self.tools_refused: set[str] = set()  # models whose upstream rejected our tools: inline from now on
        self.tool_specs = tool_specs()  # built once: every request's copy of its tools shares them
        # inline or in a thread, by how long it has been taking (always a thread when the turn store is Redis)
        self.pace = PreprocessPace(settings.scan_timeout, may_block=settings.state != "memory")

    async def handle(self, request: Request) -> Response:
        body = self.surface.parse_body(await read_body(request, self.settings.max_body_bytes),
                                       self.settings.max_messages)
        record = request_record(request.scope)
        record.surface = self.surface.name
        record.model, record.stream = loggable_model(body.get("model")), self.surface.streams(body)
        options = self.options_for(request, body)
        trace = request_trace(request.scope)
        async with DisconnectWatch(request.receive) as watch:
            result = await self.preprocess(body, options, record, watch, trace)
            forwarded, tools = self.with_skill_tools(self.rewritten(body, result, record), options)
            record.tool_mode, record.skill_tools = options.tool_mode, tools is not None
            answer = await watch.guard(self.send(request, forwarded))
            if tools is None:
                return self.answered(result, await self.forwarder.respond(
                    answer, watch, self.surface.errors, whole_json=not self.surface.is_stream(answer)))
            if answer.status >= 400:
                return await self._answer_refusal(request, body, options, answer, watch)
            rounds = ToolRounds(trace.tool_runner(tools[0]), tools[1], self.settings.max_tool_rounds, _call_id)
            loop = ToolLoop(rounds, forwarded,
                            lambda next_body: self.send(request, next_body), answer.base_url,
                            self._finisher(result, record), self.surface.tool_loop, self.surface.errors)
            if record.stream and self.surface.is_stream(answer):
                return self.answered(result, streaming_response(answer, loop.stream(answer)))
            return self.answered(result, await loop.complete(answer, watch.guard))

    def answered(self, result: Preprocessed, response: Response) -> Response:
        """The client's answer on its way out: a surface's route may read it (Responses keeps its id)."""
        return response

    def options_for(self, request: Request, body: dict[str, Any]) -> RequestOptions:
        """The request's X-Skills-* choices and its tool mode; a bad header is a 400."""
        options = skills_options(request)
        tool_mode, why = self.surface.tool_mode_for(self.settings.tool_mode, body, self.tools_refused)
        if why:
            log.info("tool_mode_changed", tool_mode=tool_mode, reason=why)
        return replace(options, tool_mode=tool_mode)

    async def preprocess(self, body: dict[str, Any], options: RequestOptions, record: RequestRecord,
                         watch: DisconnectWatch, trace: RequestTrace = NO_TRACE) -> Preprocessed:
        conversation = self.surface.conversation(body)
        with trace.preprocessing() as step:
            if options.skills_mode == SkillsMode.OFF:
                result = Preprocessed(conversation, TurnMode.PASSTHROUGH, SkillsMode.OFF)
            else:
                result = await watch.guard(run_preprocessor(self.engine, conversation, self.settings.scan_timeout,
                                                            options, record, self.pace))
            log_decision_events(result)
            record.mode, record.selected, record.route = result.mode, list(result.selected), result.route_header
            _note_decision(record, result)
            step.decided(record)
        record.response_headers[ROUTE_HEADER] = result.route_header  # on an error answer from here on too
        record.chat_turn = chat_turn(conversation, result)  # references only, for the inspect page
        return result

    def rewritten(self, body: dict[str, Any], result: Preprocessed, record: RequestRecord) -> dict[str, Any]:
        """The request as forwarded: the preprocessed conversation, and a skill's model when one was allowed."""
        rewritten = self.surface.forwarded_body(body, result.conversation)
        if result.model:
            rewritten["model"] = result.model
            record.upstream_model = result.model
        return rewritten

    def with_skill_tools(self, body: dict[str, Any],
                          options: RequestOptions) -> tuple[dict[str, Any], SkillToolsOffer | None]:
        """The body with the proxy's tools added in server mode, and (runner, names added) or None."""
        wanted = (options.tool_mode == ToolMode.SERVER and options.skills_mode != SkillsMode.OFF
                  and self.surface.can_take_tools(body))
        runner = self.engine.skill_tools(options) if wanted else None
        if runner is None:
            return body, None
        with_tools, added = self.surface.add_tools(body, self.tool_specs)
        return (with_tools, (runner, added)) if added else (body, None)

    async def _answer_refusal(self, request: Request, body: dict[str, Any], options: RequestOptions,
                              answer: UpstreamResponse, watch: DisconnectWatch) -> Response:
        """An error answer to a request with our tools: retried inline when it was about the tools."""
        raw = await answer.read_and_close(watch.guard)
        if not rejects_tools(answer.status, raw):
            return JSONResponse(self.surface.errors.upstream_answer(answer.status, raw, answer.base_url),
                                answer.status)
        model = str(body.get("model"))
        self.tools_refused.add(model)
        log.warning("upstream_rejected_tools", model=loggable_model(model), status=answer.status,
                    message=raw[:300].decode("utf-8", "replace"), now_using=ToolMode.INLINE)
        record = request_record(request.scope)
        record.tool_mode = ToolMode.INLINE
        result = await self.preprocess(body, replace(options, tool_mode=ToolMode.INLINE), record, watch,
                                       request_trace(request.scope))
        retry = await watch.guard(self.send(request, self.rewritten(body, result, record)))
        return self.answered(result, await self.forwarder.respond(retry, watch, self.surface.errors,
                                                                  whole_json=not self.surface.is_stream(retry)))

    def _finisher(self, result: Preprocessed, record: RequestRecord) -> Callable[[ToolRounds], None]:
        def finish(rounds: ToolRounds) -> None:
            record.tool_rounds, record.tool_calls = rounds.rounds, rounds.calls
            if result.anchor is not None and (rounds.exchange or rounds.mixed is not None):
                self.engine.record_tool_exchange(result.anchor, *self.surface.recorded(rounds))
            if rounds.rounds:
                log.debug("tool_loop", rounds=rounds.rounds, calls=rounds.calls, mixed=rounds.mixed is not None,
                         capped=rounds.capped)
        return finish

    async def send(self, request: Request, body: dict[str, Any]) -> UpstreamResponse:
        """Sent to the upstream serving the body's model (a skill's model, when one was allowed)."""
        upstream = self.forwarder.upstreams.for_model(body.get("model"))
        call = request_trace(request.scope).chat_call(self.surface, upstream, body)
        try:
            answer = await self.forwarder.send(request, self.surface.upstream_path, json_bytes(body), False, upstream,
                                               self.surface.native, call.upstream_headers)
        except BaseException as error:
            call.failed(error)
            raise
        return call.answered(answer)


def _note_decision(record: RequestRecord, result: Preprocessed) -> None:
    """Why the request went out as it did, for the `request` line: the scores, the best rejected candidate,
    what was injected, and a rewritten history's `compaction_detected` (so the default log, without the step
    events, still answers "why this skill", and "were the dropped skills put back")."""
    decision = result.decision
    if decision is not None:
        record.scores = [summarize(candidate) for candidate in decision.selected]
        rejected = decision.best_rejected
        record.rejected_best = summarize(rejected) if rejected is not None else None
    injection = compaction = None
    for event in result.events:
        name = event.get("event")
        if name == "context_injection" and injection is None:
            injection = event
        elif name == "compaction_detected":
            compaction = event
    if injection is not None:
        record.injection_chars, record.injection_sha256 = injection.get("injection_chars"), injection.get(
            "injection_sha256")
    if compaction is not None:
        record.compaction = {k: v for k, v in compaction.items() if k != "event"}


def json_bytes(body: dict[str, Any]) -> bytes:
    """The body as UTF-8 JSON (a lone surrogate, half an emoji the client sent as an escape, goes out escaped)."""
    return json_codec.dumps(body)


def loggable_model(model: Any) -> Any:
    """The request's `model` for a log line: as sent, unless it is long or not text (then JSON, cut short)."""
    if model is None or (isinstance(model, str) and len(model) <= MAX_LOGGED_MODEL_CHARS):
        return model
    text = model if isinstance(model, str) else json.dumps(model, ensure_ascii=False)
    return text if len(text) <= MAX_LOGGED_MODEL_CHARS else text[:MAX_LOGGED_MODEL_CHARS] + "…"


def _call_id() -> str:
    return f"call_skp_{uuid.uuid4().hex[:24]}"
