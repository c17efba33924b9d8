"""`POST /api/chat`: Ollama's native chat surface.

What lives here: `OllamaChatSurface`, the `Surface` of Ollama's `/api/chat`,
which `SkillRoute` serves. The body must be a JSON object with a `messages`
list (read by `proxy.surfaces.ollama_messages`); the preprocessed messages
go back in its place and every other field (`tools`, `format`, `options`
with `num_ctx`, `think`, `keep_alive`, `stream`) goes upstream as the client
sent it. The request goes to the server's native root (`api/chat`, not under
`/v1`: see `Upstream.native_root`). `stream` is true when absent, as Ollama
has it; a streamed answer is NDJSON. The proxy's tools are Ollama's (the Chat
Completions tool shape); the tool loop reads and frames Ollama answers
(`proxy.surfaces.ollama_tool_loop`). A model whose upstream refused tools is
served inline from then on. Errors are `{"error": "..."}`.

What must not: run the request (`SkillRoute` does), or talk httpx.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

from proxy.core.tools.rounds import ToolRounds
from proxy.core.tools.skill_tools import ToolSpec
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.records import MixedCall
from proxy.request_body import parse_chat_body
from proxy.surfaces.chat_tool_format import CHAT_TOOL_FORMAT, chat_tool
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS
from proxy.surfaces.ollama_messages import read_ollama_messages
from proxy.surfaces.ollama_tool_format import OLLAMA_TOOL_FORMAT
from proxy.surfaces.ollama_tool_loop import OllamaToolLoopWire
from proxy.upstream.client import UpstreamResponse


class OllamaChatSurface:
    name = "ollama_chat"
    upstream_path = "api/chat"
    native = True
    errors = OLLAMA_ERRORS
    tool_loop = OllamaToolLoopWire()

    def parse_body(self, raw: bytes, max_items: int | None) -> dict[str, Any]:
        return parse_chat_body(raw, max_items)

    def streams(self, body: dict[str, Any]) -> bool:
        """Ollama streams unless told `"stream": false`."""
        return body.get("stream") is not False

    def conversation(self, body: dict[str, Any]) -> Conversation:
        return read_ollama_messages(body["messages"])

    def forwarded_body(self, body: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
        return {**body, "messages": conversation.written()}

    def tool_mode_for(self, configured: str, body: dict[str, Any],
                      refused_models: Container[str]) -> tuple[str, str | None]:
        if configured == ToolMode.SERVER and str(body.get("model")) in refused_models:
            return ToolMode.INLINE, "the upstream rejected tools for this model earlier"
        return configured, None

    def can_take_tools(self, body: dict[str, Any]) -> bool:
        """False when the client's `tools` is not a list: it goes upstream as sent, for the upstream to judge."""
        return body.get("tools") is None or isinstance(body["tools"], list)

    def add_tools(self, body: dict[str, Any], specs: Sequence[ToolSpec]) -> tuple[dict[str, Any], frozenset[str]]:
        return CHAT_TOOL_FORMAT.add_tools(body, [chat_tool(spec) for spec in specs])

    def recorded(self, rounds: ToolRounds) -> tuple[list[Any], MixedCall | None]:
        return OLLAMA_TOOL_FORMAT.recorded(rounds)

    def is_stream(self, answer: UpstreamResponse) -> bool:
        return answer.is_ndjson


OLLAMA_CHAT = OllamaChatSurface()
