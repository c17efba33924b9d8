"""The tool loop's Responses side: reading answers, the next round chained or replayed, the client's answer.

What lives here: `ResponsesToolLoopWire`, the `ToolLoopWire` of the
Responses API, one per request (it remembers the rounds' response ids), and
`UpstreamMemory`, what the proxy learned of its upstreams' state.

A non-streamed answer is a response object; its `function_call` output
items are the model's calls. The next round is either

- chained: `previous_response_id` is the round's response id (or, in a
  request on a `conversation`, the conversation alone, which holds the
  round) and `input` only the `function_call_output` items for the proxy's
  calls (under the upstream's call ids), when the upstream keeps state. It is known to by its
  answer alone: a response object that says `store: true` (to a request that
  did not say `store: false`). A chained round's body is a `ChainedRound`
  that carries the replayed body too: an upstream that answers it with a 4xx
  about `previous_response_id` gets the replayed one, and is remembered as
  keeping no state (`UpstreamMemory`), so later rounds are replayed at once;
- or replayed: the whole input, then the rounds as items
  (`ResponsesToolFormat`), the same items the replay record keeps.

A streamed round is read by `ResponsesStreamFrames`
(`proxy.surfaces.responses_stream_round`: the proxy's calls hidden,
sequence numbers and output indexes consistent); its outcome holds the
round's own id and response object, so it is chained or replayed the same
way. The client's stream shows the first round's id throughout (it went out
before the proxy knew a round would follow): when the rounds were chained,
`UpstreamMemory` keeps that id as an alias of the last round's, and a request
that continues it is sent on from the last round (`ResponsesRoute`).

The client's non-streamed answer after rounds is the last round's response
object (its id one the client can chain from on a stateful upstream, since
that response holds the whole exchange), `usage` summed over the rounds, and
in `output` only the client's calls; with no round run, the upstream's own
bytes.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi.responses import Response

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import ToolRounds
from proxy.errors import ProxyError, completion_object
from proxy.surfaces.final_answer import final_json_answer, with_usage
from proxy.surfaces.responses_stream_round import ResponsesRoundOutcome, ResponsesStreamFrames, ResponsesStreamRound
from proxy.surfaces.responses_tool_format import RESPONSES_TOOL_FORMAT, input_items, is_function_call, output_item
from proxy.tool_loop import Completion
from proxy.upstream.client import UpstreamResponse

UpstreamKey = tuple[str, str]  # the upstream's base URL, and the model


@dataclass
class UpstreamMemory:
    """What the proxy learned from upstreams' answers, for this process.

    `stateless`: the upstreams (and models) that refused a chained round. `aliases`: for a streamed answer
    whose rounds were chained, the id the client saw (the first round's) and the id of the last round,
    which holds the whole exchange: a request that continues the first is sent on from the last.
    `outputs`: for a stored answer that called the client's tools and the proxy's at once, the
    `function_call_output` items of the proxy's calls (under the upstream's call ids), which a request
    continuing it by its id alone is sent with, before the client's own.
    """

    stateless: set[UpstreamKey] = field(default_factory=set)
    aliases: OrderedDict[str, str] = field(default_factory=OrderedDict)
    outputs: OrderedDict[str, list[dict[str, Any]]] = field(default_factory=OrderedDict)
    max_kept: int = 10_000

    def saw_no_state(self, key: UpstreamKey) -> None:
        self.stateless.add(key)

    def alias(self, shown: str, last: str) -> None:
        _keep(self.aliases, shown, last, self.max_kept)

    def keep_outputs(self, response_id: str, outputs: list[dict[str, Any]]) -> None:
        """The proxy's results for its own calls in a stored mixed answer: the client's next turn lacks them."""
        _keep(self.outputs, response_id, outputs, self.max_kept)

    def chained_on(self, response_id: Any) -> Any:
        """The id a request continuing `response_id` is sent on from."""
        return self.aliases.get(response_id, response_id) if isinstance(response_id, str) else response_id


def _keep(kept: OrderedDict[str, Any], key: str, value: Any, limit: int) -> None:
    kept[key] = value
    while len(kept) > limit:
        kept.popitem(last=False)


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
        self._chained = False  # a round of this request went out chained
        self._calls: list[ToolCall] = []  # the last round's calls, under the upstream's ids
        self._ours: frozenset[str] = frozenset()
        self._mixed: tuple[str, list[str]] | None = None  # a stored mixed answer's id, and our calls' ids in it
        self.frames = ResponsesStreamFrames()

    # ---- non-streamed rounds, and the next round's body

    def next_request(self, base: dict[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        replayed = self._replayed(base, rounds)
        key = upstream_key(self._upstream, base)
        chained = (self._last_id is not None and self._stored and base.get("store") is not False
                   and key not in self.memory.stateless)
        if not chained:
            return replayed
        self._chained = True
        mine = [call for call in self._calls if call.name in rounds.ours]
        results = rounds.exchange[-1].results
        outputs = [output_item(result, call.id or None) for call, result in zip(mine, results, strict=False)]
        body = {**base, "input": outputs}
        if base.get("conversation") is None:  # a conversation holds the round already: it takes no response id
            body["previous_response_id"] = self._last_id
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
        self._ours = names
        self._saw_mixed(completion.response_id, completion.calls, self._stored)
        output = completion.data.get("output")
        if isinstance(output, list):
            completion.data["output"] = [item for item in output if not is_function_call(item, names)]

    def final_response(self, answer: UpstreamResponse, raw: bytes, completion: Completion, response_id: Any,
                       usage: dict[str, Any] | None, rounds_run: int) -> Response:
        """The last round's response object: its id is the one that holds the whole exchange."""
        return final_json_answer(answer, raw, rounds_run, with_usage(completion.data, usage))

    def _saw_mixed(self, response_id: Any, calls: list[ToolCall], stored: bool) -> None:
        if stored and isinstance(response_id, str):
            self._mixed = response_id, [call.id for call in calls if call.name in self._ours]

    def mixed_outputs(self, rounds: ToolRounds) -> tuple[str, list[dict[str, Any]]] | None:
        """A stored mixed answer's id and the outputs of the proxy's calls in it, under the upstream's ids."""
        if self._mixed is None or rounds.mixed is None:
            return None
        response_id, ids = self._mixed
        results = rounds.mixed.answer.results
        return response_id, [output_item(result, call_id) for call_id, result in zip(ids, results, strict=False)]

    # ---- streamed rounds: `ResponsesStreamFrames` frames them; the outcome says how the next round goes

    def stream_round(self, ours: frozenset[str], response_id: Any) -> ResponsesStreamRound:
        self._ours = ours
        return self.frames.stream_round(ours, response_id)

    def round_bytes(self, answer: UpstreamResponse, round_: ResponsesStreamRound) -> AsyncIterator[bytes]:
        self._upstream = answer.base_url
        return self.frames.round_bytes(answer, round_)

    def closing_frames(self, outcome: ResponsesRoundOutcome, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        shown = self.frames.response_id
        stored = (outcome.response or {}).get("store") is True
        if any(call.name in self._ours for call in outcome.calls):
            self._saw_mixed(outcome.response_id, outcome.calls, stored)
        if self._chained and isinstance(shown, str) and outcome.response_id and outcome.response_id != shown:
            self.memory.alias(shown, outcome.response_id)  # the client chains from the id it saw
        return self.frames.closing_frames(outcome, usage, response_id, one_round)

    def continuing_frames(self, outcome: ResponsesRoundOutcome) -> list[bytes]:
        response = outcome.response or {}
        self._last_id, self._calls = outcome.response_id, list(outcome.calls)
        self._stored = response.get("store") is True
        return self.frames.continuing_frames(outcome)

    def end_frame(self) -> bytes:
        return self.frames.end_frame()

    def error_frame(self, error: ProxyError) -> bytes:
        return self.frames.error_frame(error)


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
