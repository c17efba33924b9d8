"""OpenAI Responses `input` and `instructions` to the neutral conversation and back.

What lives here: `ResponsesInput`, the `TurnWire` of the Responses API, and
`read_input`, which reads a request's `input` (a string, or a list of items)
and `instructions` into a `Conversation`.

- A string `input` is one user turn; it is written back as a string while it
  stays one plain text.
- A message item (`{"type": "message", "role", "content"}` or the short
  `{"role", "content"}`) has `content` as a string or a list of parts:
  `input_text` parts are text, every other part (`input_image`, `input_file`,
  `output_text`, ...) is opaque and keeps its place.
- A `function_call` item is a tool-call part (`call_id`, `name`, `arguments`
  text); a `function_call_output` item is the result of the call `call_id`.
- A `reasoning` item, and any item the proxy does not know, is its own turn
  that the proxy never rewrites.

The system turn: `instructions`, when it is a string. Without it, a leading
`system` or `developer` message of the input list is the system turn (as in
Chat Completions). A system turn the proxy writes where there was none goes
into `instructions`, so the client's input items stay where they were (or,
when the client's `instructions` is something other than a string, first in
the input).

A turn the proxy did not rewrite is written back as the client's own item; a
rewritten message is the client's item with a new `content` in the same key
position, its unchanged parts the client's own.

What must not: decide anything about skills, or change an item in place.
"""

from __future__ import annotations

import json
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
)
from proxy.surfaces.content_parts import read_content, written_content

SYSTEM_ROLES = ("system", "developer")
FUNCTION_CALL = "function_call"
FUNCTION_CALL_OUTPUT = "function_call_output"
INSTRUCTIONS = "instructions"
_TEXT_PART = "input_text"
# Fields of an item that say nothing about what was said: a client may drop or change them between
# requests for the same turn (an output item's `id` and `status`, an output part's annotations).
_NOT_IDENTITY = ("id", "status")


class ResponsesInput:
    """The Responses `input` wire; `system_in_input` says where the system turn is written."""

    def __init__(self, system_in_input: bool = False) -> None:
        self.system_in_input = system_in_input

    def read_turn(self, raw: Any) -> Turn:
        if isinstance(raw, str):
            return Turn(Role.USER, (TextPart(raw, raw),), TextForm.PLAIN, raw)
        if not isinstance(raw, dict):
            return Turn("", (), TextForm.NONE, raw)
        kind = raw.get("type")
        if kind == FUNCTION_CALL:
            call = ToolCallPart(raw.get("call_id"), _text(raw.get("name")), raw.get("arguments"), raw)
            return Turn(Role.ASSISTANT, (call,), TextForm.NONE, raw)
        if kind == FUNCTION_CALL_OUTPUT:
            return Turn(Role.TOOL, (ToolResultPart(raw.get("call_id"), raw.get("output")),), TextForm.NONE, raw)
        if kind not in (None, "message") or "role" not in raw:
            return Turn(kind if isinstance(kind, str) else "", (), TextForm.NONE, raw)  # reasoning and the rest
        role = raw.get("role")
        role = Role.SYSTEM if role in SYSTEM_ROLES else role if isinstance(role, str) else ""
        form, parts = read_content(raw.get("content"), _part)
        return Turn(role, parts, form, raw)

    def write_turn(self, turn: Turn) -> Any:
        """The item for `turn` in an input list (a string `input` is written by `write`)."""
        if not turn.rewritten and not isinstance(turn.raw, str):
            return turn.raw
        if isinstance(turn.raw, dict):
            return {**turn.raw, "content": written_content(turn, _TEXT_PART)}
        return {"type": "message", "role": str(turn.role),
                "content": written_content(turn, _TEXT_PART) if turn.rewritten else turn.raw}

    def write(self, conversation: Conversation) -> Any:
        """The `input` value: a string while it is one plain user text, else the list of items."""
        turns = conversation.wire_turns() if self.system_in_input else conversation.turns
        if isinstance(conversation.raw, str) and len(turns) == 1 and _one_plain_text(turns[0]):
            return turns[0].raw if not turns[0].rewritten else turns[0].text
        if not turns and not isinstance(conversation.raw, list):
            return conversation.raw
        return [self.write_turn(turn) for turn in turns]

    def identity(self, raw: Any) -> str:
        """An item's identity: a string input spelled as the user message it is; no ids or statuses."""
        if isinstance(raw, str):
            raw = {"role": "user", "content": raw}
        if isinstance(raw, dict):
            kept = {k: v for k, v in raw.items() if k not in _NOT_IDENTITY}
            if kept.get("type") == "message":
                del kept["type"]
            if "role" in kept and "content" in kept:
                kept["content"] = _content_identity(kept["content"])
            raw = kept
        return json.dumps(raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def read_input(body: Mapping[str, Any]) -> Conversation:
    """The conversation in a request's `input` and `instructions`; `chain` is its `previous_response_id`."""
    value = body.get("input")
    instructions = body.get("instructions")
    chain = body.get("previous_response_id")
    chain = chain if isinstance(chain, str) else ""
    items: list[Any] = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    if isinstance(instructions, str):
        wire = ResponsesInput(system_in_input=False)
        system = Turn(Role.SYSTEM, (TextPart(instructions, instructions),), TextForm.PLAIN,
                      {INSTRUCTIONS: instructions})  # its own spelling in the keys: not a user message's
        return Conversation(tuple(wire.read_turn(i) for i in items), wire, system, value, chain)
    wire = ResponsesInput(system_in_input=True)
    turns = tuple(wire.read_turn(i) for i in items)
    if turns and turns[0].is_system and isinstance(value, list):
        return Conversation(turns[1:], wire, turns[0], value, chain)
    # a system turn the proxy adds goes into `instructions`, unless the client's is something else there
    added_to_input = instructions is not None
    return Conversation(turns, ResponsesInput(system_in_input=added_to_input), None, value, chain)


def written_instructions(conversation: Conversation) -> Any:
    """The `instructions` value for a conversation whose system turn is not in its input."""
    system = conversation.system
    if system is None:
        return None
    return system.raw[INSTRUCTIONS] if not system.rewritten and isinstance(system.raw, dict) else system.text


def system_in_input(conversation: Conversation) -> bool:
    wire = conversation.wire
    return isinstance(wire, ResponsesInput) and wire.system_in_input


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _one_plain_text(turn: Turn) -> bool:
    return turn.role == Role.USER and ((isinstance(turn.raw, str) and not turn.rewritten)
                                       or (turn.rewritten and turn.form == TextForm.PLAIN
                                       and all(isinstance(p, TextPart) for p in turn.parts)))


def _part(part: Any) -> Part:
    if isinstance(part, dict) and part.get("type") == _TEXT_PART and isinstance(part.get("text"), str):
        return TextPart(part["text"], part)
    return OpaquePart(part)


def _content_identity(content: Any) -> Any:
    """Content in one spelling: a string is one text; a text part is its text alone."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, list):
        return [{"text": p["text"]} if isinstance(p, dict) and p.get("type") in (_TEXT_PART, "output_text")
                and isinstance(p.get("text"), str) else p for p in content]
    return content
