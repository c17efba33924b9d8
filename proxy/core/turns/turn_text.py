"""Reading and rewriting the text of turns without losing anything.

Only text parts are read or changed; opaque parts (images, files) and tool
parts keep their place. Every function returns a new value; the caller's is
never changed.
"""

from __future__ import annotations

import re

from proxy.core.turns.conversation import Conversation, OpaquePart, Part, Role, TextForm, TextPart, Turn

SEPARATOR = "\n\n---\n\n"
_USER_LABEL = re.compile(r"^\s*user:\s*", re.IGNORECASE)


def routing_text(turn: Turn) -> str:
    """The text the router and activation see: a leading `user:` label dropped."""
    text = turn.text
    label = _USER_LABEL.match(text)  # the pattern is anchored: only a match at the start counts
    return text[label.end():] if label else text


def prepend_block(turn: Turn, block: str) -> Turn:
    """Put `block` and a `---` rule before the text: the routed and reminder shape.

    A turn without text the proxy may rewrite (`TextForm.NONE`: null, a number, an object) is
    not the proxy's to change: it is left as it is, for the upstream to judge.
    """
    if turn.form == TextForm.NONE:
        return turn
    first = _first_text(turn.parts)
    if first is None:
        return turn.with_parts((TextPart(block), *turn.parts), turn.form)
    parts = list(turn.parts)
    old = parts[first]
    assert isinstance(old, TextPart)
    parts[first] = TextPart(f"{block}{SEPARATOR}{old.text}", old.raw)
    return turn.with_parts(parts, turn.form)


def replace_text(turn: Turn, new_text: str) -> Turn:
    """Make the turn's text `new_text` (held in its first text part); other parts stay in place.

    Used for the invocation packet, whose task payload already holds every text part's text.
    """
    if turn.form != TextForm.PARTS:
        return turn.with_parts((TextPart(new_text), *_not_text(turn.parts)), TextForm.PLAIN)
    first = _first_text(turn.parts)
    if first is None:
        return turn.with_parts((TextPart(new_text), *turn.parts), TextForm.PARTS)
    old = turn.parts[first]
    assert isinstance(old, TextPart)
    kept = [TextPart(new_text, old.raw) if i == first else part for i, part in enumerate(turn.parts)
            if i == first or not isinstance(part, TextPart)]
    return turn.with_parts(kept, TextForm.PARTS)


def with_system_text(conversation: Conversation, text: str) -> Conversation:
    """`text` at the end of the system turn, or a new system turn when there is none."""
    system = conversation.system
    if system is None:
        return conversation.with_system(Turn(Role.SYSTEM, (TextPart(text),), TextForm.PLAIN, rewritten=True))
    if system.form == TextForm.PARTS:
        return conversation.with_system(system.with_parts((*system.parts, TextPart(text)), TextForm.PARTS))
    before = system.text if system.form == TextForm.PLAIN else ""
    joined = f"{before.rstrip()}\n\n{text}" if before.strip() else text
    return conversation.with_system(system.with_parts((TextPart(joined), *_not_text(system.parts)), TextForm.PLAIN))


def _first_text(parts: tuple[Part, ...]) -> int | None:
    return next((i for i, part in enumerate(parts) if isinstance(part, TextPart)), None)


def _not_text(parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """The parts a one-text rewrite keeps beside its text: tool calls, never content parts."""
    return tuple(part for part in parts if not isinstance(part, (TextPart, OpaquePart)))
