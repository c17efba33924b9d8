"""A message's `content` as parts and back, in the spelling the chat formats share.

What lives here: `read_content`, which reads a `content` value (a string is
one plain text, a list is parts, each read by the format's own `read_part`,
anything else is nothing the proxy rewrites); `written_text_part`, a text
part written back (the client's own object while its text is unchanged, the
object with the new text when it changed, a new `{"type": ..., "text"}` part
of the format's text type when there was none); and `written_content`, a
rewritten turn's `content` for a format whose content is only text and
opaque parts (Chat Completions, Responses): a string stays a string, in a
list every part keeps its place.

What must not: know which part types a format has beyond the text type it is
given, or change a client's object in place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from proxy.core.turns.conversation import OpaquePart, Part, TextForm, TextPart, Turn


def read_content(content: Any, read_part: Callable[[Any], Part]) -> tuple[TextForm, tuple[Part, ...]]:
    """The form of `content` and its parts."""
    if isinstance(content, str):
        return TextForm.PLAIN, (TextPart(content, content),)
    if isinstance(content, list):
        return TextForm.PARTS, tuple([read_part(part) for part in content])
    return TextForm.NONE, ()


def written_text_part(part: TextPart, text_type: str) -> Any:
    """A text part as it is written back; `text_type` is the format's type of a text part."""
    if isinstance(part.raw, Mapping):
        return part.raw if part.raw.get("text") == part.text else {**part.raw, "text": part.text}
    return {"type": text_type, "text": part.text}


def written_content(turn: Turn, text_type: str) -> Any:
    """A rewritten turn's `content`, its text parts of type `text_type`, its opaque parts as they came."""
    if turn.form == TextForm.PLAIN:
        return turn.text
    if turn.form == TextForm.PARTS:
        return [part.raw if isinstance(part, OpaquePart) else written_text_part(part, text_type)
                for part in turn.parts if isinstance(part, (TextPart, OpaquePart))]
    return turn.raw.get("content") if isinstance(turn.raw, dict) else None
