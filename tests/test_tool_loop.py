"""The tool loop over a scripted answer source: no HTTP server, the upstream's answers written out here."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

import httpx

from proxy.core.tools.rounds import ToolRounds
from proxy.surfaces.chat_tool_format import CHAT_TOOL_FORMAT
from proxy.surfaces.chat_tool_loop import CHAT_TOOL_LOOP
from proxy.tool_loop import ToolLoop
from proxy.upstream.client import UpstreamResponse

URL = "http://upstream.test/v1/chat/completions"
OURS = frozenset({"read_skill_file"})
TOOLS = [{"type": "function", "function": {"name": "get_weather"}},
         {"type": "function", "function": {"name": "read_skill_file"}}]
BASE = {"model": "m", "messages": [{"role": "user", "content": "q"}], "tools": TOOLS}


def call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{\"skill\": \"sql\"}"}}


def answer_bytes(tool_calls: list[dict[str, Any]] | None = None, content: str | None = "done",
                 usage: int = 1) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body = {"id": f"resp-{usage}", "choices": [{"index": 0, "message": message}], "usage": {"total_tokens": usage}}
    return json.dumps(body, separators=(",", ":")).encode()


def upstream_answer(raw: bytes) -> UpstreamResponse:
    response = httpx.Response(200, headers={"content-type": "application/json"}, content=raw,
                              request=httpx.Request("POST", URL))
    headers = list(response.headers.items())
    return UpstreamResponse(200, headers, URL, 1.0, response, base_url="http://upstream.test")


@dataclass
class _Result:
    content: str
    event: dict[str, Any]


class _SkillTools:
    def call(self, name: str, arguments: Any) -> _Result:
        return _Result(f"# {name}", {"tool": name, "ok": True})


class ScriptedUpstream:
    """Answers each round with the next scripted body, and keeps the bodies it was sent."""

    def __init__(self, *answers: bytes) -> None:
        self.answers = list(answers)
        self.sent: list[dict[str, Any]] = []

    async def send(self, body: dict[str, Any]) -> UpstreamResponse:
        self.sent.append(body)
        return upstream_answer(self.answers.pop(0))


def run_loop(first: bytes, upstream: ScriptedUpstream, max_rounds: int = 3) -> tuple[Any, ToolRounds]:
    ids = itertools.count()
    rounds = ToolRounds(_SkillTools(), OURS, max_rounds, lambda: f"call_skp_{next(ids)}")
    finished: list[ToolRounds] = []
    loop = ToolLoop(rounds, BASE, upstream.send, "http://upstream.test", finished.append, CHAT_TOOL_LOOP)

    async def guard(work: Any) -> Any:
        return await work

    response = asyncio.run(loop.complete(upstream_answer(first), guard))
    assert finished == [rounds], "the loop reports its rounds once, when it ends"
    return response, rounds


def test_an_answer_without_our_calls_is_the_upstreams_own_bytes():
    raw = answer_bytes(content="plain answer")
    response, rounds = run_loop(raw, ScriptedUpstream())
    assert response.body == raw and rounds.rounds == 0


def test_a_round_of_our_calls_sends_the_exchange_in_the_next_request():
    upstream = ScriptedUpstream(answer_bytes(content="the answer", usage=5))
    response, rounds = run_loop(answer_bytes([call("c0", "read_skill_file")], content=None, usage=2), upstream)
    (second,) = upstream.sent
    assistant, result = second["messages"][1:]
    assert second["messages"][0] == BASE["messages"][0] and second["tools"] == TOOLS
    assert assistant["tool_calls"][0]["id"] == "call_skp_0" and assistant["tool_calls"][0]["function"]["name"] == \
        "read_skill_file"
    assert result == {"role": "tool", "tool_call_id": "call_skp_0", "content": "# read_skill_file"}
    body = json.loads(response.body)
    assert body["id"] == "resp-2" and body["usage"] == {"total_tokens": 7} and rounds.rounds == 1
    assert body["choices"][0]["message"]["content"] == "the answer"


def test_after_the_last_allowed_round_our_tools_are_withdrawn():
    upstream = ScriptedUpstream(answer_bytes(content="answered without tools"))
    run_loop(answer_bytes([call("c0", "read_skill_file")]), upstream, max_rounds=1)
    (second,) = upstream.sent
    assert second["tools"] == TOOLS[:1], "only the client's tool is left"
    assert len(second["messages"]) == 3


def test_a_mixed_answer_shows_the_client_only_its_own_calls():
    mixed = answer_bytes([call("c0", "read_skill_file"), call("c1", "get_weather")], content=None)
    upstream = ScriptedUpstream()
    response, rounds = run_loop(mixed, upstream)
    calls = json.loads(response.body)["choices"][0]["message"]["tool_calls"]
    assert [c["id"] for c in calls] == ["c1"] and upstream.sent == []
    assert rounds.mixed is not None and rounds.mixed.client_call_ids == ("c1",)
    assistant = CHAT_TOOL_FORMAT.mixed_call(rounds.mixed).assistant
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["read_skill_file", "get_weather"]
