"""The tool exchange in Anthropic Messages JSON: the proxy's tools in a request, calls read, rounds written.

What lives here: `AnthropicToolFormat`. A skill tool is an Anthropic tool
(`{name, description, input_schema}`), added after the client's (a client
tool of the same name wins) and withdrawn again once the loop is capped. The
calls of an answer are its `tool_use` blocks (`input` an object, kept as JSON
text in the neutral `ToolCall`). A round is written as an assistant message
(a `text` block when the model said something, then its `tool_use` blocks)
and one user message with a `tool_result` block per call, as Anthropic's API
wants every result of an answer in the next user message. The next request
is the forwarded body with those messages appended; the records kept for
replay hold the same messages, so a later request replays them byte for byte.

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


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    """A skill tool as an Anthropic tool definition."""
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


def tool_name(tool: Any) -> str | None:
    """The `name` of a tool definition or of a `tool_use` block."""
    name = tool.get("name") if isinstance(tool, Mapping) else None
    return name if isinstance(name, str) else None


def input_object(arguments: str) -> Any:
    """A call's arguments (JSON text) as the `input` object a `tool_use` block carries."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def arguments_text(value: Any) -> str:
    """A `tool_use` block's `input` as JSON text (the spelling it is written back with)."""
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


class AnthropicToolFormat:
    def add_tools(self, body: Mapping[str, Any],
                  definitions: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], frozenset[str]]:
        """The request with our tools after the client's, and the names actually added."""
        return add_tools(body, definitions, tool_name)

    def remove_tools(self, body: Mapping[str, Any], names: frozenset[str]) -> dict[str, Any]:
        """The request without the tools named (and without `tools` and `tool_choice` when none is left)."""
        return remove_tools(body, names, tool_name)

    def calls_in_content(self, content: Any) -> list[ToolCall]:
        """The `tool_use` blocks of an answer's content, in order."""
        blocks = content if isinstance(content, list) else []
        uses = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_use"]
        return [ToolCall(str(b.get("id") or ""), str(b.get("name") or ""), arguments_text(b.get("input")), position)
                for position, b in enumerate(uses)]

    def assistant_message(self, content: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
        text = [{"type": "text", "text": content}] if content else []
        uses = [{"type": "tool_use", "id": c.id, "name": c.name, "input": input_object(c.arguments)} for c in calls]
        return {"role": "assistant", "content": [*text, *uses]}

    def results_message(self, results: Iterable[CallResult]) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": r.call.id, "content": r.content}
                                            for r in results]}

    def round_messages(self, round_: ToolRound) -> list[dict[str, Any]]:
        return [self.assistant_message(round_.content, round_.calls), self.results_message(round_.results)]

    def exchange_messages(self, exchange: Iterable[ToolRound]) -> list[dict[str, Any]]:
        return [message for round_ in exchange for message in self.round_messages(round_)]

    def next_request(self, base: Mapping[str, Any], rounds: ToolRounds) -> dict[str, Any]:
        body = {**base, "messages": [*base["messages"], *self.exchange_messages(rounds.exchange)]}
        return self.remove_tools(body, rounds.ours) if rounds.capped else body

    def mixed_call(self, mixed: MixedRound) -> MixedCall:
        return MixedCall(self.assistant_message(mixed.answer.content, mixed.answer.calls),
                         (self.results_message(mixed.answer.results),), mixed.client_call_ids)

    def recorded(self, rounds: ToolRounds) -> tuple[list[dict[str, Any]], MixedCall | None]:
        mixed = None if rounds.mixed is None else self.mixed_call(rounds.mixed)
        return self.exchange_messages(rounds.exchange), mixed


ANTHROPIC_TOOL_FORMAT = AnthropicToolFormat()
