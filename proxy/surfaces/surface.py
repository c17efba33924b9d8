"""What one chat surface (a wire format the proxy serves skills on) tells the shared skill route.

What lives here: `Surface`, the protocol each wire format implements once:
Chat Completions (`proxy.surfaces.chat_completions`), and the others beside it.
A surface reads its request body and the conversation in it, writes the
preprocessed conversation back into the body, adds the proxy's skill tools in
its own tool shape, writes the tool rounds for replay, says where upstream the
request goes and how its clients read errors; its `tool_loop` reads answers
and frames what the client gets. `SkillRoute` (`proxy.surfaces.skill_route`)
does everything else the same way for every surface: the preprocessor under
the scan timeout, the X-Skills-* headers, the tool modes and the tool loop, the
inline retry when an upstream refuses tools, the request record.

What must not: decide skills, send requests, or know another surface's format.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any, Protocol

from proxy.core.tools.rounds import ToolRounds
from proxy.core.tools.skill_tools import ToolSpec
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.records import MixedCall
from proxy.errors import ErrorShape
from proxy.tool_loop import ToolLoopWire
from proxy.upstream.client import UpstreamResponse


class Surface(Protocol):
    @property
    def name(self) -> str:
        """The surface's label in log lines, metrics and the inspect page (`chat_completions`, ...)."""
        ...

    @property
    def upstream_path(self) -> str:
        """Where its requests go upstream, under the upstream's OpenAI base (or its root when `native`)."""
        ...

    @property
    def native(self) -> bool:
        """True when `upstream_path` is under the server's own root (Ollama's `/api/...`), not its `/v1`."""
        ...

    @property
    def errors(self) -> ErrorShape:
        ...

    @property
    def tool_loop(self) -> ToolLoopWire:
        ...

    def parse_body(self, raw: bytes, max_items: int | None) -> dict[str, Any]:
        """The request body; a 400 (or 413 past `max_items` conversation entries) that names what is wrong."""
        ...

    def streams(self, body: dict[str, Any]) -> bool:
        """Whether the client asked for a streamed answer."""
        ...

    def conversation(self, body: dict[str, Any]) -> Conversation:
        """The conversation the body holds, in the neutral form."""
        ...

    def forwarded_body(self, body: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
        """`body` with the preprocessed `conversation` written in (a new dict; `body` is never changed)."""
        ...

    def tool_mode_for(self, configured: str, body: dict[str, Any],
                      refused_models: Container[str]) -> tuple[str, str | None]:
        """The tool mode for this request, and why it is not the configured one (or None)."""
        ...

    def can_take_tools(self, body: dict[str, Any]) -> bool:
        """False when the client's tools field is not something the proxy can add to (sent on as it came)."""
        ...

    def add_tools(self, body: dict[str, Any], specs: Sequence[ToolSpec]) -> tuple[dict[str, Any], frozenset[str]]:
        """The body with the proxy's tools after the client's (a client tool of the same name wins), and the
        names added."""
        ...

    def recorded(self, rounds: ToolRounds) -> tuple[list[Any], MixedCall | None]:
        """The rounds as kept for replay: the exchange's wire objects, and a mixed answer's record."""
        ...

    def is_stream(self, answer: UpstreamResponse) -> bool:
        """Whether the upstream's answer is a stream in this surface's format."""
        ...
