"""A scripted tool-calling model for the fake upstream.

The script is a list of steps, one per round after the newest user message
(the round is the number of assistant tool-call messages after it). A step is
`{"calls": [{"name", "arguments"}], "content": "..."}` or `{"answer": "..."}`.
It comes from the `x-fake-script` request header (the proxy forwards client
headers), or is `DEFAULT_SCRIPT`: read the routed skill, list its files, answer.
`"{routed}"` in an argument is the first routed or activated skill's name.

Tool calls stream the way llama.cpp and OpenAI send them (name first, then
argument pieces) or, with `x-fake-whole: 1`, whole in one delta as Ollama does.
Every round reuses the ids `call_0`, `call_1`, ... on purpose: upstreams do,
and the proxy must give its calls ids of its own.
"""

from __future__ import annotations

import json
import re
from typing import Any

DEFAULT_SCRIPT = [
    {"content": "Let me read the skill.", "calls": [{"name": "read_skill_file", "arguments": {"skill": "{routed}"}}]},
    {"calls": [{"name": "list_skill_files", "arguments": {"skill": "{routed}"}}]},
    {"answer": "I read the skill and its files. Here is the answer."},
]
LOOPER = [{"calls": [{"name": "list_skills", "arguments": {"query": "anything"}}]}] * 100
ROUTED_NAME = re.compile(r"<n>([^<]+)</n>")


def script_for(body: dict[str, Any], headers: dict[str, str]) -> list[dict[str, Any]]:
    if body.get("model") == "tool-looper":
        return LOOPER
    raw = headers.get("x-fake-script")
    return json.loads(raw) if raw else DEFAULT_SCRIPT


def current_step(body: dict[str, Any], script: list[dict[str, Any]]) -> dict[str, Any]:
    messages = body.get("messages", [])
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    round_ = sum(1 for m in messages[last_user + 1:] if m.get("role") == "assistant" and m.get("tool_calls"))
    return script[min(round_, len(script) - 1)]


def routed_name(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    text = users[-1].get("content") if users else ""
    match = ROUTED_NAME.search(text if isinstance(text, str) else json.dumps(text))
    return match.group(1) if match else "no-routed-skill"


def _calls(step: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    calls = []
    for number, call in enumerate(step.get("calls", [])):
        arguments = {k: (routed_name(body) if v == "{routed}" else v) for k, v in call["arguments"].items()}
        calls.append({"id": f"call_{number}", "type": "function",
                      "function": {"name": call["name"], "arguments": json.dumps(arguments)}})
    return calls


def usage_for(body: dict[str, Any]) -> dict[str, int]:
    prompt = len(json.dumps(body.get("messages", []))) // 4
    return {"prompt_tokens": prompt, "completion_tokens": 7, "total_tokens": prompt + 7}


def completion(body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    step = current_step(body, script_for(body, headers))
    calls = _calls(step, body)
    message: dict[str, Any] = {"role": "assistant", "content": step.get("answer", step.get("content"))}
    if calls:
        message["tool_calls"] = calls
    round_id = f"chatcmpl-round-{len(body.get('messages', []))}"
    return {"id": round_id, "object": "chat.completion", "created": 1, "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": usage_for(body)}


def stream_events(body: dict[str, Any], headers: dict[str, str]) -> list[bytes]:
    step = current_step(body, script_for(body, headers))
    round_id = f"chatcmpl-round-{len(body.get('messages', []))}"
    text = step.get("answer", step.get("content")) or ""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": word} for word in re.findall(r"\S+\s*", text)]
    for index, call in enumerate(_calls(step, body)):
        deltas += _call_deltas(index, call, whole=headers.get("x-fake-whole") == "1")
    finish = "tool_calls" if step.get("calls") else "stop"
    events = [_chunk(round_id, d) for d in deltas] + [_chunk(round_id, {}, finish)]
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"id": round_id, "object": "chat.completion.chunk", "created": 1, "model": "fake", "choices": [],
                 "usage": usage_for(body)}
        events.append(b"data: " + json.dumps(usage).encode() + b"\n\n")
    return [*events, b"data: [DONE]\n\n"]


def _call_deltas(index: int, call: dict[str, Any], whole: bool) -> list[dict[str, Any]]:
    if whole:
        return [{"tool_calls": [{**call, "index": index}]}]
    arguments = call["function"]["arguments"]
    head = {"index": index, "id": call["id"], "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""}}
    half = len(arguments) // 2
    pieces = [arguments[:half], arguments[half:]]
    return [{"tool_calls": [head]}] + [{"tool_calls": [{"index": index, "function": {"arguments": p}}]} for p in pieces]


def _chunk(round_id: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {"id": round_id, "object": "chat.completion.chunk", "created": 1, "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(data).encode() + b"\n\n"
