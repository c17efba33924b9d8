"""The tool loop: the proxy runs the model's calls to its skill tools and asks again.

What lives here: `ToolLoop` (one request's loop) with `complete` for a
non-streamed answer and `stream` for a streamed one. Each round's answer is
read; when the model called only the proxy's tools, they run (see
`ToolRounds`) and the upstream is asked again with the exchange appended, up
to `max_tool_rounds`, after which the proxy's tools are withdrawn so the model
has to answer. The client gets one answer: one `id`, `usage` summed over the
rounds, content streamed as it comes, the proxy's tool calls never shown, and
one `[DONE]` at the end even when the upstream sent none. Events no client
could read are skipped and logged (`stream_events_skipped`); a failure after
the stream began is a framed error, then `[DONE]`.

An answer that calls client tools too goes to the client with only the
client's calls (the client can run those; it cannot run ours); the proxy runs
its own calls anyway and keeps the whole answer and the results, and the
replay restores them when the client's copy of that answer comes back.

What must not: build requests from the client's headers (`send` does), or
decide which skills are routed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import structlog
from fastapi.responses import JSONResponse, Response

from proxy.core.sse import DONE_FRAME
from proxy.core.tools.stream_round import StreamRound, closing_chunks, continuing_chunks, iter_events
from proxy.core.tools.calls import add_usage, calls_in_message, function_name, split_calls
from proxy.core.tools.rounds import ToolRounds
from proxy.errors import (ErrorCode, ProxyError, UpstreamError, completion_object, empty_stream_error,
                          normalise_error, sse_error_frame)
from proxy.relay.streaming import EventBuffer
from proxy.upstream.client import UpstreamResponse

log = structlog.get_logger("proxy.tool_loop")

T = TypeVar("T")
Guard = Callable[[Coroutine[Any, Any, T]], Awaitable[T]]
RoundSender = Callable[[dict[str, Any]], Awaitable[UpstreamResponse]]


@dataclass
class ToolLoop:
    rounds: ToolRounds
    base: dict[str, Any]
    send: RoundSender
    upstream_url: str
    on_finish: Callable[[ToolRounds], None]

    async def complete(self, answer: UpstreamResponse, guard: Guard) -> Response:
        """A non-streamed answer, after as many rounds as the model needs."""
        response_id, usage = None, None
        try:
            while True:
                raw = await answer.read_and_close(guard)
                if answer.status >= 400:
                    return JSONResponse(normalise_error(answer.status, raw, self.upstream_url), answer.status)
                data = completion_object(answer.url, answer.status, answer.content_type, raw)
                response_id, usage = response_id or data.get("id"), add_usage(usage, data.get("usage"))
                if not self._continue_after(data):
                    return _final_response(answer, raw, data, response_id, usage, self.rounds)
                answer = await guard(self.send(self.rounds.request(self.base)))
        finally:
            await answer.aclose()
            self.on_finish(self.rounds)

    def _continue_after(self, data: dict[str, Any]) -> bool:
        """Run the proxy's calls in a non-streamed answer; True when another round is needed."""
        message = _first_message(data)
        mine, theirs = split_calls(calls_in_message(message), self.rounds.ours)
        if not mine:
            return False
        if self.rounds.capped:
            raise _rounds_exceeded(self.rounds)
        if theirs:
            _log_events(self.rounds.run_mixed(message.get("content"), mine, theirs))
            message["tool_calls"] = [p for p in message["tool_calls"] if function_name(p) not in self.rounds.ours]
            return False
        _log_events(self.rounds.run(message.get("content"), mine))
        return True

    async def stream(self, answer: UpstreamResponse) -> AsyncIterator[bytes]:
        """A streamed answer: content as it comes in every round, one id, one [DONE]."""
        response_id, usage = None, None
        try:
            while True:
                round_ = StreamRound(self.rounds.ours, response_id)
                async for out in _round_events(answer, round_):
                    yield out
                await answer.aclose()
                outcome = round_.outcome()
                if outcome.skipped:
                    log.warning("stream_events_skipped", count=outcome.skipped, round=self.rounds.rounds,
                                reason="not a JSON object, or no data")
                response_id, usage = round_.response_id, add_usage(usage, outcome.usage)
                if not outcome.events:
                    raise empty_stream_error(answer.url)
                if outcome.saw_error:
                    yield DONE_FRAME
                    return
                mine, theirs = split_calls(outcome.calls, self.rounds.ours)
                if not mine or theirs:
                    if mine:
                        _log_events(self.rounds.run_mixed(outcome.content, mine, theirs))
                    for out in closing_chunks(outcome.held, usage, response_id, self.rounds.rounds == 0):
                        yield out
                    return
                if self.rounds.capped:
                    raise _rounds_exceeded(self.rounds)
                for out in continuing_chunks(outcome.held):
                    yield out
                _log_events(self.rounds.run(outcome.content, mine))
                answer = await self.send(self.rounds.request(self.base))
                await _check_round(answer, self.upstream_url)
        except ProxyError as error:
            log.warning("stream_error_framed", code=error.code, round=self.rounds.rounds)
            yield sse_error_frame(error)
        finally:
            await answer.aclose()
            self.on_finish(self.rounds)


async def _round_events(answer: UpstreamResponse, round_: StreamRound) -> AsyncIterator[bytes]:
    """The client-bound bytes of one streamed round, whole events at a time."""
    buffer = EventBuffer()
    async for chunk in answer.iter_bytes():
        for event in iter_events(buffer.feed(chunk)):
            out = round_.feed(event)
            if out:
                yield out
    if buffer.rest.strip():  # a last event the upstream did not end with a blank line
        out = round_.feed(buffer.rest.rstrip(b"\r\n") + b"\n\n")
        if out:
            yield out


async def _check_round(answer: UpstreamResponse, upstream_url: str) -> None:
    """A later round must stream too; an error answer becomes a framed error."""
    if answer.status >= 400:
        raw = await answer.read_and_close()
        body = normalise_error(answer.status, raw, upstream_url)["error"]
        raise UpstreamError(f"upstream answered HTTP {answer.status} to a skill tool round: {body['message']}",
                            code=str(body.get("code") or ErrorCode.UPSTREAM_ERROR))
    if not answer.is_event_stream:
        await answer.aclose()
        raise UpstreamError(f"upstream answered a skill tool round with {answer.content_type or 'no content type'}, "
                            "not an event stream", code=ErrorCode.UPSTREAM_BAD_STREAM)


def _first_message(data: dict[str, Any]) -> dict[str, Any]:
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return message
    return {}


def _final_response(answer: UpstreamResponse, raw: bytes, data: dict[str, Any], response_id: Any,
                    usage: dict[str, Any] | None, rounds: ToolRounds) -> Response:
    headers = {k: v for k, v in answer.headers if k.lower() not in ("content-type", "content-length")}
    if rounds.rounds == 0:  # the model did not use the proxy's tools: the upstream's own bytes
        return Response(raw, answer.status, headers=headers, media_type=answer.content_type or "application/json")
    data = {**data, "id": response_id}
    if usage is not None:
        data["usage"] = usage
    return JSONResponse(data, answer.status, headers=headers)


def _rounds_exceeded(rounds: ToolRounds) -> UpstreamError:
    return UpstreamError(f"the model kept calling skill tools after {rounds.rounds} rounds "
                         f"({rounds.calls} calls) and was stopped; raise `max_tool_rounds` if it needs more, "
                         "or ask again more specifically", code=ErrorCode.TOOL_ROUNDS_EXCEEDED)


def _log_events(events: list[dict[str, Any]]) -> None:
    for event in events:
        log.info(str(event["event"]), **{k: v for k, v in event.items() if k != "event"})
