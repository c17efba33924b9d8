"""The tool loop's Anthropic Messages side: reading answers, and framing what the client gets.

What lives here: `AnthropicToolLoopWire`, the `ToolLoopWire` of
`/v1/messages`, one per request (its block counter runs across the rounds of
a streamed answer). A non-streamed answer is a message object whose
`tool_use` content blocks are the model's calls; the client's copy of a mixed
answer keeps only the client's `tool_use` blocks; after rounds the final body
carries the first round's `id` and `usage` summed over the rounds, and with
no round run it is the upstream's own bytes. The next round's request is
`AnthropicToolFormat`'s. A streamed answer is read by `AnthropicStreamRound`
and ends with the held `message_delta` and `message_stop`; a failure after
the stream began is an `event: error` frame.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import Response

from proxy.core.tools.rounds import ToolRounds
from proxy.errors import ProxyError, completion_object
from proxy.surfaces.anthropic_errors import ANTHROPIC_ERRORS
from proxy.surfaces.anthropic_stream_round import AnthropicOutcome, AnthropicStreamRound, Counter, closing_events
from proxy.surfaces.anthropic_tool_format import ANTHROPIC_TOOL_FORMAT, tool_name
from proxy.surfaces.final_answer import final_json_answer, with_usage
from proxy.surfaces.sse_rounds import round_events
from proxy.tool_loop import Completion
from proxy.upstream.client import UpstreamResponse


class AnthropicToolLoopWire:
    def __init__(self) -> None:
        self._counter = Counter()

    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        return ANTHROPIC_TOOL_FORMAT.next_request(base, rounds)

    def read_completion(self, answer: UpstreamResponse, raw: bytes) -> Completion:
        data = completion_object(answer.url, answer.status, answer.content_type, raw)
        content = data.get("content")
        texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                 and isinstance(b.get("text"), str)] if isinstance(content, list) else []
        return Completion(data, ANTHROPIC_TOOL_FORMAT.calls_in_content(content), "".join(texts) or None,
                          data.get("id"), data.get("usage"))

    def withdraw_calls(self, completion: Completion, names: frozenset[str]) -> None:
        content = completion.data.get("content")
        if isinstance(content, list):
            completion.data["content"] = [b for b in content if not (
                isinstance(b, dict) and b.get("type") == "tool_use" and tool_name(b) in names)]

    def final_response(self, answer: UpstreamResponse, raw: bytes, completion: Completion, response_id: Any,
                       usage: dict[str, Any] | None, rounds_run: int) -> Response:
        return final_json_answer(answer, raw, rounds_run, with_usage({**completion.data, "id": response_id}, usage))

    def stream_round(self, ours: frozenset[str], response_id: Any) -> AnthropicStreamRound:
        return AnthropicStreamRound(ours, response_id, self._counter)

    def round_bytes(self, answer: UpstreamResponse, round_: AnthropicStreamRound) -> AsyncIterator[bytes]:
        """The client-bound bytes of one streamed round, whole events at a time."""
        return round_events(answer, round_)

    def closing_frames(self, outcome: AnthropicOutcome, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        return closing_events(outcome.held, usage, one_round)

    def continuing_frames(self, outcome: AnthropicOutcome) -> list[bytes]:
        return []  # the round's message_delta and message_stop are not the end of the client's message

    def end_frame(self) -> bytes:
        return b""  # after an `error` event an Anthropic stream just ends

    def error_frame(self, error: ProxyError) -> bytes:
        return ANTHROPIC_ERRORS.stream_frame(error)
