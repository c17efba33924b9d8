"""The streamed side of the Responses tool loop: one response's semantic events across the proxy's rounds.

What lives here: `ResponsesStreamFrames`, one per streamed request, which
holds what spans the rounds (the client's sequence numbers and output
indexes, the response id the client sees, the visible output of finished
rounds) and gives the `ToolLoopWire` stream methods; `ResponsesStreamRound`,
which reads one round's SSE events one at a time and returns the bytes the
client gets now; `ResponsesRoundOutcome`, what the round did.

The client sees one response however many rounds the proxy runs:
- events go out as they arrive, as the upstream's own bytes when nothing in
  them had to change;
- `response.created`, `response.in_progress` (and `response.queued`) go out
  from the first round only;
- the proxy's own function calls (a `function_call` item whose name is one
  of the proxy's tools, known from `response.output_item.added`) are never
  sent: not the item, not its argument deltas, not its `done` events;
- `output_index` is renumbered so the client's items run 0, 1, 2… over all
  rounds, and `sequence_number` so the client's events run 0, 1, 2… over
  all rounds, error frames included (an event without one keeps none, but
  counts); `item_id`s pass as they are;
- every response object and `response_id` carries the first round's id,
  the one `response.created` showed: it is the only id that can be the same
  in every event, since `response.created` goes out before the proxy knows
  whether a round follows. Each round's own upstream id is in its outcome
  (`response_id`) and in `ResponsesStreamFrames.upstream_ids`: the last one
  is what a stateful upstream chains from, so the surface keeps it under the
  id the client saw;
- `response.completed` and `response.incomplete` are held to the end of the
  round: the loop drops them when a round follows, and the last round's goes
  out with `output` = the visible items of every round and `usage` summed;
  `response.failed` (and an `error` event) ends the answer as it comes,
  rewritten the same way; a `data: [DONE]` some servers add is held to the
  very end;
- comments and keep-alives pass; an event no client could read (no data,
  or data that is not a JSON object) is skipped and counted.

Of a round the loop learns the text, the function calls (`call_id` as the
call's id) of a round that completed, the usage, and the round's complete
output and response; `ResponsesStreamFrames.outcomes` keeps every finished
round's, so the next request can replay that output (an upstream without
state) or chain from that round's own id (a stateful one).

What must not: know about HTTP beyond reading an answer's bytes, run tools,
or decide whether the loop goes on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from proxy.core import json_codec
from proxy.core.tools.calls import ToolCall, add_usage
from proxy.errors import ProxyError
from proxy.surfaces.sse_rounds import EventTally, round_events
from proxy.upstream.client import UpstreamResponse

OPENING_EVENTS = frozenset({"response.created", "response.in_progress", "response.queued"})
HELD_ENDINGS = frozenset({"response.completed", "response.incomplete"})
FAILED = "response.failed"


@dataclass
class ResponsesRoundOutcome:
    """What one streamed round did; `held` is its ending (event, raw bytes) the client has not seen yet."""

    content: str
    calls: list[ToolCall]
    usage: dict[str, Any] | None
    saw_error: bool
    events: int
    skipped: int
    response_id: str | None
    output: list[Any]
    response: dict[str, Any] | None
    held: tuple[dict[str, Any], bytes] | None = None
    saw_done: bool = False
    visible_output: list[Any] = field(default_factory=list)


@dataclass
class _Item:
    """One output item of the round, as its events describe it."""

    upstream_index: Any
    item: dict[str, Any]
    hidden: bool
    arguments: str = ""
    done: dict[str, Any] | None = None


class ResponsesStreamFrames:
    """One streamed Responses request's side of the tool loop (the `ToolLoopWire` stream methods)."""

    def __init__(self) -> None:
        self.response_id: str | None = None  # the id the client sees: the first round's
        self.upstream_ids: list[str] = []  # each round's own id, in order
        self.rounds = 0
        self.next_sequence = 0
        self.next_output_index = 0
        self.shown_output: list[Any] = []  # visible items of rounds that went on
        self.usage_before: dict[str, Any] | None = None  # summed over rounds that went on
        # every finished round's outcome, in order (the last one once the stream closed): what the next
        # round's request replays (`output`) or chains from (`response_id`), and what the surface records
        self.outcomes: list[ResponsesRoundOutcome] = []

    def stream_round(self, ours: frozenset[str], response_id: Any) -> ResponsesStreamRound:
        self.rounds += 1
        if self.response_id is None and isinstance(response_id, str):
            self.response_id = response_id
        return ResponsesStreamRound(ours, self)

    def round_bytes(self, answer: UpstreamResponse, round_: ResponsesStreamRound) -> AsyncIterator[bytes]:
        """The client-bound bytes of one streamed round, whole events at a time."""
        return round_events(answer, round_)

    def closing_frames(self, outcome: ResponsesRoundOutcome, usage: dict[str, Any] | None, response_id: Any,
                       one_round: bool) -> list[bytes]:
        """The last round's held ending with every round's visible output and the summed usage."""
        self.outcomes.append(outcome)
        frames = []
        if outcome.held is not None:
            event, raw = outcome.held
            frames.append(ending_bytes(self, event, raw, outcome.visible_output, usage))
        if outcome.saw_done:
            frames.append(b"data: [DONE]\n\n")
        return frames

    def continuing_frames(self, outcome: ResponsesRoundOutcome) -> list[bytes]:
        """A round that goes on owes the client nothing: its ending is dropped, its visible items kept."""
        self.outcomes.append(outcome)
        self.shown_output.extend(outcome.visible_output)
        self.usage_before = add_usage(self.usage_before, outcome.usage)
        return []

    def end_frame(self) -> bytes:
        return b""  # a Responses stream ends with its terminal event, not `[DONE]`

    def error_frame(self, error: ProxyError) -> bytes:
        data = {"type": "error", "code": error.code, "message": error.message, "param": None,
                "sequence_number": take_sequence(self)}
        return b"event: error\ndata: " + json_codec.dumps(data) + b"\n\n"


class ResponsesStreamRound:
    """One streamed round being read: `feed` each whole event, `outcome` at the end."""

    def __init__(self, ours: frozenset[str], frames: ResponsesStreamFrames) -> None:
        self.ours = ours
        self.frames = frames
        self.first = frames.rounds == 1
        self.response_id = frames.response_id  # the id the client sees: the first round's
        self.own_id: str | None = None
        self._items: list[_Item] = []
        self._by_id: dict[str, _Item] = {}
        self._by_index: dict[Any, _Item] = {}
        self._client_index: dict[Any, int] = {}  # upstream output_index -> the client's
        self._text: list[str] = []
        self._ending: tuple[dict[str, Any], bytes] | None = None
        self._failed: dict[str, Any] | None = None
        self._saw_error = False
        self._saw_done = False
        self._tally = EventTally()

    def feed(self, raw: bytes) -> bytes:
        """The bytes to send the client now for one whole event (possibly none)."""
        event = self._tally.read(raw)
        if event is None:  # data: [DONE]
            self._saw_done = True
            return b""
        if isinstance(event, bytes):
            return event
        return self._event(event, raw)

    def outcome(self) -> ResponsesRoundOutcome:
        ending = self._failed or (self._ending[0] if self._ending else None)
        found = ending.get("response") if ending is not None else None
        response = found if isinstance(found, dict) else None
        output = _output_of(response)
        if output is None:
            output = [self._whole(item) for item in self._items if item.done is not None]
        completed = ending is None or ending.get("type") == "response.completed"
        calls = _calls(output) if completed and not self._saw_error else []
        usage = response.get("usage") if response is not None else None
        text = "".join(self._text) or _text_of(output)
        visible = [item for item in output if not self._is_ours(item)]
        return ResponsesRoundOutcome(text, calls, usage if isinstance(usage, dict) else None, self._saw_error,
                                     self._tally.events, self._tally.skipped, self.own_id, output, response,
                                     self._ending, self._saw_done, visible)


    def _event(self, event: dict[str, Any], raw: bytes) -> bytes:
        kind = event.get("type")
        self._take_ids(event)
        if kind in OPENING_EVENTS and not self.first:
            return b""
        if kind in HELD_ENDINGS:
            self._ending = (event, raw)
            return b""
        if kind == "error" or ("error" in event and kind is None):
            self._saw_error = True
        if kind == FAILED:
            self._saw_error = True
            self._failed = event
            response = event.get("response")
            output = _output_of(response) or []
            visible = [item for item in output if not self._is_ours(item)]
            usage = response.get("usage") if isinstance(response, dict) else None
            return ending_bytes(self.frames, event, raw, visible, add_usage(self.frames.usage_before, usage))
        item = self._added(event) if kind == "response.output_item.added" else self._item_of(event)
        if kind == "response.output_text.delta" and isinstance(event.get("delta"), str):
            self._text.append(event["delta"])
        if item is not None:
            self._track(kind, event, item)
            if item.hidden:
                return b""
        changed = self._rewrite(event)
        return encode_event(raw, event) if changed else raw

    def _take_ids(self, event: dict[str, Any]) -> None:
        """This round's own id, and the client's id when this is the first one seen."""
        response = event.get("response")
        found = response.get("id") if isinstance(response, dict) else event.get("response_id")
        if not isinstance(found, str) or not found:
            return
        if self.own_id is None:
            self.own_id = found
            self.frames.upstream_ids.append(found)
        if self.frames.response_id is None:
            self.frames.response_id = found
        self.response_id = self.frames.response_id

    def _added(self, event: dict[str, Any]) -> _Item | None:
        item = event.get("item")
        if not isinstance(item, dict):
            return None
        tracked = _Item(event.get("output_index"), item, self._is_ours(item))
        self._items.append(tracked)
        if isinstance(item.get("id"), str) and item["id"]:
            self._by_id[item["id"]] = tracked
        if _is_int(tracked.upstream_index):
            self._by_index[tracked.upstream_index] = tracked
        return tracked

    def _is_ours(self, item: Any) -> bool:
        return isinstance(item, Mapping) and item.get("type") == "function_call" and item.get("name") in self.ours

    def _item_of(self, event: dict[str, Any]) -> _Item | None:
        """The output item an event belongs to: by `item_id`, the item's `id`, else by `output_index`."""
        item_id = event.get("item_id")
        item = event.get("item")
        if not isinstance(item_id, str) and isinstance(item, Mapping):
            item_id = item.get("id")
        if isinstance(item_id, str) and item_id in self._by_id:
            return self._by_id[item_id]
        index = event.get("output_index")
        return self._by_index.get(index) if _is_int(index) else None

    def _track(self, kind: Any, event: dict[str, Any], item: _Item) -> None:
        if kind == "response.function_call_arguments.delta" and isinstance(event.get("delta"), str):
            item.arguments += event["delta"]
        elif kind == "response.function_call_arguments.done" and isinstance(event.get("arguments"), str):
            item.arguments = event["arguments"]
        elif kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            item.done = event["item"]

    def _whole(self, item: _Item) -> dict[str, Any]:
        """A finished item as complete as its events make it (arguments from the deltas when left out)."""
        whole = dict(item.done or item.item)
        if whole.get("type") == "function_call" and not whole.get("arguments") and item.arguments:
            whole["arguments"] = item.arguments
        return whole

    def _rewrite(self, event: dict[str, Any]) -> bool:
        """The event as the client gets it: one id, the client's output index and sequence number."""
        changed = renumber(self.frames, event)
        client_id = self.frames.response_id
        response = event.get("response")
        if client_id is not None and isinstance(response, dict) and response.get("id") not in (None, client_id):
            response["id"] = client_id
            changed = True
        if client_id is not None and isinstance(event.get("response_id"), str) and event["response_id"] != client_id:
            event["response_id"] = client_id
            changed = True
        index = event.get("output_index")
        if _is_int(index):
            if index not in self._client_index:
                self._client_index[index] = self.frames.next_output_index
                self.frames.next_output_index += 1
            if self._client_index[index] != index:
                event["output_index"] = self._client_index[index]
                changed = True
        return changed


def take_sequence(frames: ResponsesStreamFrames) -> int:
    """The client's next sequence number, taken."""
    number = frames.next_sequence
    frames.next_sequence += 1
    return number


def renumber(frames: ResponsesStreamFrames, event: dict[str, Any]) -> bool:
    """The event takes the client's next sequence number; True when that changed it."""
    number = take_sequence(frames)
    if not _is_int(event.get("sequence_number")) or event["sequence_number"] == number:
        return False
    event["sequence_number"] = number
    return True


def ending_bytes(frames: ResponsesStreamFrames, event: dict[str, Any], raw: bytes, visible_output: list[Any],
                 usage: dict[str, Any] | None) -> bytes:
    """A terminal event as the client gets it: one id, every round's visible output, usage summed."""
    changed = renumber(frames, event)
    response = event.get("response")
    if isinstance(response, dict):
        output = [*frames.shown_output, *visible_output]
        if frames.response_id is not None and response.get("id") != frames.response_id:
            response["id"] = frames.response_id
            changed = True
        if "output" in response and response["output"] != output:
            response["output"] = output
            changed = True
        if usage is not None and response.get("usage") != usage:
            response["usage"] = usage
            changed = True
    return encode_event(raw, event) if changed else raw


def encode_event(raw: bytes, event: Mapping[str, Any]) -> bytes:
    """The event rewritten: its other lines (`event:`, `id:`) as they were, one `data:` line with the JSON."""
    kept = [line for line in raw.splitlines() if line.strip() and not line.startswith(b"data:")]
    return b"".join(line + b"\n" for line in kept) + b"data: " + json_codec.dumps(event) + b"\n\n"


def _calls(output: list[Any]) -> list[ToolCall]:
    """The function calls in a round's output, `call_id` as each call's id."""
    calls: list[ToolCall] = []
    for item in output:
        if isinstance(item, Mapping) and item.get("type") == "function_call":
            arguments = item.get("arguments")
            calls.append(ToolCall(str(item.get("call_id") or item.get("id") or ""), str(item.get("name") or ""),
                                  arguments if isinstance(arguments, str) else json_codec.dumps(arguments or {})
                                  .decode("utf-8"), len(calls)))
    return calls


def _output_of(response: Any) -> list[Any] | None:
    output = response.get("output") if isinstance(response, Mapping) else None
    return list(output) if isinstance(output, list) else None


def _text_of(output: list[Any]) -> str:
    """The output text of a round's message items."""
    texts = []
    for item in output:
        if isinstance(item, Mapping) and item.get("type") == "message" and isinstance(item.get("content"), list):
            texts += [part["text"] for part in item["content"]
                      if isinstance(part, Mapping) and part.get("type") == "output_text"
                      and isinstance(part.get("text"), str)]
    return "".join(texts)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
