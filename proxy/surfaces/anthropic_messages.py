"""Anthropic Messages `system` and `messages` to the neutral conversation and back.

What lives here: `AnthropicMessages`, the `TurnWire` of `POST /v1/messages`,
and `read_request`, which reads a request body's `system` and `messages` into
a `Conversation`. `system` (a string, or a list of blocks) is the system turn;
a message's `content` is one text (a string) or a list of blocks: `text`
blocks are text, `tool_use` blocks are tool calls (their `input` an object),
`tool_result` blocks are tool results, and every other block (`image`,
`document`, `thinking` and `redacted_thinking` with their signatures, and
kinds not known yet) is opaque and kept exactly, in its place. Writing back,
a turn the proxy did not rewrite is the client's own object; a rewritten one
keeps the client's shape (a string stays a string; in a list, every block the
proxy did not change is the client's own object, `cache_control` and all).
`write` gives `{"system": ..., "messages": [...]}` for the body.

A message's identity leaves out `cache_control` (clients move the marker to
the newest message every turn) and the system prompt is no part of any
identity: Claude Code changes an attribution block in it on every request,
and the turns before must still be recognised and replayed.

What must not: decide anything about skills, or change a client's object in place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
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
from proxy.surfaces.content_parts import read_content, written_text_part

CACHE_CONTROL = "cache_control"
SYSTEM_IDENTITY = "system"


@dataclass(frozen=True)
class SystemPrompt:
    """The raw object of the system turn: the body's `system` value, as the client sent it."""

    value: Any


class AnthropicMessages:
    """The Anthropic Messages wire."""

    def read_turn(self, raw: Any) -> Turn:
        if isinstance(raw, SystemPrompt):
            form, parts = read_content(raw.value, _block)
            return Turn(Role.SYSTEM, parts, form, raw)
        if not isinstance(raw, dict):
            return Turn("", (), TextForm.NONE, raw)
        role = raw.get("role")
        form, parts = read_content(raw.get("content"), _block)
        return Turn(role if isinstance(role, str) else "", parts, form, raw)

    def write_turn(self, turn: Turn) -> Any:
        if not turn.rewritten:
            return turn.raw
        content = _written_content(turn)
        if turn.role == Role.SYSTEM and not isinstance(turn.raw, dict):
            return SystemPrompt(content)
        base = turn.raw if isinstance(turn.raw, dict) else {"role": str(turn.role)}
        return {**base, "content": content}

    def write(self, conversation: Conversation) -> dict[str, Any]:
        """`{"system": ..., "messages": [...]}`; no `system` key when the conversation has no system turn."""
        messages = [self.write_turn(turn) for turn in conversation.turns] if conversation.turns else conversation.raw
        written: dict[str, Any] = {"messages": messages}
        if conversation.system is not None:
            system = self.write_turn(conversation.system)
            written["system"] = system.value if isinstance(system, SystemPrompt) else system
        return written

    def identity(self, raw: Any) -> str:
        if isinstance(raw, SystemPrompt):
            return SYSTEM_IDENTITY
        if isinstance(raw, dict):
            kept = {k: without_cache_control(raw.get(k)) for k in ("role", "content") if k in raw}
            return json.dumps(kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        return json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)


ANTHROPIC_MESSAGES = AnthropicMessages()


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation in a request body: its `system` (when present) and its `messages`."""
    messages = body.get("messages")
    system = ANTHROPIC_MESSAGES.read_turn(SystemPrompt(body["system"])) if "system" in body else None
    turns = tuple(ANTHROPIC_MESSAGES.read_turn(m) for m in messages) if isinstance(messages, list) else ()
    return Conversation(turns, ANTHROPIC_MESSAGES, system, messages)


def without_cache_control(value: Any) -> Any:
    """`value` with every block's `cache_control` left out (in nested `tool_result` content too)."""
    if isinstance(value, list):
        return [without_cache_control(item) for item in value]
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != CACHE_CONTROL}
    return value


def _block(block: Any) -> Part:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(block["text"], block)
    if kind == "tool_use":
        name = block.get("name")
        return ToolCallPart(block.get("id"), name if isinstance(name, str) else "", block.get("input"), block)
    if kind == "tool_result":
        return ToolResultPart(block.get("tool_use_id"), block)
    return OpaquePart(block)


def _written_content(turn: Turn) -> Any:
    others = [part for part in turn.parts if not isinstance(part, TextPart)]
    if turn.form == TextForm.PLAIN and not others:
        return turn.text
    if turn.form in (TextForm.PLAIN, TextForm.PARTS):
        texts = [part for part in turn.parts if isinstance(part, TextPart)] if turn.form == TextForm.PLAIN else []
        if texts:  # one text and blocks beside it (a text rewrite of a turn with tool blocks): text first
            return [{"type": "text", "text": turn.text}, *[_written_block(p) for p in others]]
        return [_written_block(part) for part in turn.parts]
    raw = turn.raw.value if isinstance(turn.raw, SystemPrompt) else turn.raw
    return raw.get("content") if isinstance(raw, dict) else raw


def _written_block(part: Part) -> Any:
    return written_text_part(part, "text") if isinstance(part, TextPart) else part.raw
