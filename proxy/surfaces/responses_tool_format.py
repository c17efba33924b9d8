"""The tool exchange in Responses JSON: the proxy's tools in a request, calls read, rounds written as items.

What lives here: `ResponsesToolFormat`. The proxy's tools are Responses'
flat function tools (`{"type": "function", "name", "description",
"parameters", "strict": false}`), added after the client's: a client tool
of the same name wins, and built-in tools (`web_search`, `file_search`,
...) are never touched. Calls are the `function_call` items of a
response's `output`. A round is written as input items: the round's text
as an assistant message (when it had any), one `function_call` item per
call, then one `function_call_output` item per result, under the proxy's
own call ids (the text as a typed `message` with an `output_text` part:
llama.cpp refuses the short `{"role": "assistant", "content"}` form). A
replayed round and the record kept for replay are the same items, so a
later request replays them byte for byte. The model's other
output items of the proxy's own rounds (reasoning) are not replayed.

What must not: decide whether the loop goes on, run tools, or send requests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from proxy.core.tools.calls import ToolCall
from proxy.core.tools.rounds import CallResult, MixedRound, ToolRound, ToolRounds
from proxy.core.tools.skill_tools import ToolSpec
from proxy.core.turns.records import MixedCall
from proxy.surfaces.chat_tool_format import arguments_text
from proxy.surfaces.responses_input import FUNCTION_CALL, FUNCTION_CALL_OUTPUT
from proxy.surfaces.tool_list import add_tools, remove_tools


def responses_tool(spec: ToolSpec) -> dict[str, Any]:
    """A skill tool as a Responses function tool (not strict: its optional fields stay optional)."""
    return {"type": "function", "name": spec.name, "description": spec.description,
            "parameters": spec.parameters, "strict": False}


def tool_name(tool: Any) -> str | None:
    """The `name` of a tool definition or of a `function_call` item."""
    name = tool.get("name") if isinstance(tool, Mapping) else None
    return name if isinstance(name, str) else None


def function_tool_name(tool: Any) -> str | None:
    """The name of a function tool; None for a built-in tool (`web_search`, ...), which is never ours."""
    return tool_name(tool) if isinstance(tool, Mapping) and tool.get("type") == "function" else None


def is_function_call(item: Any, names: frozenset[str] | None = None) -> bool:
    """A `function_call` item (to one of `names`, when given)."""
    return (isinstance(item, Mapping) and item.get("type") == FUNCTION_CALL
            and (names is None or tool_name(item) in names))


def input_items(value: Any) -> list[Any]:
    """A request's `input` as a list of items: a string is one user message."""
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]  # as `ResponsesInput` writes it
    return list(value) if isinstance(value, list) else []


class ResponsesToolFormat:
    def add_tools(self, body: Mapping[str, Any], specs: Sequence[ToolSpec]) -> tuple[dict[str, Any], frozenset[str]]:
        """The request with our tools after the client's, and the names actually added."""
        return add_tools(body, [responses_tool(spec) for spec in specs], tool_name)

    def remove_tools(self, body: Mapping[str, Any], names: frozenset[str]) -> dict[str, Any]:
        """The request without our function tools (and without `tools` at all if none is left)."""
        return remove_tools(body, names, function_tool_name)

    def calls_in_output(self, output: Any) -> list[ToolCall]:
        """The `function_call` items of a response's `output`, in order (index: the place in `output`)."""
        found: list[ToolCall] = []
        for position, item in enumerate(output if isinstance(output, list) else []):
            if is_function_call(item):
                found.append(ToolCall(str(item.get("call_id") or ""), tool_name(item) or "",
                                      arguments_text(item.get("arguments")), position))
        return found

    def round_items(self, round_: ToolRound) -> list[dict[str, Any]]:
        """One round as input items: its text, its calls, then each result."""
        text = [assistant_message(round_.content)] if round_.content else []
        return [*text, *map(function_call_item, round_.calls), *map(output_item, round_.results)]

    def exchange_items(self, exchange: Iterable[ToolRound]) -> list[dict[str, Any]]:
        return [item for round_ in exchange for item in self.round_items(round_)]

    def mixed_call(self, mixed: MixedRound) -> MixedCall:
        """The record of a mixed answer, put back in place of the client's first `function_call` item.

        Each call is its own item in Responses, so the client's copy comes back as one item per call:
        the first of them is replaced by the answer's text and calls up to and including it, then the
        proxy's results; the client's later calls come back as the client sends them.
        """
        first_client = next(call for call in mixed.answer.calls if call.id in mixed.client_call_ids)
        calls = [c for c in mixed.answer.calls if c.id not in mixed.client_call_ids or c is first_client]
        text = [assistant_message(mixed.answer.content)] if mixed.answer.content else []
        items = [*text, *map(function_call_item, calls), *map(output_item, mixed.answer.results)]
        return MixedCall(items[0], tuple(items[1:]), (first_client.id,))

    def recorded(self, rounds: ToolRounds) -> tuple[list[dict[str, Any]], MixedCall | None]:
        mixed = None if rounds.mixed is None else self.mixed_call(rounds.mixed)
        return self.exchange_items(rounds.exchange), mixed


RESPONSES_TOOL_FORMAT = ResponsesToolFormat()


def assistant_message(text: str) -> dict[str, Any]:
    """The model's text as an input item: a typed message with an `output_text` part (llama.cpp takes no
    other spelling of an assistant message)."""
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def function_call_item(call: ToolCall) -> dict[str, Any]:
    return {"type": FUNCTION_CALL, "call_id": call.id, "name": call.name, "arguments": call.arguments}


def output_item(result: CallResult, call_id: str | None = None) -> dict[str, Any]:
    return {"type": FUNCTION_CALL_OUTPUT, "call_id": call_id or result.call.id, "output": result.content}
