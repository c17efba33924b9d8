"""The values of the OpenTelemetry GenAI semantic conventions that the proxy's spans carry, in plain Python.

What lives here: the attribute names (`gen_ai.*`), `provider_name` (the
`gen_ai.provider.name` of an upstream: the configured one, else what its
host, its name or its port tells, else the wire format's owner),
`request_attributes` (the model and the sampling parameters a request
sets), `answer_attributes` (what an answer said about itself: id, model,
finish reasons, tokens) and, only when content capture is on, the
conversation and the answer as the conventions' `gen_ai.input.messages`,
`gen_ai.system_instructions` and `gen_ai.output.messages` (JSON text: role
and parts).

What must not: import OpenTelemetry, or read or write a wire format (the
surfaces read the request into a `Conversation`, and the answer into
`AnswerFacts`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from proxy.core.turns.conversation import Conversation, OpaquePart, TextPart, ToolCallPart, ToolResultPart, Turn
from proxy.surfaces.answer_facts import AnswerFacts

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_ID = "gen_ai.response.id"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_NAME = "gen_ai.tool.name"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"

# Hosted APIs, by host (a suffix of it), with the conventions' own names.
KNOWN_HOSTS = (("api.openai.com", "openai"), ("openai.azure.com", "azure.ai.openai"),
               ("api.anthropic.com", "anthropic"), ("api.mistral.ai", "mistral_ai"), ("api.groq.com", "groq"),
               ("api.deepseek.com", "deepseek"), ("api.x.ai", "x_ai"), ("api.perplexity.ai", "perplexity"),
               ("generativelanguage.googleapis.com", "gcp.gemini"))
# Local servers, by a word in the upstream's name or host, then by their default port.
KNOWN_WORDS = (("ollama", "ollama"), ("llama.cpp", "llama.cpp"), ("llamacpp", "llama.cpp"),
               ("llama-cpp", "llama.cpp"), ("llama-server", "llama.cpp"), ("vllm", "vllm"), ("lmstudio", "lm_studio"),
               ("lm-studio", "lm_studio"), ("lm_studio", "lm_studio"), ("openrouter", "openrouter"))
DEFAULT_PORTS = {11434: "ollama", 1234: "lm_studio", 8080: "llama.cpp", 8000: "vllm"}
WIRE_OWNERS = {"messages": "anthropic", "ollama_chat": "ollama"}  # else OpenAI's wire: "openai"
MAX_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "num_predict")


def provider_name(configured: str | None, upstream_name: str, base_url: str, surface: str) -> str:
    """`gen_ai.provider.name` for requests to an upstream on a surface."""
    if configured:
        return configured
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    for suffix, name in KNOWN_HOSTS:
        if host == suffix or host.endswith("." + suffix):
            return name
    for word, name in KNOWN_WORDS:
        if word in upstream_name.lower() or word in host:
            return name
    try:
        port = parts.port
    except ValueError:
        port = None
    if port in DEFAULT_PORTS:
        return DEFAULT_PORTS[port]
    return WIRE_OWNERS.get(surface, "openai")


def request_attributes(body: Mapping[str, Any]) -> dict[str, Any]:
    """The request's model and sampling parameters, where it sets them (Ollama's under `options`)."""
    options = body.get("options")
    values = {**(options if isinstance(options, Mapping) else {}), **body}
    attributes: dict[str, Any] = {OPERATION: "chat"}
    if isinstance(body.get("model"), str):
        attributes[REQUEST_MODEL] = body["model"]
    for key, name in (("temperature", "gen_ai.request.temperature"), ("top_p", "gen_ai.request.top_p")):
        if _number(values.get(key)):
            attributes[name] = values[key]
    max_tokens = next((values[key] for key in MAX_TOKEN_KEYS if _number(values.get(key))), None)
    if max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = max_tokens
    return attributes


def answer_attributes(facts: AnswerFacts, capture: bool) -> dict[str, Any]:
    """What the answer said about itself; its text too when `capture`."""
    attributes: dict[str, Any] = {}
    if facts.response_id:
        attributes[RESPONSE_ID] = facts.response_id
    if facts.model:
        attributes[RESPONSE_MODEL] = facts.model
    if facts.finish_reasons:
        attributes[FINISH_REASONS] = facts.finish_reasons
    if facts.input_tokens is not None:
        attributes[INPUT_TOKENS] = facts.input_tokens
    if facts.output_tokens is not None:
        attributes[OUTPUT_TOKENS] = facts.output_tokens
    if capture and (facts.text or facts.finish_reasons):
        message = {"role": "assistant", "parts": [{"type": "text", "content": "".join(facts.text)}],
                   "finish_reason": facts.finish_reasons[-1] if facts.finish_reasons else "stop"}
        attributes[OUTPUT_MESSAGES] = _json([message])
    return attributes


def input_attributes(conversation: Conversation) -> dict[str, str]:
    """The conversation as sent upstream: `gen_ai.input.messages`, and `gen_ai.system_instructions`."""
    attributes = {INPUT_MESSAGES: _json([_message(turn) for turn in conversation.turns])}
    if conversation.system is not None:
        attributes[SYSTEM_INSTRUCTIONS] = _json([{"type": "text", "content": conversation.system.text}])
    return attributes


def _message(turn: Turn) -> dict[str, Any]:
    """A turn's parts; a tool turn's text is its result's, already in the result part."""
    parts = [part for part in turn.parts if not (turn.role == "tool" and isinstance(part, TextPart))]
    return {"role": turn.role, "parts": [_part(part) for part in parts]}


def _part(part: Any) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "content": part.text}
    if isinstance(part, ToolCallPart):
        return {"type": "tool_call", "id": part.id, "name": part.name, "arguments": part.arguments}
    if isinstance(part, ToolResultPart):
        return {"type": "tool_call_response", "id": part.call_id, "response": part.raw}
    raw = part.raw if isinstance(part, OpaquePart) else None
    kind = raw.get("type") if isinstance(raw, Mapping) else None
    return {"type": str(kind or "opaque")}  # an image or a file: named, never copied into the span


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
