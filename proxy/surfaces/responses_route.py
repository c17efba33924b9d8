"""The Responses route: `POST /v1/responses`.

What lives here: `ResponsesRoute`, the shared `SkillRoute` with what only the
Responses API needs:
- after each answer, the proxy keeps the request's `chain_record` under the
  response id the client got (and under its `conversation`'s id), so a
  request that continues it by `previous_response_id` gets the reminder, not
  a second full injection. A non-streamed answer's id is read from its body;
  a stream's from its `response.created` and `response.completed` events as
  they pass (nothing is held back);
- a request that continues a streamed answer whose tool rounds were chained
  is sent on from the last round's id (the client saw the first's);
- a stored answer that called the client's tools and the proxy's at once:
  a request continuing it by its id alone is sent with the outputs of the
  proxy's calls in it before the client's own (the upstream holds those
  calls, and the client never saw them);
- a chained tool round (`ChainedRound`) that the upstream answers with a 4xx
  about `previous_response_id` (it keeps no state: llama.cpp says so) is
  sent again replayed, and the upstream and model are remembered as keeping
  no state;
- in a stream, an `error` event whose `sequence_number` does not follow the
  events already sent (the proxy's own, framed when the upstream failed
  mid-stream) is numbered after them.

`POST /v1/responses/input_tokens` is `proxy.surfaces.token_count.TokenCount`
over this route, so it counts the input exactly as this route forwards it.

What must not: know Chat Completions, or parse a stream's text.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog
from fastapi import Request, Response

from proxy.core import json_codec
from proxy.core.tools.rounds import ToolRounds
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.request_record import RequestRecord
from proxy.surfaces.responses_surface import CONVERSATION_CHAIN, REQUEST_WIRE, ResponsesSurface, conversation_id
from proxy.surfaces.responses_tool_format import input_items
from proxy.surfaces.responses_tool_loop import ChainedRound, upstream_key
from proxy.surfaces.skill_route import SkillRoute
from proxy.surfaces.sse_rounds import event_data, iter_events
from proxy.surfaces.surface import Surface
from proxy.upstream.client import UpstreamResponse

log = structlog.get_logger("proxy.responses")
RESPONSES = ResponsesSurface()
_ID_EVENTS = (b'"response.created"', b'"response.completed"')
_SEQUENCE = re.compile(rb'"sequence_number"\s*:\s*(\d+)')
_NO_STATE = ("previous_response_id", "previous response", "not found", "no response")


class ResponsesRoute(SkillRoute):
    def __init__(self, surface: Surface, *args: Any) -> None:
        own = ResponsesSurface()  # with this app's own memory of its upstreams
        super().__init__(own, *args)
        self.memory = own.memory

    async def send(self, request: Request, body: dict[str, Any]) -> UpstreamResponse:
        """A chained tool round that the upstream cannot chain goes again replayed."""
        answer = await super().send(request, body)
        if not isinstance(body, ChainedRound) or not 400 <= answer.status < 500:
            return answer
        raw = await answer.read_and_close()  # kept by the answer: read again by whoever reads it next
        text = raw[:4096].decode("utf-8", "replace").lower()
        if not any(words in text for words in _NO_STATE):
            return answer
        self.memory.saw_no_state(upstream_key(answer.base_url, body))
        log.info("responses_tool_round_replayed", status=answer.status, upstream=answer.base_url,
                 reason="the upstream keeps no responses to chain from", message=text[:200])
        return await super().send(request, body.replayed)

    def rewritten(self, body: dict[str, Any], result: Preprocessed, record: RequestRecord) -> dict[str, Any]:
        """A request continuing a streamed answer whose rounds were chained goes on from the last round."""
        forwarded = super().rewritten(body, result, record)
        if "previous_response_id" in forwarded:
            chained_on = forwarded["previous_response_id"] = self.memory.chained_on(forwarded["previous_response_id"])
            outputs = self.memory.outputs.get(chained_on) if isinstance(chained_on, str) else None
            if outputs:
                forwarded["input"] = [*outputs, *input_items(forwarded.get("input"))]
        return forwarded

    def _finisher(self, result: Preprocessed, record: RequestRecord) -> Callable[[ToolRounds], None]:
        finish = super()._finisher(result, record)

        def finish_and_keep(rounds: ToolRounds) -> None:
            finish(rounds)
            wire = REQUEST_WIRE.get()
            mixed = wire.mixed_outputs(rounds) if wire is not None else None
            if mixed is not None:
                self.memory.keep_outputs(*mixed)
        return finish_and_keep

    def answered(self, result: Preprocessed, response: Response) -> Response:
        record = result.chain_record
        if record is None or response.status_code >= 400:
            return response
        held = conversation_id(request_conversation(result))

        def keep(response_id: str) -> None:
            self.engine.record_chain(response_id, record)
            if held is not None:
                self.engine.record_chain(CONVERSATION_CHAIN + held, record)

        body_iterator = getattr(response, "body_iterator", None)
        if body_iterator is not None:
            response.body_iterator = watched_stream(body_iterator, keep)  # type: ignore[attr-defined]
        else:
            response_id = _answer_id(bytes(response.body))
            if response_id is not None:
                keep(response_id)
        return response


def request_conversation(result: Preprocessed) -> Any:
    """The `conversation` the request continued, from its chain (None when it chained on a response)."""
    chain = result.conversation.chain
    return chain[len(CONVERSATION_CHAIN):] if chain.startswith(CONVERSATION_CHAIN) else None


async def watched_stream(body: AsyncIterator[bytes], keep: Callable[[str], None]) -> AsyncIterator[bytes]:
    """The stream as it comes; the response ids it shows the client are kept, and a late error numbered."""
    seen: set[str] = set()
    last = -1
    async for chunk in body:
        numbers = [int(n) for n in _SEQUENCE.findall(chunk)]
        if b'"error"' in chunk and numbers and min(numbers) <= last:
            chunk = _renumbered_errors(chunk, last)
            numbers = [int(n) for n in _SEQUENCE.findall(chunk)]
        last = max([last, *numbers])
        if any(marker in chunk for marker in _ID_EVENTS):
            for response_id in _event_ids(chunk):
                if response_id not in seen:
                    seen.add(response_id)
                    keep(response_id)
        yield chunk


def _event_ids(chunk: bytes) -> list[str]:
    ids = []
    for event in iter_events(chunk):
        data = _json(event_data(event))
        response = data.get("response") if isinstance(data, dict) else None
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            ids.append(response["id"])
    return ids


def _renumbered_errors(chunk: bytes, last: int) -> bytes:
    out = []
    for event in iter_events(chunk):
        data = _json(event_data(event))
        if isinstance(data, dict) and data.get("type") == "error" and isinstance(data.get("sequence_number"), int) \
                and data["sequence_number"] <= last:
            last += 1
            event = b"event: error\ndata: " + json_codec.dumps({**data, "sequence_number": last}) + b"\n\n"
        out.append(event)
    return b"".join(out)


def _answer_id(raw: bytes) -> str | None:
    data = _json(raw.decode("utf-8", "replace"))
    response_id = data.get("id") if isinstance(data, dict) else None
    return response_id if isinstance(response_id, str) else None


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json_codec.loads(text)
    except ValueError:
        return None
