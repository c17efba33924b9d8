"""The tool modes, which one a request gets, and whether an upstream refused our tools.

`ToolMode` names them: `server` (the proxy offers its skill tools and runs
them), `inline` (skill instructions in the prompt, no tools), `client` (file
locations for the client's own tools). `server` is the configured default; a request falls back to `inline` (skill
instructions in the prompt, no tools) when the proxy cannot run its tool loop
for it: the upstream refused tools for this model before, the client asked
for several choices (`n` > 1), or said `tool_choice: "none"`, or uses the
legacy `functions` field.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from enum import StrEnum
from typing import Any


class ToolMode(StrEnum):
    """The `tool_mode` setting's values, as config, logs and turn records spell them."""

    SERVER = "server"
    INLINE = "inline"
    CLIENT = "client"


# Statuses that are about the caller, not the request's content.
_NOT_ABOUT_TOOLS = frozenset({401, 403, 404, 408, 409, 429})


def tool_mode_for(configured: str, body: Mapping[str, Any], refused_models: Container[str]) -> tuple[str, str | None]:
    """(the mode for this request, why it is not the configured one, or None)."""
    if configured != ToolMode.SERVER:
        return configured, None
    if str(body.get("model")) in refused_models:
        return ToolMode.INLINE, "the upstream rejected tools for this model earlier"
    if body.get("n") not in (None, 1):
        return ToolMode.INLINE, "n > 1: the tool loop follows one choice only"
    if body.get("tool_choice") == "none":
        return ToolMode.INLINE, 'the client set tool_choice "none"'
    if "functions" in body:
        return ToolMode.INLINE, "the request uses the legacy `functions` field"
    return ToolMode.SERVER, None


def rejects_tools(status: int, body: bytes) -> bool:
    """True for a 4xx answer whose message is about tools (the server or model cannot do tool calls)."""
    if not 400 <= status < 500 or status in _NOT_ABOUT_TOOLS:
        return False
    text = body[:4096].decode("utf-8", "replace").lower()
    return "tool" in text or "function call" in text
