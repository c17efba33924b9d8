"""The tool exchange in Ollama `/api/chat` JSON: calls read, rounds written as Ollama messages.

What lives here: `OllamaToolFormat`, a `ChatToolFormat` with Ollama's
spelling of calls and messages. Ollama's tools have the Chat Completions
shape (`{"type": "function", "function": {...}}`), and a round has Chat's
layout, so adding and withdrawing the proxy's tools, the next request and
the records are `ChatToolFormat`'s. Calls are read from a message's
`tool_calls` whole (Ollama never splits one), arguments as an object; a call
is known by its function name (the id Ollama may send is not needed to match
a result). A round is written as an assistant message with `tool_calls`
(arguments as an object, the proxy's own call id beside) and one `role:
"tool"` message per result with `tool_name` (and the call's id in
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
from proxy.core.tools.rounds import CallResult
from proxy.surfaces.chat_tool_format import ChatToolFormat, arguments_text
from proxy.surfaces.ollama_messages import call_function


class OllamaToolFormat(ChatToolFormat):
    """The Ollama side of the tool exchange: Chat's, but for how a call and a message are spelled."""

    def calls_in_message(self, message: Any) -> list[ToolCall]:
        """The tool calls of an assistant message, in order; each call's id is its function name."""
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        found: list[ToolCall] = []
        for part in calls if isinstance(calls, list) else []:
            function = call_function(part)
            if not function:
                continue
            name = str(function.get("name") or "")
            found.append(ToolCall(name, name, arguments_text(function.get("arguments")), len(found)))
        return found

    def assistant_message(self, content: str | None, calls: Iterable[ToolCall]) -> dict[str, Any]:
        return {"role": "assistant", "content": content or "", "tool_calls": [_call_part(c) for c in calls]}

    def tool_message(self, result: CallResult) -> dict[str, Any]:
        return {"role": "tool", "content": result.content, "tool_name": result.call.name,
                "tool_call_id": result.call.id}


OLLAMA_TOOL_FORMAT = OllamaToolFormat()


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
