"""The tool loop's Responses side: reading answers, the next round chained or replayed, the client's answer.

What lives here: `ResponsesToolLoopWire`, the `ToolLoopWire` of the
Responses API, one per request (it remembers the rounds' response ids), and
`UpstreamMemory`, which upstreams (by URL and model) keep state.

A non-streamed answer is a response object; its `function_call` output
items are the model's calls. The next round is either

- chained: `previous_response_id` is the round's response id and `input`
  only the `function_call_output` items for the proxy's calls (under the
  upstream's call ids), when the upstream keeps state. It is known to by its
  answer alone: a response object that says `store: true` (to a request that
  did not say `store: false`). A chained round's body is a `ChainedRound`
  that carries the replayed body too: an upstream that answers it with a 4xx
  about `previous_response_id` gets the replayed one, and is remembered as
  keeping no state (`UpstreamMemory`), so later rounds are replayed at once;
- or replayed: the whole input, then the rounds as items
  (`ResponsesToolFormat`), the same items the replay record keeps.

A streamed round is chained only when the upstream is already known to keep
state; otherwise replayed (which works on every upstream).

The client's answer after rounds is the last round's response object (its
id one the client can chain from on a stateful upstream, since that
response holds the whole exchange), `usage` summed over the rounds, and in
`output` only the client's calls; with no round run, the upstream's own
bytes. The streamed side (reading SSE events, hiding the proxy's calls,
keeping sequence numbers and output indexes consistent) is
`ResponsesStreamFrames` in `proxy.surfaces.responses_stream_round`.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi.responses import JSONResponse, Response

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import ToolRounds
from proxy.errors import ProxyError, completion_object
from proxy.surfaces.responses_tool_format import RESPONSES_TOOL_FORMAT, input_items, is_function_call, output_item
from proxy.tool_loop import Completion, StreamRoundReader
from proxy.upstream.client import UpstreamResponse

UpstreamKey = tuple[str, str]  # the upstream's base URL, and the model


@dataclass
class UpstreamMemory:
    """What the proxy learned from upstreams' answers: which keep responses by id, which do not."""

    stateful: set[UpstreamKey] = field(default_factory=set)
    stateless: set[UpstreamKey] = field(default_factory=set)

    def keeps_state(self, key: UpstreamKey) -> bool:
        return key in self.stateful and key not in self.stateless

    def saw_store(self, key: UpstreamKey) -> None:
        if key not in self.stateless:
            self.stateful.add(key)

    def saw_no_state(self, key: UpstreamKey) -> None:
        self.stateless.add(key)
        self.stateful.discard(key)


class ChainedRound(dict[str, Any]):
    """A chained round's body; `replayed` is the same round replayed, for an upstream that has no state."""

    def __init__(self, body: Mapping[str, Any], replayed: dict[str, Any]) -> None:
        super().__init__(body)
        self.replayed = replayed


def upstream_key(base_url: str, body: Mapping[str, Any]) -> UpstreamKey:
    return base_url, str(body.get("model"))


class ResponsesToolLoopWire:
    def __init__(self, memory: UpstreamMemory) -> None:
        self.memory = memory
        self._upstream = ""  # the base URL that answered the last round
        self._last_id: str | None = None  # the last round's response id
        self._stored = False  # the last round's response said `store: true`
        self._streamed = False  # the last round was a stream (which does not say whether it was stored)
        self._calls: list[ToolCall] = []  # the last round's calls, under the upstream's ids
        self._frames: Any = None

    # ---- non-streamed rounds, and the next round's body

    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        replayed = self._replayed(base, rounds)
        key = upstream_key(self._upstream, base)
        if self._stored:
            self.memory.saw_store(key)
        said = self._stored if not self._streamed else self.memory.keeps_state(key)
        chained = (self._last_id is not None and base.get("store") is not False and key not in self.memory.stateless
                   and said)
        if not chained:
            return replayed
        mine = [call for call in self._calls if call.name in rounds.ours]
        results = rounds.exchange[-1].results
        outputs = [output_item(result, call.id or None) for call, result in zip(mine, results, strict=False)]
        body = {**base, "previous_response_id": self._last_id, "input": outputs}
        return ChainedRound(_capped(body, rounds), replayed)

    def _replayed(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        body = {**base, "input": [*input_items(base.get("input")),
                                  *RESPONSES_TOOL_FORMAT.exchange_items(rounds.exchange)]}
        return _capped(body, rounds)

    def read_completion(self, answer: UpstreamResponse, raw: bytes) -> Completion:
        data = completion_object(answer.url, answer.status, answer.content_type, raw)
        calls = RESPONSES_TOOL_FORMAT.calls_in_output(data.get("output"))
        response_id = data.get("id") if isinstance(data.get("id"), str) else None
        self._stored = data.get("store") is True
        self._upstream, self._calls, self._last_id = answer.base_url, calls, response_id
        return Completion(data, calls, output_text(data.get("output")), response_id, _usage(data))

    def withdraw_calls(self, completion: Completion, names: frozenset[str]) -> None:
        """The answer the client gets keeps only the calls not named in `names`."""
        output = completion.data.get("output")
        if isinstance(output, list):
            completion.data["output"] = [item for item in output if not is_function_call(item, names)]

    def final_response(self, answer: UpstreamResponse, raw: bytes, completion: Completion, response_id: Any,
                       usage: dict[str, Any] | None, rounds_run: int) -> Response:
        """The last round's response object: its id is the one that holds the whole exchange."""
        headers = {k: v for k, v in answer.headers if k.lower() not in ("content-type", "content-length")}
        if rounds_run == 0:
            return Response(raw, answer.status, headers=headers, media_type=answer.content_type or "application/json")
        data = dict(completion.data)
        if usage is not None:
            data["usage"] = usage
        return JSONResponse(data, answer.status, headers=headers)

    # ---- streamed rounds: `ResponsesStreamFrames` frames them; the outcome says how the next round goes

    @property
    def frames(self) -> Any:
        if self._frames is None:
            from proxy.surfaces.responses_stream_round import ResponsesStreamFrames
            self._frames = ResponsesStreamFrames()
        return self._frames

    def stream_round(self, ours: frozenset[str], response_id: Any) -> StreamRoundReader:
        reader: StreamRoundReader = self.frames.stream_round(ours, response_id)
        return reader

    def round_bytes(self, answer: UpstreamResponse, round_: Any) -> AsyncIterator[bytes]:
        self._upstream = answer.base_url
        stream: AsyncIterator[bytes] = self.frames.round_bytes(answer, round_)
        return stream

    def closing_frames(self, outcome: Any, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        frames: list[bytes] = self.frames.closing_frames(outcome, usage, response_id, one_round)
        return frames

    def continuing_frames(self, outcome: Any) -> list[bytes]:
        response_id = getattr(outcome, "response_id", None)
        self._last_id = response_id if isinstance(response_id, str) else None
        self._calls, self._stored, self._streamed = list(getattr(outcome, "calls", [])), False, True
        frames: list[bytes] = self.frames.continuing_frames(outcome)
        return frames

    def end_frame(self) -> bytes:
        frame: bytes = self.frames.end_frame()
        return frame

    def error_frame(self, error: ProxyError) -> bytes:
        frame: bytes = self.frames.error_frame(error)
        return frame


def output_text(output: Any) -> str:
    """The text of a response's assistant messages, joined."""
    texts: list[str] = []
    for item in output if isinstance(output, list) else []:
        if isinstance(item, Mapping) and item.get("type") == "message" and isinstance(item.get("content"), list):
            texts.extend(part["text"] for part in item["content"]
                         if isinstance(part, Mapping) and isinstance(part.get("text"), str))
    return "".join(texts)


def _capped(body: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
    return RESPONSES_TOOL_FORMAT.remove_tools(body, rounds.ours) if rounds.capped else body


def _usage(data: Mapping[str, Any]) -> dict[str, Any] | None:
    usage = data.get("usage")
    return dict(usage) if isinstance(usage, Mapping) else None
