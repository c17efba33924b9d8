"""`POST /v1/chat/completions`: the Chat Completions surface.

What lives here: `ChatCompletionsSurface`, the `Surface` of Chat Completions,
which `SkillRoute` serves. The body must be a JSON object with a `messages`
list (read by `proxy.surfaces.chat_messages`); the preprocessed messages go
back in its place; the proxy's tools are Chat `function` tools
(`proxy.surfaces.chat_tool_format`), and the tool loop reads and frames Chat
answers (`proxy.surfaces.chat_tool_loop`). A request falls back to inline
tool mode when it asks for several choices (`n` > 1), sets `tool_choice:
"none"` or uses the legacy `functions` field. Errors are OpenAI's shape.

What must not: run the request (`SkillRoute` does), or talk httpx.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

from proxy.core.tools.rounds import ToolRounds
from proxy.core.tools.skill_tools import ToolSpec
from proxy.core.tools.tool_mode import tool_mode_for
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.records import MixedCall
from proxy.errors import OPENAI_ERRORS
from proxy.request_body import parse_chat_body
from proxy.surfaces.chat_messages import read_messages
from proxy.surfaces.chat_tool_format import CHAT_TOOL_FORMAT, chat_tool
from proxy.surfaces.chat_tool_loop import CHAT_TOOL_LOOP
from proxy.upstream.client import UpstreamResponse


class ChatCompletionsSurface:
    name = "chat_completions"
    upstream_path = "chat/completions"
    native = False
    errors = OPENAI_ERRORS
    tool_loop = CHAT_TOOL_LOOP

    def parse_body(self, raw: bytes, max_items: int | None) -> dict[str, Any]:
        return parse_chat_body(raw, max_items)

    def streams(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def conversation(self, body: dict[str, Any]) -> Conversation:
        return read_messages(body["messages"])

    def forwarded_body(self, body: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
        return {**body, "messages": conversation.written()}

    def tool_mode_for(self, configured: str, body: dict[str, Any],
                      refused_models: Container[str]) -> tuple[str, str | None]:
        return tool_mode_for(configured, body, refused_models)

    def can_take_tools(self, body: dict[str, Any]) -> bool:
        """False when the client's `tools` is not a list: it goes upstream as sent, for the upstream to judge."""
        return body.get("tools") is None or isinstance(body["tools"], list)

    def add_tools(self, body: dict[str, Any], specs: Sequence[ToolSpec]) -> tuple[dict[str, Any], frozenset[str]]:
        return CHAT_TOOL_FORMAT.add_tools(body, [chat_tool(spec) for spec in specs])

    def recorded(self, rounds: ToolRounds) -> tuple[list[Any], MixedCall | None]:
        return CHAT_TOOL_FORMAT.recorded(rounds)

    def is_stream(self, answer: UpstreamResponse) -> bool:
        return answer.is_event_stream


CHAT_COMPLETIONS = ChatCompletionsSurface()
