"""The GenAI conventions' values: the provider an upstream is, a request's parameters, a conversation's messages."""

from __future__ import annotations

import json

import pytest

from proxy.surfaces.answer_facts import AnswerFacts
from proxy.surfaces.anthropic_messages import read_request
from proxy.surfaces.chat_messages import read_messages
from proxy.tracing.genai import answer_attributes, input_attributes, provider_name, request_attributes


@pytest.mark.parametrize("configured, name, base_url, surface, expected", [
    ("my-gateway", "default", "https://api.openai.com/v1", "chat_completions", "my-gateway"),
    (None, "default", "https://api.openai.com/v1", "chat_completions", "openai"),
    (None, "default", "https://eastus.openai.azure.com/openai/v1", "chat_completions", "azure.ai.openai"),
    (None, "default", "https://api.anthropic.com/v1", "messages", "anthropic"),
    (None, "default", "http://127.0.0.1:11434/v1", "chat_completions", "ollama"),
    (None, "gpu-box", "http://ollama.internal:8000/v1", "responses", "ollama"),  # its host's word, before the port
    (None, "llama-server", "http://10.0.0.5:9999/v1", "chat_completions", "llama.cpp"),
    (None, "default", "http://127.0.0.1:8080/v1", "chat_completions", "llama.cpp"),
    (None, "default", "http://127.0.0.1:8000/v1", "chat_completions", "vllm"),
    (None, "lmstudio", "http://127.0.0.1:4321/v1", "chat_completions", "lm_studio"),
    (None, "default", "http://127.0.0.1:5555/v1", "messages", "anthropic"),
    (None, "default", "http://127.0.0.1:5555/v1", "ollama_chat", "ollama"),
    (None, "default", "http://127.0.0.1:5555/v1", "chat_completions", "openai"),
])
def test_the_provider_is_the_configured_one_else_what_the_upstream_tells(configured, name, base_url, surface,
                                                                          expected):
    assert provider_name(configured, name, base_url, surface) == expected


def test_a_requests_model_and_sampling_parameters_wherever_its_wire_keeps_them():
    assert request_attributes({"model": "gpt-x", "temperature": 0.2, "top_p": 1, "max_completion_tokens": 50}) == {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-x", "gen_ai.request.temperature": 0.2,
        "gen_ai.request.top_p": 1, "gen_ai.request.max_tokens": 50}
    ollama = request_attributes({"model": "llama3", "options": {"temperature": 0, "num_predict": 9}})
    assert ollama["gen_ai.request.temperature"] == 0 and ollama["gen_ai.request.max_tokens"] == 9
    assert request_attributes({"model": ["odd"], "temperature": True}) == {"gen_ai.operation.name": "chat"}


def test_a_conversation_becomes_input_messages_with_tool_calls_and_results():
    conversation = read_messages([
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {
            "url": "data:image/png;base64,AAAA"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ])
    attributes = input_attributes(conversation)
    assert json.loads(attributes["gen_ai.system_instructions"]) == [{"type": "text", "content": "be brief"}]
    user, assistant, tool = json.loads(attributes["gen_ai.input.messages"])
    assert user == {"role": "user", "parts": [{"type": "text", "content": "look"}, {"type": "image_url"}]}
    assert "AAAA" not in attributes["gen_ai.input.messages"], "an image is named, never copied"
    assert assistant["parts"] == [{"type": "tool_call", "id": "c1", "name": "get_weather",
                                   "arguments": '{"city":"Paris"}'}]
    assert tool == {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "sunny"}]}


def test_anthropics_system_prompt_is_the_system_instructions():
    conversation = read_request({"system": "you are terse", "messages": [{"role": "user", "content": "hi"}]})
    attributes = input_attributes(conversation)
    assert json.loads(attributes["gen_ai.system_instructions"])[0]["content"] == "you are terse"
    assert json.loads(attributes["gen_ai.input.messages"]) == [{"role": "user",
                                                               "parts": [{"type": "text", "content": "hi"}]}]


def test_an_answers_facts_become_attributes_and_its_text_only_when_captured():
    facts = AnswerFacts("r1", "m", ["stop"], 10, 4, ["Hel", "lo"])
    plain = answer_attributes(facts, capture=False)
    assert plain == {"gen_ai.response.id": "r1", "gen_ai.response.model": "m", "gen_ai.response.finish_reasons": [
        "stop"], "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 4}
    captured = answer_attributes(facts, capture=True)
    assert json.loads(captured["gen_ai.output.messages"]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Hello"}], "finish_reason": "stop"}]
    assert answer_attributes(AnswerFacts(), capture=True) == {}
