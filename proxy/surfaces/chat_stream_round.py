"""One streamed Chat Completions round of a tool loop: what to pass on, and what the model called.

`StreamRound` reads a round's SSE events one at a time and returns the bytes
the client should get now:
- an event it need not touch goes out as the same bytes;
- tool-call deltas are reassembled by `index` (and accepted whole in one
  delta, as Ollama sends them); the proxy's own calls are kept back, the
  client's go out renumbered from 0, so the client never sees a gap;
- every round's chunks carry the first round's `id`, so the client sees one
  response;
- finish chunks, usage-only chunks and `[DONE]` are held back: the loop
  decides at the end of the round whether the answer goes on (another round)
  or ends (held chunks out, `usage` summed over rounds, one `[DONE]`);
- comments (`: ping`) and blank lines go out as they are (they keep idle
  connections open); an event no client could read, whose data is not a JSON
  object (`data: not json`) or which has no data but other fields
  (`event: ping`, which the openai SDK would try to parse), is skipped and
  counted in `skipped`.

What must not: know about HTTP, run tools, or decide whether to go on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from proxy.core import json_codec
from proxy.core.sse import DONE_FRAME
from proxy.core.tools.calls import ToolCall, add_usage
from proxy.surfaces.sse_rounds import EventTally
from proxy.surfaces.sse_rounds import event_data as event_data  # read here by the tests and other surfaces
from proxy.surfaces.sse_rounds import iter_events as iter_events


def encode_chunk(chunk: Mapping[str, Any]) -> bytes:
    return b"data: " + json_codec.dumps(chunk) + b"\n\n"


@dataclass
class _Slot:
    id: str = ""
    name: str = ""
    arguments: str = ""
    client_index: int | None = None
    pending: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class RoundOutcome:
    content: str
    calls: list[ToolCall]
    finish_reason: str | None
    usage: dict[str, Any] | None
    held: list[tuple[dict[str, Any], bytes, bool]]
    saw_error: bool
    saw_done: bool
    events: int
    skipped: int = 0


class StreamRound:
    def __init__(self, ours: frozenset[str], response_id: str | None) -> None:
        self.ours = ours
        self.response_id = response_id
        self._keep_role = response_id is None  # the first round's role chunk reaches the client
        self._content: list[str] = []
        self._slots: dict[int, _Slot] = {}
        self._client_count = 0
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self._held: list[tuple[dict[str, Any], bytes, bool]] = []
        self._saw_error = False
        self._saw_done = False
        self._tally = EventTally()

    def feed(self, raw: bytes) -> bytes:
        """The bytes to send the client now for one whole event (possibly none)."""
        chunk = self._tally.read(raw)
        if chunk is None:  # data: [DONE]
            self._saw_done = True
            return b""
        if isinstance(chunk, bytes):
            return chunk
        if "error" in chunk:
            self._saw_error = True
            return raw
        return self._chunk(chunk, raw)

    def outcome(self) -> RoundOutcome:
        calls = [ToolCall(s.id, s.name, s.arguments, i) for i, s in sorted(self._slots.items())]
        return RoundOutcome("".join(self._content), calls, self._finish_reason, self._usage, self._held,
                            self._saw_error, self._saw_done, self._tally.events, self._tally.skipped)

    def _chunk(self, chunk: dict[str, Any], raw: bytes) -> bytes:
        if self.response_id is None and isinstance(chunk.get("id"), str):
            self.response_id = chunk["id"]
        changed = self._take_usage(chunk)
        if self.response_id is not None and chunk.get("id") != self.response_id:
            chunk["id"] = self.response_id
            changed = True
        choices = _choices(chunk)
        rewritten = [self._choice(choice) for choice in choices]  # every choice, not up to the first changed one
        changed = any(rewritten) or changed
        if not choices and self._usage is not None and "usage" in chunk:
            self._held.append((chunk, raw, changed))
            return b""
        if any(isinstance(c, Mapping) and c.get("finish_reason") for c in choices):
            self._held.append((chunk, raw, changed))
            return b""
        if changed and _is_empty(chunk, self._keep_role):
            return b""
        return encode_chunk(chunk) if changed else raw

    def _take_usage(self, chunk: dict[str, Any]) -> bool:
        usage = chunk.get("usage")
        if not isinstance(usage, Mapping):
            return False
        self._usage = add_usage(self._usage, usage)
        if chunk.get("choices"):
            del chunk["usage"]  # the summed usage goes out once, at the end
            return True
        return False

    def _choice(self, choice: Any) -> bool:
        """Record a choice's delta; True when the delta had to be changed."""
        if not isinstance(choice, dict):
            return False
        if choice.get("finish_reason"):
            self._finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return False
        if isinstance(delta.get("content"), str):
            self._content.append(delta["content"])
        parts = delta.get("tool_calls")
        if not isinstance(parts, list):
            return False
        forwarded = [out for part in parts for out in self._tool_part(part)]
        if forwarded:
            delta["tool_calls"] = forwarded
        else:
            del delta["tool_calls"]
        return True

    def _tool_part(self, part: Any) -> list[dict[str, Any]]:
        """The client-bound parts for one tool-call delta part (none for the proxy's own calls)."""
        if not isinstance(part, dict):
            return []
        slot_index = self._slot_index(part)
        slot = self._slots.setdefault(slot_index, _Slot())
        function = part.get("function")
        if not isinstance(function, dict):
            function = {}
        slot.id = slot.id or str(part.get("id") or "")
        slot.name = slot.name or str(function.get("name") or "")
        arguments = function.get("arguments")
        slot.arguments += arguments if isinstance(arguments, str) else (json.dumps(arguments) if arguments else "")
        if not slot.name:
            slot.pending.append(part)
            return []
        if slot.name in self.ours:
            slot.pending.clear()
            return []
        return self._client_parts(slot, part)

    def _slot_index(self, part: dict[str, Any]) -> int:
        index = part.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        starts_new = part.get("id") or (isinstance(part.get("function"), dict) and part["function"].get("name"))
        if starts_new or not self._slots:
            return max(self._slots, default=-1) + 1
        return max(self._slots)

    def _client_parts(self, slot: _Slot, part: dict[str, Any]) -> list[dict[str, Any]]:
        if slot.client_index is None:
            slot.client_index = self._client_count
            self._client_count += 1
        parts = [*slot.pending, part]
        slot.pending.clear()
        return [{**p, "index": slot.client_index} for p in parts]


def _choices(chunk: Mapping[str, Any]) -> list[Any]:
    """The chunk's `choices` when it is a list (some servers send odder things)."""
    choices = chunk.get("choices")
    return choices if isinstance(choices, list) else []


def _is_empty(chunk: Mapping[str, Any], keep_role: bool = False) -> bool:
    """A chunk left with nothing for the client once the proxy's tool calls are taken out."""
    ignored = () if keep_role else ("role",)
    for choice in _choices(chunk):
        if not isinstance(choice, Mapping):
            return False
        delta = choice.get("delta") or {}
        if not isinstance(delta, Mapping):
            return False  # not a delta the proxy understands: the client gets it as it is
        if any(k not in ignored and v not in (None, "", []) for k, v in delta.items()):
            return False
        if choice.get("logprobs"):
            return False
    return "usage" not in chunk


def closing_chunks(held: list[tuple[dict[str, Any], bytes, bool]], usage: dict[str, Any] | None,
                   response_id: str | None, one_round: bool) -> list[bytes]:
    """What ends the client's stream: the last round's held chunks, usage summed, then one [DONE].

    With one round and nothing changed, the held events go out as the upstream's own bytes.
    """
    usage_kept = usage is None or any("usage" in chunk for chunk, _, _ in held)
    if one_round and usage_kept and not any(modified for _, _, modified in held):
        return [raw for _, raw, _ in held] + [DONE_FRAME]
    chunks = [dict(chunk) for chunk, _, _ in held]
    usage_chunks = [c for c in chunks if not c.get("choices")]
    for chunk in usage_chunks or chunks[-1:]:
        if usage is not None:
            chunk["usage"] = usage
    for chunk in chunks:
        if response_id is not None:
            chunk["id"] = response_id
    return [encode_chunk(chunk) for chunk in chunks] + [DONE_FRAME]


def continuing_chunks(held: list[tuple[dict[str, Any], bytes, bool]]) -> list[bytes]:
    """A round that goes on: held chunks lose their finish_reason; only ones with content remain."""
    out = []
    for chunk, _, _ in held:
        choices = [{**c, "finish_reason": None} for c in _choices(chunk) if isinstance(c, Mapping)]
        trimmed = {k: v for k, v in chunk.items() if k != "usage"}
        trimmed["choices"] = choices
        if choices and not _is_empty(trimmed):
            out.append(encode_chunk(trimmed))
    return out
