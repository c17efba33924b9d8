"""llama.cpp's C++ llama-server through the proxy: Chat Completions with skills, and Responses and Messages.

The C++ server (built by scripts/build_llama_server.py) serves /v1/responses, /v1/messages and
/v1/messages/count_tokens besides Chat Completions. The proxy preprocesses Chat Completions and Responses; the
other paths reach the server as the client sent them, so each is driven here with the real client
SDK (openai, anthropic) and compared with the same call made to the server directly. What the model
was given is read off the server's usage; its KV-cache reuse off the cached-token count it reports
(`prompt_tokens_details.cached_tokens`, `input_tokens_details.cached_tokens`,
`cache_read_input_tokens`). A 270M model's text is odd: nothing here asserts on wording.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx
import openai
import pytest

from .pair import MODEL_ALIAS, SKILLS, LlamaCppServer, ProxyServer, sdk

pytestmark = pytest.mark.real_model

SKILL_TASK = "$conventional-commits fix token expiry in login"
SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
SQL_AGAIN = "the slow query still does a seq scan after I added the index on user_id"
WEATHER = "What is the weather in Paris?"
HELLO = "Say hello in five words."
CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
RESPONSES_TOOL = {"type": "function", "name": "get_weather", "description": "Get the current weather in a city",
                  "parameters": CITY_SCHEMA}
MESSAGES_TOOL = {"name": "get_weather", "description": "Get the current weather in a city", "input_schema": CITY_SCHEMA}
# A system text long enough that a reused prefix is unmistakable in the cached-token count.
LONG_SYSTEM = "You are a careful assistant who answers briefly. " * 30
# Greedy decoding, so the same request says the same words direct and through the proxy. The anthropic
# SDK has no `temperature` argument on these methods: it goes in the body as it is.
GREEDY = {"temperature": 0}


def anthropic_sdk(url: str) -> anthropic.Anthropic:
    """The official anthropic SDK pointed at url (it adds /v1/messages), without retries."""
    return anthropic.Anthropic(base_url=url, api_key="sk-local", max_retries=0, timeout=180.0)


@pytest.fixture(scope="module")
def via_proxy(cpp_proxy: ProxyServer) -> openai.OpenAI:
    return sdk(cpp_proxy.base_url)


@pytest.fixture(scope="module")
def straight(llama_cpp_server: LlamaCppServer) -> openai.OpenAI:
    return sdk(llama_cpp_server.base_url)


@pytest.fixture(scope="module")
def claude_via_proxy(cpp_proxy: ProxyServer) -> anthropic.Anthropic:
    return anthropic_sdk(cpp_proxy.url)


@pytest.fixture(scope="module")
def claude_straight(llama_cpp_server: LlamaCppServer) -> anthropic.Anthropic:
    return anthropic_sdk(llama_cpp_server.url)


def chat(api: openai.OpenAI, messages: list[dict[str, str]], max_tokens: int = 8, **extra: Any) -> Any:
    return api.chat.completions.with_raw_response.create(model=MODEL_ALIAS, messages=messages,
                                                         max_tokens=max_tokens, temperature=0, **extra)


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


# --- Chat Completions: preprocessed ---------------------------------------------------------------------------


def test_dollar_skill_on_chat_completions_reaches_llama_server_as_a_packet(
        via_proxy: openai.OpenAI, straight: openai.OpenAI, llama_cpp_server: LlamaCppServer,
        cpp_proxy: ProxyServer, figures: dict[str, Any]) -> None:
    # tool_choice "none": the proxy answers inline (no skill tools), so what it adds is the packet alone;
    # with tools, llama-server's template lists them in the prompt too.
    baseline = chat(straight, user(SKILL_TASK), tool_choice="none").parse().usage.prompt_tokens
    raw = chat(via_proxy, user(SKILL_TASK), tool_choice="none")
    assert raw.headers["x-skills-route"] == "explicit:conventional-commits"
    through = raw.parse().usage.prompt_tokens
    added = through - baseline
    skill_md = (SKILLS / "conventional-commits" / "SKILL.md").read_text(encoding="utf-8")
    body = skill_md.split("\n---", 1)[1] if skill_md.startswith("---") else skill_md
    body_tokens = llama_cpp_server.count_tokens(body)
    # The whole SKILL.md body reached the model, inside a packet of bounded size ...
    assert body_tokens * 0.95 <= added <= body_tokens + 800, (baseline, through, body_tokens)
    # ... and the packet `skillproxy route` shows (worded there for the configured tool mode, so a few
    # tokens apart from the inline packet).
    packet_tokens = (llama_cpp_server.count_tokens(cpp_proxy.routed_injection(SKILL_TASK))
                     - llama_cpp_server.count_tokens(SKILL_TASK))
    assert abs(added - packet_tokens) <= 0.02 * packet_tokens, (added, packet_tokens)
    figures["llama-server chat $skill prompt_tokens"] = f"direct {baseline}, through proxy {through} (+{added})"


def test_a_routed_chat_turn_two_reuses_llama_servers_kv_cache(via_proxy: openai.OpenAI, straight: openai.OpenAI,
                                                             figures: dict[str, Any]) -> None:
    """The proxy replays turn 1 byte for byte, so the server finds all of it in its KV cache on turn 2."""
    baseline = chat(straight, user(SQL)).parse().usage.prompt_tokens
    first = chat(via_proxy, user(SQL), max_tokens=16)
    assert first.headers["x-skills-route"].startswith("sql-query-tuning=")
    first_usage = first.parse().usage
    assert first_usage.prompt_tokens > baseline + 20  # the routed block reached the model
    answer = first.parse().choices[0].message.content or ""
    second = chat(via_proxy, [*user(SQL), {"role": "assistant", "content": answer}, *user(SQL_AGAIN)], max_tokens=16)
    assert second.headers["x-skills-route"] == "reminder"
    second_usage = second.parse().usage
    cached = second_usage.prompt_tokens_details.cached_tokens
    assert second_usage.prompt_tokens > first_usage.prompt_tokens
    # Turn 1's prompt is a prefix of turn 2's, so the server reuses it: all but its last few tokens,
    # which llama-server evaluates again (Gemma 3's sliding-window attention keeps no cache past them).
    assert cached >= 0.9 * first_usage.prompt_tokens, (cached, first_usage.prompt_tokens)
    figures["llama-server chat routed conversation"] = (
        f"turn 1 direct {baseline} / proxy {first_usage.prompt_tokens} prompt tokens (routed); turn 2 "
        f"{second_usage.prompt_tokens} (reminder), {cached} of them cached")


# --- Responses: skills, as on Chat Completions --------------------------------------------------------------


def test_responses_get_the_packet_and_with_skills_off_nothing_is_added(via_proxy: openai.OpenAI,
                                                                      straight: openai.OpenAI,
                                                                      figures: dict[str, Any]) -> None:
    ask: dict[str, Any] = {"model": MODEL_ALIAS, "max_output_tokens": 16, "temperature": 0}
    through = via_proxy.responses.create(**ask, input=SKILL_TASK)
    direct = straight.responses.create(**ask, input=SKILL_TASK)
    assert through.object == "response" and through.status == "completed" and through.id.startswith("resp_")
    assert through.usage is not None and direct.usage is not None
    assert through.usage.input_tokens > direct.usage.input_tokens + 100, "the packet reached the model"
    assert through.usage.total_tokens == through.usage.input_tokens + through.usage.output_tokens
    off = via_proxy.responses.create(**ask, input=HELLO, extra_headers={"x-skills-mode": "off"})
    plain = straight.responses.create(**ask, input=HELLO)
    assert off.usage is not None and plain.usage is not None
    assert off.usage.input_tokens == plain.usage.input_tokens and off.output_text == plain.output_text
    figures["llama-server responses $skill"] = (
        f"direct {direct.usage.input_tokens} / proxy {through.usage.input_tokens} input tokens")


def test_a_streamed_response_arrives_as_semantic_events(via_proxy: openai.OpenAI) -> None:
    events = list(via_proxy.responses.create(model=MODEL_ALIAS, input=HELLO, max_output_tokens=16, temperature=0,
                                             stream=True))
    kinds = [event.type for event in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.output_item.added" in kinds and "response.output_text.delta" in kinds
    text = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    final = events[-1].response
    assert text and final.output_text == text
    assert final.usage is not None and final.usage.input_tokens > 0


def test_a_client_function_tool_comes_back_as_a_function_call_item(via_proxy: openai.OpenAI) -> None:
    """The SDK reads function_call items through the Responses surface, non-streamed and streamed; skills off, for
    the reason test_a_client_tool_comes_back_as_a_tool_use_block gives."""
    ask: dict[str, Any] = {"model": MODEL_ALIAS, "input": WEATHER, "tools": [RESPONSES_TOOL],
                           "tool_choice": "required", "max_output_tokens": 64, "temperature": 0,
                           "extra_headers": {"x-skills-mode": "off"}}
    answer = via_proxy.responses.create(**ask)
    calls = [item for item in answer.output if item.type == "function_call"]
    assert calls and calls[0].name == "get_weather" and calls[0].call_id
    assert "city" in json.loads(calls[0].arguments)
    streamed = list(via_proxy.responses.create(**ask, stream=True))
    kinds = {event.type for event in streamed}
    assert "response.function_call_arguments.delta" in kinds
    final = streamed[-1].response
    assert [item.type for item in final.output if item.type == "function_call"]


def test_responses_turn_two_reuses_llama_servers_kv_cache(via_proxy: openai.OpenAI, figures: dict[str, Any]) -> None:
    """Stateless Responses: turn 2 sends the whole history as items, and the server reuses turn 1's prompt."""
    # llama-server needs each item's "type" (OpenAI's own API infers "message").
    opening: list[Any] = [{"type": "message", "role": "user", "content": HELLO}]
    first = via_proxy.responses.create(model=MODEL_ALIAS, instructions=LONG_SYSTEM, input=opening,
                                       max_output_tokens=16, temperature=0)
    history = [*opening, {"type": "message", "role": "assistant", "content": first.output_text},
               {"type": "message", "role": "user", "content": "Again, in French."}]
    second = via_proxy.responses.create(model=MODEL_ALIAS, instructions=LONG_SYSTEM, input=history,
                                        max_output_tokens=16, temperature=0)
    assert first.usage is not None and second.usage is not None
    cached = second.usage.input_tokens_details.cached_tokens
    assert cached >= 0.9 * first.usage.input_tokens, (cached, first.usage.input_tokens)
    figures["llama-server responses 2 turns"] = (
        f"turn 1 {first.usage.input_tokens} input tokens; turn 2 {second.usage.input_tokens}, {cached} cached")


# --- Anthropic Messages: skills, as on Chat Completions -------------------------------------------------------


def test_messages_get_the_packet_and_with_skills_off_nothing_is_added(claude_via_proxy: anthropic.Anthropic,
                                                                     claude_straight: anthropic.Anthropic,
                                                                     figures: dict[str, Any]) -> None:
    ask: dict[str, Any] = {"model": MODEL_ALIAS, "max_tokens": 16, "extra_body": GREEDY}
    task = [{"role": "user", "content": SKILL_TASK}]
    through = claude_via_proxy.messages.create(**ask, messages=task)
    direct = claude_straight.messages.create(**ask, messages=task)
    assert through.type == "message" and through.role == "assistant"
    assert through.stop_reason in ("end_turn", "max_tokens", "tool_use")
    assert prompt_tokens(through) > prompt_tokens(direct) + 100, "the packet reached the model"
    hello = [{"role": "user", "content": HELLO}]
    off = claude_via_proxy.messages.create(**ask, messages=hello, extra_headers={"x-skills-mode": "off"})
    plain = claude_straight.messages.create(**ask, messages=hello)
    assert prompt_tokens(off) == prompt_tokens(plain)
    assert [b.text for b in off.content if b.type == "text"] == [b.text for b in plain.content if b.type == "text"]
    figures["llama-server messages $skill"] = (
        f"direct {prompt_tokens(direct)} / proxy {prompt_tokens(through)} prompt tokens")


def prompt_tokens(message: Any) -> int:
    """The whole prompt: llama-server counts the part it found in its KV cache apart from `input_tokens`."""
    return int(message.usage.input_tokens + (message.usage.cache_read_input_tokens or 0))


def test_a_streamed_message_arrives_as_anthropic_events(claude_via_proxy: anthropic.Anthropic) -> None:
    with claude_via_proxy.messages.stream(model=MODEL_ALIAS, max_tokens=16, extra_body=GREEDY,
                                          messages=[{"role": "user", "content": HELLO}]) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text
    assert [block.text for block in final.content if block.type == "text"] == [text]
    assert final.stop_reason in ("end_turn", "max_tokens")
    assert final.usage.output_tokens > 0


def test_a_client_tool_comes_back_as_a_tool_use_block(claude_via_proxy: anthropic.Anthropic) -> None:
    """The SDK reads tool_use blocks through the Messages surface, non-streamed and streamed. Skills are off for
    this one: with any block before the question, the 270M model repeats the prompt instead of calling the
    forced tool (llama-server does not hold it to the tool grammar); the proxy's tools beside the client's, and
    the client seeing only its own calls, are shown against a scripted upstream (test_anthropic_messages.py)."""
    ask: dict[str, Any] = {"model": MODEL_ALIAS, "max_tokens": 64, "extra_body": GREEDY, "tools": [MESSAGES_TOOL],
                           "tool_choice": {"type": "any"}, "messages": [{"role": "user", "content": WEATHER}],
                           "extra_headers": {"x-skills-mode": "off"}}
    answer = claude_via_proxy.messages.create(**ask)
    uses = [block for block in answer.content if block.type == "tool_use"]
    # The 270M model repeats the call until max_tokens, each a tool_use block of its own.
    assert answer.stop_reason in ("tool_use", "max_tokens")
    assert uses and uses[0].name == "get_weather" and uses[0].id and "city" in uses[0].input
    with claude_via_proxy.messages.stream(**ask) as stream:
        final = stream.get_final_message()
    names = {block.name for block in final.content if block.type == "tool_use"}
    assert names == {"get_weather"}


def test_count_tokens_counts_what_the_proxy_adds(claude_via_proxy: anthropic.Anthropic,
                                                claude_straight: anthropic.Anthropic) -> None:
    ask: dict[str, Any] = {"model": MODEL_ALIAS, "messages": [{"role": "user", "content": SKILL_TASK}],
                           "tools": [MESSAGES_TOOL]}
    through = claude_via_proxy.messages.count_tokens(**ask)
    direct = claude_straight.messages.count_tokens(**ask)
    off = claude_via_proxy.messages.count_tokens(**ask, extra_headers={"x-skills-mode": "off"})
    plain = claude_straight.messages.count_tokens(model=MODEL_ALIAS, messages=ask["messages"])
    assert through.input_tokens > direct.input_tokens + 100, "the packet (and the proxy's tools) are counted"
    assert off.input_tokens == direct.input_tokens > plain.input_tokens > 0  # the client's tool is counted


def test_messages_turn_two_reuses_llama_servers_kv_cache(claude_via_proxy: anthropic.Anthropic,
                                                        figures: dict[str, Any]) -> None:
    first = claude_via_proxy.messages.create(model=MODEL_ALIAS, system=LONG_SYSTEM, max_tokens=16, extra_body=GREEDY,
                                             messages=[{"role": "user", "content": HELLO}])
    reply = "".join(block.text for block in first.content if block.type == "text")
    second = claude_via_proxy.messages.create(
        model=MODEL_ALIAS, system=LONG_SYSTEM, max_tokens=16, extra_body=GREEDY,
        messages=[{"role": "user", "content": HELLO}, {"role": "assistant", "content": reply},
                  {"role": "user", "content": "Again, in French."}])
    cached = second.usage.cache_read_input_tokens or 0
    prompt_one = first.usage.input_tokens + (first.usage.cache_read_input_tokens or 0)
    assert cached >= 0.9 * prompt_one, (cached, first.usage)
    figures["llama-server messages 2 turns"] = (
        f"turn 1 {prompt_one} prompt tokens; turn 2 {second.usage.input_tokens} new + {cached} cached")


# --- Bad bodies: the proxy's own 400, in each surface's shape ---------------------------------------------------------


def test_a_responses_body_without_input_is_the_proxys_own_400(cpp_proxy: ProxyServer) -> None:
    through = httpx.post(cpp_proxy.url + "/v1/responses", json={"model": MODEL_ALIAS}, timeout=30)
    assert through.status_code == 400
    error = through.json()["error"]
    assert "`input`" in error["message"] and error["type"] == "invalid_request_error"


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
def test_a_messages_body_without_messages_is_the_proxys_own_400_in_anthropics_shape(
        path: str, llama_cpp_server: LlamaCppServer, cpp_proxy: ProxyServer) -> None:
    """llama-server answers such a body with a 500 in OpenAI's shape; an Anthropic client gets a 400 it can read."""
    body = {"model": MODEL_ALIAS, "max_tokens": 8}
    direct = httpx.post(llama_cpp_server.url + path, json=body, timeout=30)
    through = httpx.post(cpp_proxy.url + path, json=body, timeout=30)
    assert direct.status_code == 500
    assert through.status_code == 400
    answer = through.json()
    assert answer["type"] == "error" and answer["error"]["type"] == "invalid_request_error"
    assert "messages" in answer["error"]["message"]

