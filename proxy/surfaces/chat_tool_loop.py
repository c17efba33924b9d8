"""The tool loop's Chat Completions side: reading answers, and framing what the client gets.

What lives here: `ChatToolLoopWire`, the `ToolLoopWire` of Chat Completions.
A non-streamed answer is a JSON object whose `choices[0].message.tool_calls`
are the model's calls; the client's copy of a mixed answer keeps only the
client's calls; after rounds the final body carries the first round's `id`
and `usage` summed over the rounds, and with no round it is the upstream's
own bytes. The next round's request is `ChatToolFormat`'s: the exchange
written as Chat messages. A streamed answer is read as SSE events by
`StreamRound` (deltas reassembled, the proxy's calls held back), and ends
with the held chunks and one `[DONE]`.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import Response

from proxy.core.sse import DONE_FRAME
from proxy.core.tools.rounds import ToolRounds
from proxy.errors import ProxyError, completion_object, sse_error_frame
from proxy.surfaces.chat_stream_round import RoundOutcome, StreamRound, closing_chunks, continuing_chunks
from proxy.surfaces.chat_tool_format import CHAT_TOOL_FORMAT, function_name
from proxy.surfaces.final_answer import final_json_answer, with_usage
from proxy.surfaces.sse_rounds import round_events
from proxy.tool_loop import Completion
from proxy.upstream.client import UpstreamResponse


class ChatToolLoopWire:
    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        return CHAT_TOOL_FORMAT.next_request(base, rounds)

    def read_completion(self, answer: UpstreamResponse, raw: bytes) -> Completion:
        data = completion_object(answer.url, answer.status, answer.content_type, raw)
        message = _first_message(data)
        calls = CHAT_TOOL_FORMAT.calls_in_message(message)
        return Completion(data, calls, message.get("content"), data.get("id"), data.get("usage"))

    def withdraw_calls(self, completion: Completion, names: frozenset[str]) -> None:
        """The answer the client gets keeps only calls not named in `names`."""
        message = _first_message(completion.data)
        message["tool_calls"] = [p for p in message["tool_calls"] if function_name(p) not in names]

    def final_response(self, answer: UpstreamResponse, raw: bytes, completion: Completion, response_id: Any,
                       usage: dict[str, Any] | None, rounds_run: int) -> Response:
        return final_json_answer(answer, raw, rounds_run, with_usage({**completion.data, "id": response_id}, usage))

    def stream_round(self, ours: frozenset[str], response_id: Any) -> StreamRound:
        return StreamRound(ours, response_id)

    def round_bytes(self, answer: UpstreamResponse, round_: StreamRound) -> AsyncIterator[bytes]:
        """The client-bound bytes of one streamed round, whole events at a time."""
        return round_events(answer, round_)

    def closing_frames(self, outcome: RoundOutcome, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        return closing_chunks(outcome.held, usage, response_id, one_round)

    def continuing_frames(self, outcome: RoundOutcome) -> list[bytes]:
        return continuing_chunks(outcome.held)

    def end_frame(self) -> bytes:
        return DONE_FRAME

    def error_frame(self, error: ProxyError) -> bytes:
        return sse_error_frame(error)


CHAT_TOOL_LOOP = ChatToolLoopWire()


def _first_message(data: dict[str, Any]) -> dict[str, Any]:
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return message
    return {}
