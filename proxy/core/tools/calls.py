"""Tool calls in a model's answer: which are the proxy's, and the messages that go back.

What lives here: adding the proxy's tool definitions to a request (a client
tool of the same name wins), `ToolCall` and reading calls out of a
non-streamed message, splitting calls into the proxy's and the client's,
giving the proxy's calls ids of its own, the assistant and tool messages the
next round carries, and summing `usage` over rounds.

What must not: run a tool (see `skill_tools`) or touch the network.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str
    index: int = 0

    def as_message_part(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


def add_tools(body: Mapping[str, Any], definitions: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], frozenset[str]]:
    """The request with our tools after the client's, and the names actually added.

    A client tool with the same name as ours wins: ours is left out, and calls
    to that name belong to the client.
    """
    client_tools = body.get("tools") if isinstance(body.get("tools"), list) else []
    taken = {function_name(tool) for tool in client_tools}
    ours = [dict(d) for d in definitions if function_name(d) not in taken]  # shared below: never changed
    if not ours:
        return dict(body), frozenset()
    return {**body, "tools": [*client_tools, *ours]}, frozenset(function_name(d) for d in ours)


def remove_tools(body: Mapping[str, Any], names: frozenset[str]) -> dict[str, Any]:
    """The request without the tools named (and without `tools` at all if none is left)."""
    kept = [t for t in body.get("tools") or [] if function_name(t) not in names]
    result = {k: v for k, v in body.items() if k != "tools"}
    if kept:
        result["tools"] = kept
    elif "tool_choice" in result:
        del result["tool_choice"]
    return result


def function_name(tool: Any) -> str | None:
    """`function.name` of a tool definition or of a tool call in a message."""
    if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping):
        name = tool["function"].get("name")
        return name if isinstance(name, str) else None
    return None


def calls_in_message(message: Any) -> list[ToolCall]:
    """The tool calls of a non-streamed assistant message, in order."""
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    found: list[ToolCall] = []
    for position, part in enumerate(calls if isinstance(calls, list) else []):
        function = part.get("function") if isinstance(part, Mapping) else None
        if not isinstance(function, Mapping):
            continue
        found.append(ToolCall(str(part.get("id") or ""), str(function.get("name") or ""),
                              _arguments_text(function.get("arguments")), position))
    return found


def _arguments_text(arguments: Any) -> str:
    """Arguments as the JSON string OpenAI sends; some servers send an object."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)  # the spelling the arguments are replayed with


def split_calls(calls: Iterable[ToolCall], ours: frozenset[str]) -> tuple[list[ToolCall], list[ToolCall]]:
    """(the proxy's calls, the client's calls), each in the model's order."""
    mine, theirs = [], []
    for call in calls:
        (mine if call.name in ours else theirs).append(call)
    return mine, theirs


def with_own_ids(calls: Iterable[ToolCall], new_id: Callable[[], str]) -> list[ToolCall]:
    """The proxy's calls under ids of its own: upstreams reuse ids (`call_0`) or send none."""
    return [replace(call, id=new_id()) for call in calls]


def assistant_message(content: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The assistant turn that made `calls`, as the next round sends it back."""
    return {"role": "assistant", "content": content or None, "tool_calls": [c.as_message_part() for c in calls]}


def tool_message(call: ToolCall, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": content}


def add_usage(total: Mapping[str, Any] | None, more: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Token counts summed field by field (nested details too); other values from the newer one."""
    if not isinstance(more, Mapping):
        return dict(total) if isinstance(total, Mapping) else None
    if not isinstance(total, Mapping):
        return copy.deepcopy(dict(more))
    summed = dict(total)
    for key, value in more.items():
        before = summed.get(key)
        if isinstance(value, bool) or value is None:
            summed[key] = value if before is None else before
        elif isinstance(value, (int, float)) and isinstance(before, (int, float)) and not isinstance(before, bool):
            summed[key] = before + value
        elif isinstance(value, Mapping) and isinstance(before, Mapping):
            summed[key] = add_usage(before, value)
        else:
            summed[key] = copy.deepcopy(value)
    return summed
