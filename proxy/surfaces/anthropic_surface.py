"""`POST /v1/messages`: the Anthropic Messages surface.

What lives here: `AnthropicMessagesSurface`, the `Surface` of Anthropic
Messages, which `SkillRoute` serves. The body must be a JSON object with a
`messages` list (read with its `system` by `proxy.surfaces.anthropic_messages`);
the preprocessed `system` and `messages` go back in their places and every
other field (`metadata`, `stop_sequences`, `thinking`, `tool_choice`, ...)
reaches the upstream as the client sent it. `cache_control` markers stay where
the client put them: on the client's own messages they are the client's
objects; a turn the proxy replays from an earlier request loses the marker
that request had and takes the one the client put on that turn now. The
proxy's tools are Anthropic tools (`proxy.surfaces.anthropic_tool_format`),
the tool loop reads and frames Anthropic answers
(`proxy.surfaces.anthropic_tool_loop`). A request falls back to inline tool
mode when it sets `tool_choice: {"type": "none"}`, or when its model's
upstream refused tools before. Errors are Anthropic's shape.

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
from proxy.surfaces.anthropic_errors import ANTHROPIC_ERRORS
from proxy.surfaces.anthropic_messages import ANTHROPIC_MESSAGES, CACHE_CONTROL, read_request
from proxy.surfaces.anthropic_tool_format import ANTHROPIC_TOOL_FORMAT, anthropic_tool
from proxy.surfaces.anthropic_tool_loop import AnthropicToolLoopWire
from proxy.upstream.client import UpstreamResponse


class AnthropicMessagesSurface:
    name = "messages"
    upstream_path = "messages"
    native = False
    errors = ANTHROPIC_ERRORS

    @property
    def tool_loop(self) -> AnthropicToolLoopWire:
        """A new one per request: a streamed answer's block indexes run across its rounds."""
        return AnthropicToolLoopWire()

    def parse_body(self, raw: bytes, max_items: int | None) -> dict[str, Any]:
        return parse_chat_body(raw, max_items)

    def streams(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def conversation(self, body: dict[str, Any]) -> Conversation:
        return read_request(body)

    def forwarded_body(self, body: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
        written = conversation.written()
        forwarded = {k: v for k, v in body.items() if k != "system"} if "system" not in written else dict(body)
        if "system" in written:
            forwarded["system"] = written["system"]
        forwarded["messages"] = with_client_markers(body.get("messages"), written["messages"])
        return forwarded

    def tool_mode_for(self, configured: str, body: dict[str, Any],
                      refused_models: Container[str]) -> tuple[str, str | None]:
        if configured != ToolMode.SERVER:
            return configured, None
        if str(body.get("model")) in refused_models:
            return ToolMode.INLINE, "the upstream rejected tools for this model earlier"
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == "none":
            return ToolMode.INLINE, 'the client set tool_choice {"type": "none"}'
        return ToolMode.SERVER, None

    def can_take_tools(self, body: dict[str, Any]) -> bool:
        return body.get("tools") is None or isinstance(body["tools"], list)

    def add_tools(self, body: dict[str, Any], specs: Sequence[ToolSpec]) -> tuple[dict[str, Any], frozenset[str]]:
        return ANTHROPIC_TOOL_FORMAT.add_tools(body, [anthropic_tool(spec) for spec in specs])

    def recorded(self, rounds: ToolRounds) -> tuple[list[Any], MixedCall | None]:
        return ANTHROPIC_TOOL_FORMAT.recorded(rounds)

    def is_stream(self, answer: UpstreamResponse) -> bool:
        return answer.is_event_stream


ANTHROPIC_MESSAGES_SURFACE = AnthropicMessagesSurface()


def with_client_markers(client: Any, forwarded: Any) -> Any:
    """`forwarded` with `cache_control` only where the client put it in this request.

    The client's own objects are kept as they are. Any other message (one replayed from an earlier
    request, or written by the proxy) loses its markers; each of the client's messages of a person puts
    its markers back onto the forwarded one in the same place counted from the newest, block by block,
    when both have as many blocks.
    """
    if not isinstance(client, list) or not isinstance(forwarded, list):
        return forwarded
    own = {id(message) for message in client}
    people = [m for m in client if _is_person(m)]
    person = len(people) - sum(1 for m in forwarded if _is_person(m))  # aligned at the newest (a fork keeps one)
    out = []
    for message in forwarded:
        counterpart = None
        if _is_person(message):
            counterpart = people[person] if 0 <= person < len(people) else None
            person += 1
        if id(message) in own or not isinstance(message, dict):
            out.append(message)
            continue
        out.append(_marked_like(message, counterpart))
    return out


def _is_person(message: Any) -> bool:
    return ANTHROPIC_MESSAGES.read_turn(message).is_user


def _marked_like(message: dict[str, Any], client: Any) -> dict[str, Any]:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    theirs = client.get("content") if isinstance(client, dict) else None
    markers = [b.get(CACHE_CONTROL) if isinstance(b, dict) else None for b in theirs] \
        if isinstance(theirs, list) and len(theirs) == len(content) else [None] * len(content)
    if not any(isinstance(b, dict) and CACHE_CONTROL in b for b in content) and not any(markers):
        return message
    blocks = []
    for block, marker in zip(content, markers):
        if isinstance(block, dict):
            block = {k: v for k, v in block.items() if k != CACHE_CONTROL}
            if marker is not None:
                block[CACHE_CONTROL] = marker
        blocks.append(block)
    return {**message, "content": blocks}
