"""Chat Completions `messages` to the neutral conversation and back.

What lives here: `ChatMessages`, the `TurnWire` of Chat Completions, and
`read_messages`, which reads a request's `messages` (any JSON value) into a
`Conversation` through `read_message_list` (which Ollama's `messages` share).
A leading `system` or `developer` message is the system turn; `content` is
one text (a string), a list of parts (`text` parts are text, every other
part is opaque and keeps its place) or nothing the proxy rewrites; an
assistant's `tool_calls` are tool-call parts; a `tool` message is a tool
result. Writing back, a turn the proxy did not rewrite is the client's own
object; a rewritten one is the client's object with a new `content` (in the
same key position), its unchanged parts the client's own.

What must not: decide anything about skills, or change a message in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proxy.core.turns.conversation import (
    Conversation,
    OpaquePart,
    Part,
    Role,
    TextForm,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Turn,
    TurnWire,
)
from proxy.core.turns.records import canonical_message
from proxy.surfaces.content_parts import read_content, written_content

_SYSTEM_ROLES = ("system", "developer")


class ChatMessages:
    """The Chat Completions `messages` wire."""

    def read_turn(self, raw: Any) -> Turn:
        if not isinstance(raw, dict):
            return Turn("", (), TextForm.NONE, raw)
        role = raw.get("role")
        role = Role.SYSTEM if role in _SYSTEM_ROLES else role if isinstance(role, str) else ""
        form, parts = read_content(raw.get("content"), _part)
        if role == Role.TOOL:
            parts = (*parts, ToolResultPart(raw.get("tool_call_id"), raw.get("content")))
        calls = raw.get("tool_calls")
        if isinstance(calls, list):
            parts = (*parts, *[_call(c) for c in calls if isinstance(c, dict)])
        return Turn(role, parts, form, raw)

    def write_turn(self, turn: Turn) -> Any:
        if not turn.rewritten:
            return turn.raw
        base = turn.raw if isinstance(turn.raw, dict) else {"role": str(turn.role)}
        return {**base, "content": written_content(turn, "text")}

    def write(self, conversation: Conversation) -> Any:
        """The `messages` list; a conversation with no turns goes back as the client sent it."""
        if conversation.is_empty:
            return conversation.raw
        return [self.write_turn(turn) for turn in conversation.wire_turns()]

    def identity(self, raw: Any) -> str:
        return canonical_message(raw)


CHAT_MESSAGES = ChatMessages()


def read_messages(messages: Any) -> Conversation:
    """The conversation in a request's `messages`; anything but a non-empty list has no turns."""
    return read_message_list(messages, CHAT_MESSAGES)


def read_message_list(messages: Any, wire: TurnWire) -> Conversation:
    """The conversation in a `messages` list read by `wire`, a leading system message its system turn;
    anything but a non-empty list has no turns."""
    if not isinstance(messages, list) or not messages:
        return Conversation((), wire, raw=messages)
    turns = tuple(wire.read_turn(m) for m in messages)
    if turns[0].is_system:
        return Conversation(turns[1:], wire, turns[0], messages)
    return Conversation(turns, wire, None, messages)


def message_text(message: Any) -> str:
    """A message's text: a string content, or its text parts joined by newlines."""
    return CHAT_MESSAGES.read_turn(message).text


def is_user(message: Any) -> bool:
    return CHAT_MESSAGES.read_turn(message).is_user


def _part(part: Any) -> Part:
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        return TextPart(part["text"], part)
    return OpaquePart(part)


def _call(call: dict[str, Any]) -> ToolCallPart:
    function = call.get("function")
    name = function.get("name") if isinstance(function, Mapping) else None
    arguments = function.get("arguments") if isinstance(function, Mapping) else None
    return ToolCallPart(call.get("id"), name if isinstance(name, str) else "", arguments, call)
