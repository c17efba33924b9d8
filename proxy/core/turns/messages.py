"""Reading and rewriting chat messages without losing anything.

Content may be a string or a list of parts; only `text` parts are read or
changed, and image or other parts keep their place. Every function returns a
new message; the caller's is never mutated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

SEPARATOR = "\n\n---\n\n"
_USER_LABEL = re.compile(r"^\s*user:\s*", re.IGNORECASE)


def is_user(message: Any) -> bool:
    return isinstance(message, Mapping) and message.get("role") == "user"


def message_text(message: Any) -> str:
    """The message's text: a string content, or its text parts joined by newlines."""
    if not isinstance(message, Mapping):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part["text"] for part in content if _is_text_part(part))
    return ""


def routing_text(message: Any) -> str:
    """The text the router and activation see: a leading `user:` label dropped."""
    return _USER_LABEL.sub("", message_text(message), count=1)


def _is_text_part(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str)


def prepend_block(message: Mapping[str, Any], block: str) -> dict[str, Any]:
    """Put `block` and a `---` rule before the text: the routed and reminder shape.

    Content that is neither text nor a list of parts (null, a number, an object) is not the
    proxy's to replace: the message is left as it is, for the upstream to judge.
    """
    return _map_first_text(message, lambda text: f"{block}{SEPARATOR}{text}", block)


def with_system_text(messages: list[Any], text: str) -> list[Any]:
    """`text` at the end of the leading system message, or a new system message in front."""
    first = messages[0] if messages else None
    if isinstance(first, Mapping) and first.get("role") in ("system", "developer"):
        content = first.get("content")
        if isinstance(content, list):
            return [{**first, "content": [*content, {"type": "text", "text": text}]}, *messages[1:]]
        joined = f"{content.rstrip()}\n\n{text}" if isinstance(content, str) and content.strip() else text
        return [{**first, "content": joined}, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def replace_text(message: Mapping[str, Any], new_text: str) -> dict[str, Any]:
    """Make the message's text `new_text` (held in its first text part); other parts stay in place.

    Used for the invocation packet, whose task payload already holds every text part's text.
    """
    content = message.get("content")
    if not isinstance(content, list):
        return {**message, "content": new_text}
    first = next((i for i, part in enumerate(content) if _is_text_part(part)), None)
    if first is None:
        return {**message, "content": [{"type": "text", "text": new_text}, *content]}
    parts = [part for i, part in enumerate(content) if i == first or not _is_text_part(part)]
    index = parts.index(content[first])
    parts[index] = {**content[first], "text": new_text}
    return {**message, "content": parts}


def _map_first_text(message: Mapping[str, Any], change, text_if_none: str) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": change(content)}
    if isinstance(content, list):
        first = next((i for i, part in enumerate(content) if _is_text_part(part)), None)
        if first is None:
            return {**message, "content": [{"type": "text", "text": text_if_none}, *content]}
        parts = list(content)
        parts[first] = {**parts[first], "text": change(parts[first]["text"])}
        return {**message, "content": parts}
    return dict(message)
