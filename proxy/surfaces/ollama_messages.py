"""Ollama `/api/chat` `messages` to the neutral conversation and back.

What lives here: `OllamaMessages`, the `TurnWire` of Ollama's native chat,
and `read_ollama_messages`. An Ollama message is `{role, content (one
string), images, tool_calls, tool_name, thinking}`: a leading `system`
message is the system turn; `content` is the turn's one text; `images`,
`thinking` and every field the proxy does not know stay in the message as
the client sent them; an assistant's `tool_calls` (`{function: {name,
arguments: {...}}}`, an `id` only from newer servers) are tool-call parts;
a `role: "tool"` message is a tool result, matched to its call by
`tool_name`. Calls may carry no id, and the official client drops ids and
indexes when it sends an answer back, so a call is known by its function
name here (the proxy's own calls also carry ids of its own, which show in
the records). Writing back, a turn the proxy did not rewrite is the client's
own object; a rewritten one is the client's object with a new `content` in
the same key position.

A message's identity (for the state keys) is its role, text, images, the
calls' names and arguments and `tool_name`: what a client sends back the
same, not the ids, indexes or `thinking` it may drop or keep.

What must not: decide anything about skills, or change a message in place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from proxy.core.turns.conversation import (
    Conversation,
    Part,
    Role,
    TextForm,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Turn,
)
from proxy.surfaces.chat_messages import read_message_list


class OllamaMessages:
    """The Ollama `/api/chat` `messages` wire."""

    def read_turn(self, raw: Any) -> Turn:
        if not isinstance(raw, dict):
            return Turn("", (), TextForm.NONE, raw)
        role = raw.get("role")
        role = role if isinstance(role, str) else ""
        content = raw.get("content")
        parts: list[Part]
        if isinstance(content, str):
            form, parts = TextForm.PLAIN, [TextPart(content, content)]
        else:
            form, parts = TextForm.NONE, []
        if role == Role.TOOL:
            parts.append(ToolResultPart(_text(raw.get("tool_name")), content))
        calls = raw.get("tool_calls")
        if isinstance(calls, list):
            parts.extend(_call(call) for call in calls if isinstance(call, dict))
        return Turn(role, tuple(parts), form, raw)

    def write_turn(self, turn: Turn) -> Any:
        if not turn.rewritten:
            return turn.raw
        base = turn.raw if isinstance(turn.raw, dict) else {"role": str(turn.role)}
        if turn.form == TextForm.NONE and isinstance(turn.raw, dict):
            return base
        return {**base, "content": turn.text}

    def write(self, conversation: Conversation) -> Any:
        """The `messages` list; a conversation with no turns goes back as the client sent it."""
        if conversation.is_empty:
            return conversation.raw
        return [self.write_turn(turn) for turn in conversation.wire_turns()]

    def identity(self, raw: Any) -> str:
        if not isinstance(raw, dict):
            return json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
        kept: dict[str, Any] = {"role": raw.get("role"), "content": raw.get("content") or ""}
        if raw.get("images"):
            kept["images"] = raw["images"]
        if raw.get("tool_name"):
            kept["tool_name"] = raw["tool_name"]
        calls = raw.get("tool_calls")
        if isinstance(calls, list) and calls:
            kept["tool_calls"] = [_call_identity(call) for call in calls]
        return json.dumps(kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


OLLAMA_MESSAGES = OllamaMessages()


def read_ollama_messages(messages: Any) -> Conversation:
    """The conversation in a request's `messages`; anything but a non-empty list has no turns."""
    return read_message_list(messages, OLLAMA_MESSAGES)


def call_function(call: Any) -> Mapping[str, Any]:
    """A tool call's `function` object (empty when it has none)."""
    function = call.get("function") if isinstance(call, Mapping) else None
    return function if isinstance(function, Mapping) else {}


def _call(call: dict[str, Any]) -> ToolCallPart:
    function = call_function(call)
    name = _text(function.get("name"))
    return ToolCallPart(name, name, function.get("arguments"), call)


def _call_identity(call: Any) -> Any:
    function = call_function(call)
    return {"name": function.get("name"), "arguments": function.get("arguments")}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
