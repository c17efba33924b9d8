"""One streamed Ollama `/api/chat` round of a tool loop: what to pass on, and what the model called.

An Ollama stream is NDJSON: one JSON object per line, each with a `message`
piece (`content`, `thinking`, or `tool_calls` whole: Ollama never splits a
call), and a last line with `done: true`, `done_reason` and the counts
(`prompt_eval_count`, `eval_count`) and durations. `OllamaStreamRound` reads
a round's lines one at a time and returns the bytes the client should get now:
- a line it need not touch goes out as the same bytes;
- a line's calls to the proxy's own tools are taken out (the client's stay,
  in order); a line left with nothing for the client is not sent;
- the `done: true` line is held back: the loop decides at the end of the
  round whether the answer goes on (another round: that line is never sent)
  or ends (the line goes out with the counts and durations summed over the
  rounds; with one round and nothing changed, as the upstream's own bytes);
- an `{"error": ...}` line goes out as it is, and ends the stream;
- a line that is not a JSON object is skipped and counted in `skipped`.

What must not: know about HTTP, run tools, or decide whether to go on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from proxy.core import json_codec
from proxy.core.tools.calls import ToolCall
from proxy.surfaces.ollama_messages import call_function
from proxy.surfaces.ollama_tool_format import OLLAMA_TOOL_FORMAT

# The done line's numbers that add up over rounds: tokens, and nanoseconds spent.
SUMMED_FIELDS = ("prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration",
                 "eval_duration")


def encode_line(data: Mapping[str, Any]) -> bytes:
    return json_codec.dumps(data) + b"\n"


def counts_of(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The done line's (or a whole answer's) counts and durations, or None when it has none."""
    counts = {key: data[key] for key in SUMMED_FIELDS
              if isinstance(data.get(key), (int, float)) and not isinstance(data.get(key), bool)}
    return counts or None


def with_counts(data: Mapping[str, Any], counts: Mapping[str, Any] | None) -> dict[str, Any]:
    """`data` with its counts replaced by `counts` (summed over the rounds)."""
    return {**data, **(counts or {})}


@dataclass
class NdjsonOutcome:
    content: str
    calls: list[ToolCall]
    usage: dict[str, Any] | None
    done: tuple[dict[str, Any], bytes, bool] | None  # the held done line: parsed, raw, changed
    saw_error: bool
    events: int
    skipped: int = 0


class OllamaStreamRound:
    def __init__(self, ours: frozenset[str]) -> None:
        self.ours = ours
        self.response_id: Any = None  # Ollama's answers have no id
        self._content: list[str] = []
        self._calls: list[ToolCall] = []
        self._usage: dict[str, Any] | None = None
        self._done: tuple[dict[str, Any], bytes, bool] | None = None
        self._saw_error = False
        self._events = 0
        self._skipped = 0

    def feed(self, raw: bytes) -> bytes:
        """The bytes to send the client now for one whole line (possibly none)."""
        if not raw.strip():
            return b""
        self._events += 1
        try:
            data = json_codec.loads(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self._skipped += 1
            return b""
        line = raw if raw.endswith(b"\n") else raw + b"\n"
        if "error" in data:
            self._saw_error = True
            return line
        changed = self._message(data)
        if data.get("done") is True:
            self._usage = counts_of(data)
            self._done = (data, line, changed)
            return b""
        if changed:
            return b"" if _is_empty(data) else encode_line(data)
        return line

    def outcome(self) -> NdjsonOutcome:
        return NdjsonOutcome("".join(self._content), self._calls, self._usage, self._done, self._saw_error,
                             self._events, self._skipped)

    def _message(self, data: dict[str, Any]) -> bool:
        """Record a line's message; True when its calls had to be changed (the proxy's taken out)."""
        message = data.get("message")
        if not isinstance(message, dict):
            return False
        if isinstance(message.get("content"), str):
            self._content.append(message["content"])
        calls = message.get("tool_calls")
        if not isinstance(calls, list) or not calls:
            return False
        for call in OLLAMA_TOOL_FORMAT.calls_in_message(message):
            self._calls.append(ToolCall(call.id, call.name, call.arguments, len(self._calls)))
        kept = [call for call in calls if call_function(call).get("name") not in self.ours]
        if len(kept) == len(calls):
            return False
        data["message"] = {**message, "tool_calls": kept} if kept else {
            k: v for k, v in message.items() if k != "tool_calls"}
        return True


def _is_empty(data: Mapping[str, Any]) -> bool:
    """A line left with nothing for the client once the proxy's tool calls are taken out."""
    message = data.get("message")
    if not isinstance(message, Mapping):
        return False
    return not any(key != "role" and value not in (None, "", []) for key, value in message.items())


def closing_lines(outcome: NdjsonOutcome, usage: dict[str, Any] | None, one_round: bool) -> list[bytes]:
    """What ends the client's stream: the done line, with the counts summed over the rounds."""
    if outcome.done is None:
        return []
    data, raw, changed = outcome.done
    if one_round and not changed:
        return [raw]
    return [encode_line(with_counts(data, usage))]
