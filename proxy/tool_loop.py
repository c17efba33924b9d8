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

The rounds are kept as neutral values (`ToolRounds`); the wire format's side
(the next request with the exchange written in, reading an answer's calls,
the client's copy of a mixed answer, the final body, the stream's events and
frames) is behind `ToolLoopWire`; `proxy.surfaces.chat_tool_loop` is the Chat
Completions one. The surface writes the rounds in its wire form when it
records them for replay (`on_finish`).

What must not: parse or frame a wire format, build requests from the
client's headers (`send` does), or decide which skills are routed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import structlog
from fastapi.responses import JSONResponse, Response

from proxy.core.tools.calls import ToolCall, add_usage, split_calls
from proxy.core.tools.rounds import ToolRounds
from proxy.errors import (
    OPENAI_ERRORS,
    ErrorCode,
    ErrorShape,
    ProxyError,
    UpstreamError,
    empty_stream_error,
    normalise_error,
)
from proxy.upstream.client import UpstreamResponse

log = structlog.get_logger("proxy.tool_loop")

T = TypeVar("T")
RoundSender = Callable[[dict[str, Any]], Coroutine[Any, Any, UpstreamResponse]]


class Guard(Protocol):
    """Runs a request's work, or stops it when the client goes away (`DisconnectWatch.guard`)."""

    async def __call__(self, work: Coroutine[Any, Any, T]) -> T: ...


@dataclass
class Completion:
    """A non-streamed answer as the loop reads it; `data` is the wire's parsed body."""

    data: Any
    calls: list[ToolCall]
    content: str | None
    response_id: Any
    usage: dict[str, Any] | None


class StreamRoundReader(Protocol):
    """One streamed round being read: the response id seen so far, and at the end what the model did."""

    response_id: Any

    def outcome(self) -> Any:
        """Has `content`, `calls`, `usage`, `saw_error`, `events` (how many) and `skipped`."""
        ...


class ToolLoopWire(Protocol):
    """A wire format's side of the tool loop: reading answers and framing what the client gets."""

    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        """The next round's body: `base` with the exchange so far, the proxy's tools withdrawn once capped."""
        ...

    def read_completion(self, answer: UpstreamResponse, raw: bytes) -> Completion:
        """A non-streamed answer; a ProxyError when it is not one."""
        ...

    def withdraw_calls(self, completion: Completion, names: frozenset[str]) -> None:
        """The client's copy of the answer: the calls named taken out."""
        ...

    def final_response(self, answer: UpstreamResponse, raw: bytes, completion: Completion, response_id: Any,
                       usage: dict[str, Any] | None, rounds_run: int) -> Response:
        """The one answer the client gets; with no round run, the upstream's own bytes."""
        ...

    def stream_round(self, ours: frozenset[str], response_id: Any) -> StreamRoundReader:
        ...

    def round_bytes(self, answer: UpstreamResponse, round_: Any) -> AsyncIterator[bytes]:
        """The client-bound bytes of one streamed round as they come; the proxy's calls held back."""
        ...

    def closing_frames(self, outcome: Any, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        """What ends the client's stream, the end frame included."""
        ...

    def continuing_frames(self, outcome: Any) -> list[bytes]:
        """What a round that goes on still owes the client."""
        ...

    def end_frame(self) -> bytes:
        ...

    def error_frame(self, error: ProxyError) -> bytes:
        """A failure after the stream began, as the client's stream can carry it."""
        ...


@dataclass
class ToolLoop:
    rounds: ToolRounds
    base: dict[str, Any]
    send: RoundSender
    upstream_url: str
    on_finish: Callable[[ToolRounds], None]
    wire: ToolLoopWire
    errors: ErrorShape = OPENAI_ERRORS  # how the surface's clients read a later round's error answer

    async def complete(self, answer: UpstreamResponse, guard: Guard) -> Response:
        """A non-streamed answer, after as many rounds as the model needs."""
        response_id, usage = None, None
        try:
            while True:
                raw = await answer.read_and_close(guard)
                if answer.status >= 400:
                    return JSONResponse(self.errors.upstream_answer(answer.status, raw, self.upstream_url),
                                        answer.status)
                completion = self.wire.read_completion(answer, raw)
                response_id, usage = response_id or completion.response_id, add_usage(usage, completion.usage)
                if not self._continue_after(completion):
                    return self.wire.final_response(answer, raw, completion, response_id, usage, self.rounds.rounds)
                answer = await guard(self.send(self.wire.next_request(self.base, self.rounds)))
        finally:
            await answer.aclose()
            self.on_finish(self.rounds)

    def _continue_after(self, completion: Completion) -> bool:
        """Run the proxy's calls in a non-streamed answer; True when another round is needed."""
        mine, theirs = split_calls(completion.calls, self.rounds.ours)
        if not mine:
            return False
        if self.rounds.capped:
            raise _rounds_exceeded(self.rounds)
        if theirs:
            _log_events(self.rounds.run_mixed(completion.content, mine, theirs))
            self.wire.withdraw_calls(completion, self.rounds.ours)
            return False
        _log_events(self.rounds.run(completion.content, mine))
        return True

    async def stream(self, answer: UpstreamResponse) -> AsyncIterator[bytes]:
        """A streamed answer: content as it comes in every round, one id, one end frame."""
        response_id, usage = None, None
        try:
            while True:
                round_ = self.wire.stream_round(self.rounds.ours, response_id)
                async for out in self.wire.round_bytes(answer, round_):
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
                    yield self.wire.end_frame()
                    return
                mine, theirs = split_calls(outcome.calls, self.rounds.ours)
                if not mine or theirs:
                    if mine:
                        _log_events(self.rounds.run_mixed(outcome.content, mine, theirs))
                    for out in self.wire.closing_frames(outcome, usage, response_id, self.rounds.rounds == 0):
                        yield out
                    return
                if self.rounds.capped:
                    raise _rounds_exceeded(self.rounds)
                for out in self.wire.continuing_frames(outcome):
                    yield out
                _log_events(self.rounds.run(outcome.content, mine))
                answer = await self.send(self.wire.next_request(self.base, self.rounds))
                await _check_round(answer, self.upstream_url)
        except ProxyError as error:
            log.warning("stream_error_framed", code=error.code, round=self.rounds.rounds)
            yield self.wire.error_frame(error)
        finally:
            await answer.aclose()
            self.on_finish(self.rounds)


async def _check_round(answer: UpstreamResponse, upstream_url: str) -> None:
    """A later round must stream too; an error answer becomes a framed error."""
    if answer.status >= 400:
        raw = await answer.read_and_close()
        body = normalise_error(answer.status, raw, upstream_url)["error"]
        raise UpstreamError(f"upstream answered HTTP {answer.status} to a skill tool round: {body['message']}",
                            code=str(body.get("code") or ErrorCode.UPSTREAM_ERROR))
    if not (answer.is_event_stream or answer.is_ndjson):  # SSE, or Ollama's NDJSON
        await answer.aclose()
        raise UpstreamError(f"upstream answered a skill tool round with {answer.content_type or 'no content type'}, "
                            "not a stream", code=ErrorCode.UPSTREAM_BAD_STREAM)


def _rounds_exceeded(rounds: ToolRounds) -> UpstreamError:
    return UpstreamError(f"the model kept calling skill tools after {rounds.rounds} rounds "
                         f"({rounds.calls} calls) and was stopped; raise `max_tool_rounds` if it needs more, "
                         "or ask again more specifically", code=ErrorCode.TOOL_ROUNDS_EXCEEDED)


def _log_events(events: list[dict[str, Any]]) -> None:
    for event in events:
        log.debug(str(event["event"]), **{k: v for k, v in event.items() if k != "event"})
