"""`POST /v1/responses`: the OpenAI Responses surface.

What lives here: `ResponsesSurface`, the `Surface` of the Responses API,
which `ResponsesRoute` (`proxy.surfaces.responses_route`) serves, and
`ResponsesErrors`, OpenAI's error shape with a Responses stream's `error`
event. The body must be a JSON object whose `input` is a string or a list
of items (read by `proxy.surfaces.responses_input`); without `input`, a body
that continues a held history (`previous_response_id` or `conversation`)
goes on as it came. The preprocessed input (and `instructions`) go back in
their places; every other field (`tools` of the built-in kinds,
`tool_choice`, `parallel_tool_calls`, `store`, `include`, `reasoning`,
`text`, `metadata`, `previous_response_id`, `conversation`, ...) reaches the
upstream as the client sent it.

State: with `previous_response_id` the conversation's `chain` is that id, so
the preprocessor reads what the proxy kept for it (the reminder, not a second
full injection). A `conversation` object holds a history the proxy cannot
see: it passes through untouched, a `history_not_visible` line says so, and
the new input is preprocessed as a turn continuing the chain named by the
conversation's id (the proxy keeps its decision under that id too), so the
route's block is not sent again on every turn.

Tool mode: server mode falls back to inline when the client sets
`tool_choice: "none"`, or when the upstream refused tools for the model.

What must not: run the request (the route does), or talk httpx.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import structlog

from proxy.core import json_codec
from proxy.core.tools.rounds import ToolRounds
from proxy.core.tools.skill_tools import ToolSpec
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.records import MixedCall
from proxy.errors import BadRequest, BodyTooLarge, ErrorCode, ProxyError, normalise_error
from proxy.request_body import json_type, load_json_body
from proxy.surfaces.responses_input import read_input, system_in_input, written_instructions
from proxy.surfaces.responses_tool_format import RESPONSES_TOOL_FORMAT
from proxy.surfaces.responses_tool_loop import ResponsesToolLoopWire, UpstreamMemory
from proxy.upstream.client import UpstreamResponse

log = structlog.get_logger("proxy.responses")
CONVERSATION_CHAIN = "conversation:"  # a `conversation` id's chain, apart from response ids
# The tool-loop wire of the request being served, for what the route keeps once the loop has finished.
REQUEST_WIRE: ContextVar[ResponsesToolLoopWire | None] = ContextVar("responses_request_wire", default=None)


class ResponsesErrors:
    """OpenAI's error shape (with `param`); in a stream, an `error` event, which ends a Responses stream."""

    def answer(self, error: ProxyError) -> bytes:
        return json_codec.dumps(with_param(error.body()))

    def upstream_answer(self, status: int, raw: bytes, upstream: str) -> Any:
        return normalise_error(status, raw, upstream)

    def stream_frame(self, error: ProxyError, sequence_number: int = 0) -> bytes:
        return error_event(error, sequence_number)


def with_param(body: Mapping[str, Any]) -> dict[str, Any]:
    return {"error": {**body["error"], "param": body["error"].get("param")}}


def error_event(error: ProxyError, sequence_number: int) -> bytes:
    """A failure in a Responses stream: `event: error` with the error's code and message."""
    data = {"type": "error", "code": error.code, "message": error.message, "param": None,
            "sequence_number": sequence_number}
    return b"event: error\ndata: " + json_codec.dumps(data) + b"\n\n"


RESPONSES_ERRORS = ResponsesErrors()


class ResponsesSurface:
    name = "responses"
    upstream_path = "responses"
    native = False
    errors = RESPONSES_ERRORS

    def __init__(self) -> None:
        self.memory = UpstreamMemory()  # which upstreams keep responses by id, as their answers showed

    @property
    def tool_loop(self) -> ResponsesToolLoopWire:
        """A fresh wire per request: it remembers the rounds' response ids (and is the request's `REQUEST_WIRE`)."""
        wire = ResponsesToolLoopWire(self.memory)
        REQUEST_WIRE.set(wire)
        return wire

    def parse_body(self, raw: bytes, max_items: int | None) -> dict[str, Any]:
        return parse_responses_body(raw, max_items)

    def streams(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def conversation(self, body: dict[str, Any]) -> Conversation:
        conversation = read_input(body)
        held = conversation_id(body.get("conversation"))
        if held is not None:
            log.info("history_not_visible", conversation=held[:200],
                     reason="the upstream holds this conversation's history; the proxy sees only the new input")
            if not conversation.chain:
                conversation = replace(conversation, chain=CONVERSATION_CHAIN + held)
        return conversation

    def forwarded_body(self, body: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
        forwarded = dict(body)
        if "input" in body or conversation.turns:
            forwarded["input"] = conversation.written()
        if not system_in_input(conversation):
            if conversation.system is not None:
                forwarded["instructions"] = written_instructions(conversation)
            elif isinstance(body.get("instructions"), str):
                del forwarded["instructions"]  # the system turn was left out (a `context: fork` skill)
        return forwarded

    def tool_mode_for(self, configured: str, body: dict[str, Any],
                      refused_models: Container[str]) -> tuple[str, str | None]:
        if configured != ToolMode.SERVER:
            return configured, None
        if str(body.get("model")) in refused_models:
            return ToolMode.INLINE, "the upstream rejected tools for this model earlier"
        if body.get("tool_choice") == "none":
            return ToolMode.INLINE, 'the client set tool_choice "none"'
        return ToolMode.SERVER, None

    def can_take_tools(self, body: dict[str, Any]) -> bool:
        """False when the client's `tools` is not a list: it goes upstream as sent, for the upstream to judge."""
        return body.get("tools") is None or isinstance(body["tools"], list)

    def add_tools(self, body: dict[str, Any], specs: Sequence[ToolSpec]) -> tuple[dict[str, Any], frozenset[str]]:
        return RESPONSES_TOOL_FORMAT.add_tools(body, specs)

    def recorded(self, rounds: ToolRounds) -> tuple[list[Any], MixedCall | None]:
        return RESPONSES_TOOL_FORMAT.recorded(rounds)

    def is_stream(self, answer: UpstreamResponse) -> bool:
        return answer.is_event_stream


def parse_responses_body(raw: bytes, max_items: int | None = None) -> dict[str, Any]:
    """The Responses request in `raw`; a 400 (or 413) that names the problem when the proxy cannot act on it."""
    body = load_json_body(raw)
    if not isinstance(body, dict):
        raise BadRequest(f"request body must be a JSON object, not {json_type(body)}", code=ErrorCode.INVALID_BODY)
    value = body.get("input")
    continues = body.get("previous_response_id") is not None or body.get("conversation") is not None
    if "input" not in body and continues:
        return body
    if not isinstance(value, (str, list)):
        found = "none" if "input" not in body else json_type(value)
        raise BadRequest(f"request body needs `input`: a string or a list of input items (found {found})",
                         code=ErrorCode.INVALID_BODY)
    if isinstance(value, list) and max_items is not None and len(value) > max_items:
        raise BodyTooLarge(f"request has {len(value)} input items, over the limit of {max_items}; raise "
                           "`max_messages` (SKILLPROXY_MAX_MESSAGES) to accept it", code=ErrorCode.TOO_MANY_MESSAGES)
    return body


def conversation_id(value: Any) -> str | None:
    """The id of a request's `conversation` (a string, or an object with an `id`)."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping) and isinstance(value.get("id"), str) and value["id"]:
        return str(value["id"])
    return None


