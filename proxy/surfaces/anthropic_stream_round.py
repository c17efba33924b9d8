"""One streamed Anthropic Messages round of a tool loop: what to pass on, and what the model called.

`AnthropicStreamRound` reads a round's SSE events (`event: <type>` and a JSON
`data` line) one at a time and returns the bytes the client should get now:
- `message_start` reaches the client in the first round only (one message,
  one id); its usage is counted;
- a `content_block_start` opens a block: a `tool_use` block of the proxy's
  own tools is held back with every delta and the stop of its index (its
  `input_json_delta` pieces are put together into the call's arguments); every
  other block (text, thinking with its signature, the client's tool_use, kinds
  not known yet) goes on, renumbered so that the client's indexes run from 0
  across all rounds with no gap (`Counter` is shared by a request's rounds);
- `message_delta` and `message_stop` are held: the loop decides at the end of
  the round whether the answer goes on (another round) or ends (the held
  events out, with usage summed over the rounds in `message_delta`);
- `ping` and any other event go on as they came; `error` goes on and ends
  the round; comments pass; an event with no JSON object for data is skipped
  and counted.

What must not: know about HTTP, run tools, or decide whether to go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proxy.core import json_codec
from proxy.core.tools.calls import ToolCall
from proxy.surfaces.sse_rounds import EventTally


@dataclass
class Counter:
    """The next block index the client sees, across a request's rounds."""

    next: int = 0


@dataclass
class _Block:
    client_index: int | None  # None: one of the proxy's tool_use blocks, held back
    call: ToolCall | None = None
    arguments: list[str] = field(default_factory=list)


@dataclass
class AnthropicOutcome:
    content: str
    calls: list[ToolCall]
    usage: dict[str, Any] | None
    held: list[tuple[dict[str, Any], bytes]]
    saw_error: bool
    events: int
    skipped: int = 0


def encode_event(data: dict[str, Any]) -> bytes:
    return b"event: " + str(data.get("type")).encode("utf-8") + b"\ndata: " + json_codec.dumps(data) + b"\n\n"


class AnthropicStreamRound:
    def __init__(self, ours: frozenset[str], response_id: Any, counter: Counter) -> None:
        self.ours = ours
        self.response_id = response_id
        self._first = response_id is None
        self._counter = counter
        self._blocks: dict[Any, _Block] = {}
        self._text: list[str] = []
        self._usage: dict[str, Any] | None = None
        self._held: list[tuple[dict[str, Any], bytes]] = []
        self._saw_error = False
        self._tally = EventTally()
        self._calls = 0

    def feed(self, raw: bytes) -> bytes:
        """The bytes to send the client now for one whole event (possibly none)."""
        event = self._tally.read(raw)
        if event is None:
            return self._tally.skip()  # `data: [DONE]` is no Anthropic event: no client could read it
        if isinstance(event, bytes):
            return event
        kind = event.get("type")
        if kind == "message_start":
            return self._message_start(event, raw)
        if kind == "content_block_start":
            return self._block_start(event, raw)
        if kind in ("content_block_delta", "content_block_stop"):
            return self._block_event(event, raw)
        if kind in ("message_delta", "message_stop"):
            if kind == "message_delta":
                self._usage = _merged(self._usage, event.get("usage"))
            self._held.append((event, raw))
            return b""
        if kind == "error":
            self._saw_error = True
        return raw

    def outcome(self) -> AnthropicOutcome:
        calls = [ToolCall(c.id, c.name, "".join(b.arguments) or c.arguments, c.index)
                 for b in self._blocks.values() if (c := b.call) is not None]
        return AnthropicOutcome("".join(self._text), calls, self._usage, self._held, self._saw_error,
                                self._tally.events, self._tally.skipped)

    def _message_start(self, event: dict[str, Any], raw: bytes) -> bytes:
        message = event.get("message")
        if isinstance(message, dict):
            self._usage = _merged(self._usage, message.get("usage"))
            if self.response_id is None:
                self.response_id = message.get("id")
        return raw if self._first else b""

    def _block_start(self, event: dict[str, Any], raw: bytes) -> bytes:
        block = event.get("content_block")
        block = block if isinstance(block, dict) else {}
        call = None
        if block.get("type") == "tool_use":
            name = str(block.get("name") or "")
            given = block.get("input")
            call = ToolCall(str(block.get("id") or ""), name,
                            json_codec.dumps(given).decode("utf-8") if given else "", self._calls)
            self._calls += 1
            if name in self.ours:
                self._blocks[event.get("index")] = _Block(None, call)
                return b""
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            self._text.append(block["text"])
        state = _Block(self._counter.next, call)
        self._counter.next += 1
        self._blocks[event.get("index")] = state
        return _renumbered(event, raw, state.client_index)

    def _block_event(self, event: dict[str, Any], raw: bytes) -> bytes:
        state = self._blocks.get(event.get("index"))
        delta = event.get("delta")
        if isinstance(delta, dict):
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                self._text.append(delta["text"])
            elif delta.get("type") == "input_json_delta" and state is not None and state.call is not None:
                state.arguments.append(str(delta.get("partial_json") or ""))
        if state is None:
            return raw  # a block the proxy never saw start: the client's to judge
        if state.client_index is None:
            return b""
        return _renumbered(event, raw, state.client_index)


def _renumbered(event: dict[str, Any], raw: bytes, index: int | None) -> bytes:
    if event.get("index") == index:
        return raw
    return encode_event({**event, "index": index})


def _merged(total: dict[str, Any] | None, more: Any) -> dict[str, Any] | None:
    """One round's usage: `message_start`'s, then `message_delta`'s counts (which are the round's totals so far)."""
    if not isinstance(more, dict):
        return total
    merged = dict(total or {})
    merged.update({k: v for k, v in more.items() if v is not None})
    return merged


def closing_events(held: list[tuple[dict[str, Any], bytes]], usage: dict[str, Any] | None,
                   one_round: bool) -> list[bytes]:
    """What ends the client's stream: the held `message_delta` (usage summed over the rounds), `message_stop`."""
    if one_round:
        return [raw for _, raw in held]
    out = []
    for event, _ in held:
        if event.get("type") == "message_delta" and usage is not None:
            event = {**event, "usage": usage}
        out.append(encode_event(event))
    return out
