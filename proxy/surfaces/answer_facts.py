"""What an upstream's answer says about itself, on each surface: its id, model, finish reasons, tokens, text.

What lives here: `AnswerFacts`, filled as an answer is read, and one reader
per wire format (`FACT_READERS`, by the surface's name) that takes a whole
answer's JSON (`whole`) or one event or line of a streamed one (`event`):
Chat Completions (`choices[].finish_reason`, `usage.prompt_tokens` /
`completion_tokens`, the usage chunk at the end of a stream), Responses (the
response object, whole or in `response.created` / `response.completed`),
Anthropic Messages (`stop_reason`, `usage` with cached input counted in;
`message_start` and `message_delta` in a stream) and Ollama's `/api/chat`
(`done_reason`, `prompt_eval_count`, `eval_count` on the last line).
`may_matter` is a cheap look at an event's bytes, so that an event that
cannot hold any of it is never parsed when its text is not wanted.

The tracer reads these for a chat span's `gen_ai.response.*` and
`gen_ai.usage.*` attributes (see `proxy.tracing`); nothing else needs them.

What must not: change an answer, read one from the network, or know about spans.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class AnswerFacts:
    response_id: str | None = None
    model: str | None = None
    finish_reasons: list[str] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    text: list[str] = field(default_factory=list)  # the answer's text, read only when it is wanted
    error: str | None = None  # an error the stream carried after it began

    def finished(self, reason: Any) -> None:
        if isinstance(reason, str) and reason:
            self.finish_reasons.append(reason)

    def named(self, response_id: Any, model: Any) -> None:
        if self.response_id is None and isinstance(response_id, str) and response_id:
            self.response_id = response_id
        if isinstance(model, str) and model:
            self.model = model


class FactReader(Protocol):
    def whole(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        """A non-streamed answer's JSON object."""
        ...

    def event(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        """One event (or NDJSON line) of a streamed answer, as its JSON object."""
        ...

    def may_matter(self, raw: bytes) -> bool:
        """False when the event's bytes cannot hold an id, a finish, usage or an error."""
        ...


_NULL_FINISH = re.compile(rb'"finish_reason"\s*:\s*null')
_DONE = re.compile(rb'"done"\s*:\s*true')


def _tokens(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sum_tokens(*values: Any) -> int | None:
    counted = [n for n in (_tokens(v) for v in values) if n is not None]
    return sum(counted) if counted else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _choices(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    choices = data.get("choices")
    return [c for c in choices if isinstance(c, Mapping)] if isinstance(choices, list) else []


class ChatFacts:
    """Chat Completions: `id`, `model`, each choice's `finish_reason`, `usage`."""

    def whole(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        self._read(data, facts, text, "message")

    def event(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        self._read(data, facts, text, "delta")  # a stream's chunk holds its choices' text in `delta`

    def _read(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool, holder: str) -> None:
        facts.named(data.get("id"), data.get("model"))
        for choice in _choices(data):
            facts.finished(choice.get("finish_reason"))
            content = _mapping(choice.get(holder)).get("content")
            if text and isinstance(content, str):
                facts.text.append(content)
        self._usage(data, facts)
        _error(data, facts)

    def may_matter(self, raw: bytes) -> bool:
        return (b'"usage"' in raw or b'"error"' in raw
                or (b'"finish_reason"' in raw and _NULL_FINISH.search(raw) is None))

    @staticmethod
    def _usage(data: Mapping[str, Any], facts: AnswerFacts) -> None:
        usage = data.get("usage")
        if isinstance(usage, Mapping):  # a stream's usage chunk holds the whole answer's: the last one wins
            facts.input_tokens = _tokens(usage.get("prompt_tokens"))
            facts.output_tokens = _tokens(usage.get("completion_tokens"))


RESPONSE_EVENTS = (b"response.created", b"response.completed", b"response.incomplete", b"response.failed")


class ResponsesFacts:
    """OpenAI Responses: the response object (`status`, `output`, `usage.input_tokens` / `output_tokens`)."""

    def whole(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        facts.named(data.get("id"), data.get("model"))
        usage = _mapping(data.get("usage"))
        if usage:
            facts.input_tokens = _tokens(usage.get("input_tokens"))
            facts.output_tokens = _tokens(usage.get("output_tokens"))
        output = [item for item in data.get("output") or () if isinstance(item, Mapping)]
        facts.finished(_responses_finish(data, output))
        if text:
            facts.text.extend(part["text"] for item in output if item.get("type") == "message"
                              for part in item.get("content") or () if isinstance(part, Mapping)
                              and part.get("type") == "output_text" and isinstance(part.get("text"), str))
        _error(data, facts)

    def event(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        kind = data.get("type")
        response = _mapping(data.get("response"))
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            self.whole(response, facts, text)
        elif response:
            facts.named(response.get("id"), response.get("model"))
        elif kind == "error":
            facts.error = str(data.get("code") or "stream_error")

    def may_matter(self, raw: bytes) -> bool:
        return any(kind in raw for kind in RESPONSE_EVENTS) or b'"error"' in raw


def _responses_finish(data: Mapping[str, Any], output: list[Mapping[str, Any]]) -> str | None:
    """A response's finish, in Chat's words where they fit: stop, tool_calls, or why it is incomplete."""
    status = data.get("status")
    if status == "incomplete":
        return str(_mapping(data.get("incomplete_details")).get("reason") or "incomplete")
    if status == "failed":
        return "error"
    if status != "completed":
        return None
    return "tool_calls" if any(item.get("type") == "function_call" for item in output) else "stop"


class MessagesFacts:
    """Anthropic Messages: `id`, `model`, `stop_reason`, `usage` (cache reads and writes are input too)."""

    def whole(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        facts.named(data.get("id"), data.get("model"))
        facts.finished(data.get("stop_reason"))
        self._usage(_mapping(data.get("usage")), facts)
        if text:
            facts.text.extend(block["text"] for block in data.get("content") or () if isinstance(block, Mapping)
                              and block.get("type") == "text" and isinstance(block.get("text"), str))
        if data.get("type") == "error":
            facts.error = str(_mapping(data.get("error")).get("type") or "stream_error")

    def event(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        kind = data.get("type")
        if kind == "message_start":
            self.whole(_mapping(data.get("message")), facts, text)
        elif kind == "message_delta":
            facts.finished(_mapping(data.get("delta")).get("stop_reason"))
            self._usage(_mapping(data.get("usage")), facts)
        elif kind == "content_block_delta" and text:
            delta = _mapping(data.get("delta"))
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                facts.text.append(delta["text"])
        elif kind == "error":
            facts.error = str(_mapping(data.get("error")).get("type") or "stream_error")

    def may_matter(self, raw: bytes) -> bool:
        return b"message_start" in raw or b"message_delta" in raw or b'"error"' in raw

    @staticmethod
    def _usage(usage: Mapping[str, Any], facts: AnswerFacts) -> None:
        """A message_delta's counts are the whole answer's so far: they replace the start's."""
        if not usage:
            return
        input_tokens = _sum_tokens(usage.get("input_tokens"), usage.get("cache_creation_input_tokens"),
                                   usage.get("cache_read_input_tokens"))
        if input_tokens is not None:
            facts.input_tokens = input_tokens
        if _tokens(usage.get("output_tokens")) is not None:
            facts.output_tokens = _tokens(usage.get("output_tokens"))


class OllamaFacts:
    """Ollama's `/api/chat`: `model`, and on the last line `done_reason`, `prompt_eval_count`, `eval_count`."""

    def whole(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        facts.named(None, data.get("model"))
        if text:
            content = _mapping(data.get("message")).get("content")
            if isinstance(content, str) and content:
                facts.text.append(content)
        if data.get("done") is True:
            facts.finished(data.get("done_reason"))
            facts.input_tokens = _tokens(data.get("prompt_eval_count"))
            facts.output_tokens = _tokens(data.get("eval_count"))
        if isinstance(data.get("error"), str):
            facts.error = "stream_error"

    def event(self, data: Mapping[str, Any], facts: AnswerFacts, text: bool) -> None:
        self.whole(data, facts, text)

    def may_matter(self, raw: bytes) -> bool:
        return _DONE.search(raw) is not None or b'"error"' in raw


def _error(data: Mapping[str, Any], facts: AnswerFacts) -> None:
    error = data.get("error")
    if error:
        facts.error = str(_mapping(error).get("code") or _mapping(error).get("type") or "stream_error")


CHAT_FACTS = ChatFacts()
FACT_READERS: dict[str, FactReader] = {
    "chat_completions": CHAT_FACTS,
    "responses": ResponsesFacts(),
    "messages": MessagesFacts(),
    "ollama_chat": OllamaFacts(),
}
