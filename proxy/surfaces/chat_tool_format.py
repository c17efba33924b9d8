"""The tool exchange in Chat Completions JSON: the proxy's tools in a request, calls read, rounds written.

What lives here: `ChatToolFormat`. It adds the proxy's tool definitions
after the client's (a client tool of the same name wins) and withdraws them
again; reads the calls of a non-streamed assistant message; and writes the
loop's neutral rounds as Chat messages: an assistant message with
`tool_calls` per round, then one `role: tool` message per result. The next
round's request is the forwarded body with those messages appended; the
records kept for replay hold the same messages, so a later request replays
them byte for byte.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import CallResult, MixedRound, ToolRound, ToolRounds
from proxy.core.tools.skill_tools import ToolSpec
from proxy.core.turns.records import MixedCall
from proxy.surfaces.tool_list import add_tools, remove_tools


def chat_tool(spec: ToolSpec) -> dict[str, Any]:
    """A skill tool as a Chat Completions `function` tool."""
    return {"type": "function", "function": {"name": spec.name, "description": spec.description,
                                             "parameters": spec.parameters}}


def function_name(tool: Any) -> str | None:
    """`function.name` of a tool definition or of a tool call in a message."""
    if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping):
        name = tool["function"].get("name")
        return name if isinstance(name, str) else None
    return None


class ChatToolFormat:
    """The Chat Completions side of the tool exchange."""

    def add_tools(self, body: Mapping[str, Any],
                  definitions: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], frozenset[str]]:
        """The request with our tools after the client's (a client tool of the same name wins), and the
        names actually added."""
        return add_tools(body, definitions, function_name)

    def remove_tools(self, body: Mapping[str, Any], names: frozenset[str]) -> dict[str, Any]:
        """The request without the tools named (and without `tools` at all if none is left)."""
        return remove_tools(body, names, function_name)

    def calls_in_message(self, message: Any) -> list[ToolCall]:
        """The tool calls of a non-streamed assistant message, in order."""
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        found: list[ToolCall] = []
        for position, part in enumerate(calls if isinstance(calls, list) else []):
            function = part.get("function") if isinstance(part, Mapping) else None
            if not isinstance(function, Mapping):
                continue
            found.append(ToolCall(str(part.get("id") or ""), str(function.get("name") or ""),
                                  arguments_text(function.get("arguments")), position))
        return found

    def assistant_message(self, content: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
        """The assistant turn that made `calls`, as the next round sends it back."""
        return {"role": "assistant", "content": content or None, "tool_calls": [_call_part(c) for c in calls]}

    def tool_message(self, result: CallResult) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": result.call.id, "content": result.content}

    def round_messages(self, round_: ToolRound) -> list[dict[str, Any]]:
        """One round as Chat messages: the assistant's calls, then each result."""
        return [self.assistant_message(round_.content, round_.calls), *map(self.tool_message, round_.results)]

    def exchange_messages(self, exchange: Iterable[ToolRound]) -> list[dict[str, Any]]:
        return [message for round_ in exchange for message in self.round_messages(round_)]

    def next_request(self, base: Mapping[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        """The forwarded body with the exchange so far appended; without the proxy's tools once capped."""
        body = {**base, "messages": [*base["messages"], *self.exchange_messages(rounds.exchange)]}
        return self.remove_tools(body, rounds.ours) if rounds.capped else body

    def mixed_call(self, mixed: MixedRound) -> MixedCall:
        """The record of a mixed answer: the whole assistant message and the proxy's tool messages."""
        return MixedCall(self.assistant_message(mixed.answer.content, mixed.answer.calls),
                         tuple(map(self.tool_message, mixed.answer.results)), mixed.client_call_ids)

    def recorded(self, rounds: ToolRounds) -> tuple[list[dict[str, Any]], MixedCall | None]:
        """What is kept for replay: the exchange's messages, and the mixed answer's record."""
        mixed = None if rounds.mixed is None else self.mixed_call(rounds.mixed)
        return self.exchange_messages(rounds.exchange), mixed


CHAT_TOOL_FORMAT = ChatToolFormat()


def arguments_text(arguments: Any) -> str:
    """A call's arguments as the JSON text OpenAI sends; some servers (and Ollama, and Responses on some
    servers) send an object."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)  # the spelling the arguments are replayed with


def _call_part(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
