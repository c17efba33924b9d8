"""The tool exchange in Ollama `/api/chat` JSON: calls read, rounds written as Ollama messages.

What lives here: `OllamaToolFormat`. Ollama's tools have the Chat
Completions shape (`{"type": "function", "function": {...}}`), so adding and
withdrawing the proxy's tools is `ChatToolFormat`'s. Calls are read from a
message's `tool_calls` whole (Ollama never splits one), arguments as an
object; a call is known by its function name (the id Ollama may send is not
needed to match a result). A round is written as an assistant message with
`tool_calls` (arguments as an object, the proxy's own call id beside) and one
`role: "tool"` message per result with `tool_name` (and the call's id in
`tool_call_id`, which newer servers read). The next round's request is the
forwarded body with those messages appended; the records kept for replay
hold the same messages.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import CallResult, MixedRound, ToolRound, ToolRounds
from proxy.core.turns.records import MixedCall
from proxy.surfaces.chat_tool_format import CHAT_TOOL_FORMAT
from proxy.surfaces.ollama_messages import call_function


class OllamaToolFormat:
    """The Ollama side of the tool exchange."""

    def calls_in_message(self, message: Any) -> list[ToolCall]:
        """The tool calls of an assistant message, in order; each call's id is its function name."""
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        found: list[ToolCall] = []
        for part in calls if isinstance(calls, list) else []:
            function = call_function(part)
            if not function:
                continue
            name = str(function.get("name") or "")
            found.append(ToolCall(name, name, _arguments_text(function.get("arguments")), len(found)))
        return found

    def assistant_message(self, content: str | None, calls: Iterable[ToolCall]) -> dict[str, Any]:
        return {"role": "assistant", "content": content or "", "tool_calls": [_call_part(c) for c in calls]}

    def tool_message(self, result: CallResult) -> dict[str, Any]:
        return {"role": "tool", "content": result.content, "tool_name": result.call.name,
                "tool_call_id": result.call.id}

    def round_messages(self, round_: ToolRound) -> list[dict[str, Any]]:
        return [self.assistant_message(round_.content, round_.calls), *map(self.tool_message, round_.results)]

    def exchange_messages(self, exchange: Iterable[ToolRound]) -> list[dict[str, Any]]:
        return [message for round_ in exchange for message in self.round_messages(round_)]

    def next_request(self, base: Mapping[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        """The forwarded body with the exchange so far appended; without the proxy's tools once capped."""
        body = {**base, "messages": [*base["messages"], *self.exchange_messages(rounds.exchange)]}
        return CHAT_TOOL_FORMAT.remove_tools(body, rounds.ours) if rounds.capped else body

    def mixed_call(self, mixed: MixedRound) -> MixedCall:
        return MixedCall(self.assistant_message(mixed.answer.content, mixed.answer.calls),
                         tuple(map(self.tool_message, mixed.answer.results)), mixed.client_call_ids)

    def recorded(self, rounds: ToolRounds) -> tuple[list[Any], MixedCall | None]:
        mixed = None if rounds.mixed is None else self.mixed_call(rounds.mixed)
        return self.exchange_messages(rounds.exchange), mixed


OLLAMA_TOOL_FORMAT = OllamaToolFormat()


def _arguments_text(arguments: Any) -> str:
    """Arguments as JSON text (the tool runner's input); Ollama sends an object."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _arguments_object(text: str) -> Any:
    """The arguments as Ollama takes them back: an object (the text itself if it is not JSON)."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text


def _call_part(call: ToolCall) -> dict[str, Any]:
    part: dict[str, Any] = {"function": {"name": call.name, "arguments": _arguments_object(call.arguments)}}
    if call.id and call.id != call.name:  # the proxy's own call: its id names it in the records
        part = {"id": call.id, **part}
    return part
