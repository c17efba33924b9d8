"""The tool loop's Ollama `/api/chat` side: reading answers, and framing what the client gets.

What lives here: `OllamaToolLoopWire`, the `ToolLoopWire` of Ollama's native
chat. A non-streamed answer is one JSON object whose `message.tool_calls`
are the model's calls; the client's copy of a mixed answer keeps only the
client's calls; after rounds the final object carries `prompt_eval_count`,
`eval_count` and the durations summed over the rounds, and with no round it
is the upstream's own bytes. A streamed answer is NDJSON, read line by line by
`OllamaStreamRound` (the proxy's calls held back, the `done` line held until
the loop knows whether the answer ends); a round that goes on sends nothing
more, the last one its `done` line with the counts summed. NDJSON has no end
marker beyond that line, and a failure after the stream began is one
`{"error": "..."}` line.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import Response

from proxy.core.tools.rounds import ToolRounds
from proxy.errors import ProxyError, completion_object
from proxy.relay.ndjson import LineBuffer, iter_lines
from proxy.surfaces.final_answer import final_json_answer
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS
from proxy.surfaces.ollama_stream_round import NdjsonOutcome, OllamaStreamRound, closing_lines, counts_of, with_counts
from proxy.surfaces.ollama_tool_format import OLLAMA_TOOL_FORMAT
from proxy.tool_loop import Completion
from proxy.upstream.client import UpstreamResponse


class OllamaToolLoopWire:
    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        return OLLAMA_TOOL_FORMAT.next_request(base, rounds)

    def read_completion(self, answer: UpstreamResponse, raw: bytes) -> Completion:
        data = completion_object(answer.url, answer.status, answer.content_type, raw)
        message = _message(data)
        content = message.get("content")
        return Completion(data, OLLAMA_TOOL_FORMAT.calls_in_message(message),
                          content if isinstance(content, str) else None, None, counts_of(data))

    def withdraw_calls(self, completion: Completion, names: frozenset[str]) -> None:
        """The answer the client gets keeps only calls not named in `names`."""
        message = _message(completion.data)
        message["tool_calls"] = [call for call in message.get("tool_calls") or []
                                 if not (isinstance(call, dict) and isinstance(call.get("function"), dict)
                                         and call["function"].get("name") in names)]

    def final_response(self, answer: UpstreamResponse, raw: bytes, completion: Completion, response_id: Any,
                       usage: dict[str, Any] | None, rounds_run: int) -> Response:
        return final_json_answer(answer, raw, rounds_run, with_counts(completion.data, usage))

    def stream_round(self, ours: frozenset[str], response_id: Any) -> OllamaStreamRound:
        return OllamaStreamRound(ours)

    async def round_bytes(self, answer: UpstreamResponse, round_: OllamaStreamRound) -> AsyncIterator[bytes]:
        """The client-bound bytes of one streamed round, whole lines at a time."""
        lines = LineBuffer()
        async for chunk in answer.iter_bytes():
            for line in iter_lines(lines.feed(chunk)):
                out = round_.feed(line)
                if out:
                    yield out
        if lines.rest.strip():  # a last line the upstream did not end with a newline
            out = round_.feed(lines.rest)
            if out:
                yield out

    def closing_frames(self, outcome: NdjsonOutcome, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        return closing_lines(outcome, usage, one_round)

    def continuing_frames(self, outcome: NdjsonOutcome) -> list[bytes]:
        return []  # the round's done line is not the answer's end: it is never sent

    def end_frame(self) -> bytes:
        return b""  # NDJSON has no end marker: the done line (or an error line) was the last

    def error_frame(self, error: ProxyError) -> bytes:
        return OLLAMA_ERRORS.stream_frame(error)


def _message(data: dict[str, Any]) -> dict[str, Any]:
    message = data.get("message")
    return message if isinstance(message, dict) else {}
