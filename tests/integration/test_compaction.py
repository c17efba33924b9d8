"""Skills that survive compaction, through the real proxy: a client shortens a long conversation.

The real skill engine over the project's skills/, the real proxy under uvicorn, a
fake upstream that records every request. Five turns (turn 2 activates
`$conventional-commits`), then the client sends the history compacted: turns 1-3
replaced by a summary, turns 4-5 kept, a new turn 6.

- Chat Completions (openai SDK): the upstream gets turn 2's packet back once, in front of
  turn 4, byte for byte as it was forwarded in turn 2; the `request` log line says
  `compaction_detected`; the next request replays the same bytes and puts nothing back again.
- Anthropic Messages (Claude Code's shape: a summary in its wording, an attribution block in
  the system prompt that changes every request, the cache marker on the newest message): the same.
- Redis: the conversation on one proxy, the compacted history on another sharing only Redis (one more
  read for the compaction, none after it), and the next request back on the first.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from proxy.surfaces.anthropic_messages import without_cache_control

from .anthropic_upstream import AnthropicUpstream
from .engines import real_engine
from .test_anthropic_messages import marked_last, post, system_for

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
TURNS = [SQL, "$conventional-commits the login fix: session tokens now expire after 15 minutes",
         "make the subject line shorter", "add a body that explains why the expiry changed",
         "and put the ticket AUTH-42 in a footer"]
SUMMARY = ("Summary of the conversation so far: the user tuned a slow postgres query, then asked for a "
           "conventional commit message for the login fix (session tokens expire after 15 minutes).")
CLAUDE_SUMMARY = ("This session is being continued from a previous conversation that ran out of context. "
                  "The conversation is summarized below:\n" + SUMMARY.split(": ", 1)[1])
TURN_6 = "now the same for the logout fix: the refresh token is revoked on logout"
TURN_7 = "and the scope should be auth, not login"
PACKET = "<skill_invocation_packet "
BLOCK = '<skills_after_compaction dropped_turns="5" reinjected_packets="1">'


def answer_script(text: str) -> dict[str, str]:
    return {"x-fake-script": json.dumps([{"answer": text}])}


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def packet_in(forwarded_turn: str) -> str:
    """The packet a `$skill` turn was forwarded with: everything before its task payload."""
    return forwarded_turn[forwarded_turn.index(PACKET):forwarded_turn.index("\n\n<task_payload")]


def request_line(logs: Any, request_id: str) -> dict[str, Any]:
    return next(e for e in logs.events("request") if e["request_id"] == request_id)


# ---- Chat Completions --------------------------------------------------------------------------------

class ChatClient:
    """A Chat Completions client holding its history; each turn's forwarded body is kept."""

    def __init__(self, proxy: Any, upstream: Any) -> None:
        self.client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
        self.upstream = upstream
        self.history: list[dict[str, Any]] = []

    def send(self, messages: list[dict[str, Any]], answer: str) -> tuple[str, list[dict[str, Any]]]:
        """(the request id, the messages the upstream got); the answer joins `messages` as the history."""
        raw = self.client.chat.completions.with_raw_response.create(model="scripted", messages=messages,
                                                                   extra_headers=answer_script(answer))
        assert raw.http_response.status_code == 200
        forwarded = self.upstream.last().json["messages"]
        self.history = [*messages, {"role": "assistant", "content": raw.parse().choices[0].message.content}]
        return raw.headers["x-request-id"], forwarded

    def converse(self, texts: list[str]) -> list[list[dict[str, Any]]]:
        forwarded = []
        for number, text in enumerate(texts, 1):
            forwarded.append(self.send([*self.history, {"role": "user", "content": text}], f"answer {number}")[1])
        return forwarded


def compacted_chat(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turns 1-3 replaced by a summary, turns 4-5 kept, turn 6 new."""
    return [{"role": "user", "content": SUMMARY}, *history[6:10], {"role": "user", "content": TURN_6}]


@pytest.fixture
def engines() -> Iterator[Any]:
    made: list[Any] = []

    def make(**settings: Any) -> Any:
        made.append(real_engine(**settings))
        return made[-1]

    yield make
    for engine in made:
        engine.close()


def test_chat_the_packet_comes_back_once_where_the_compacted_history_resumes(start_proxy, upstream, logs, engines):
    proxy = start_proxy(engine=engines())
    chat = ChatClient(proxy, upstream)
    forwarded = chat.converse(TURNS)
    packet = packet_in(text_of(forwarded[1][-1]))
    request_id, sent = chat.send(compacted_chat(chat.history), "answer 6")
    assert [m["role"] for m in sent] == ["user", "user", "assistant", "user", "assistant", "user"]
    resumed = text_of(sent[1])
    assert resumed.startswith(BLOCK) and resumed.endswith(TURNS[3])
    assert packet in resumed, "turn 2's packet, byte for byte as it was forwarded then"
    assert json.dumps(sent).count(json.dumps(PACKET)[1:-1]) == 1, "once, and nowhere else"
    assert text_of(sent[-1]).endswith(TURN_6)
    line = request_line(logs, request_id)
    assert line["compaction_detected"] == {"dropped_turns": 5, "resumed_at": 1, "summary": True,
                                           "reinjected": ["conventional-commits:packet"],
                                           "chars": resumed.index("\n\n---\n\n")}
    assert logs.wait_for("compaction_detected", dropped_turns=5)["request_id"] == request_id
    kept = httpx.get(f"{proxy.url}/_skillproxy/api/requests/{request_id}", timeout=5).json()
    assert kept["line"]["compaction_detected"] == line["compaction_detected"], "the inspect page's copy"
    assert next(e for e in kept["events"] if e["event"] == "compaction_detected")["dropped_turns"] == 5

    next_id, following = chat.send([*chat.history, {"role": "user", "content": TURN_7}], "answer 7")
    assert following[: len(sent)] == sent, "the next request replays the compacted prompt byte for byte"
    assert json.dumps(following).count(json.dumps(PACKET)[1:-1]) == 1, "and puts nothing back again"
    assert "compaction_detected" not in request_line(logs, next_id)
    assert len(logs.events("compaction_detected")) == 1


def test_chat_a_new_conversation_with_a_history_is_not_a_compaction(start_proxy, upstream, logs, engines):
    proxy = start_proxy(engine=engines())
    chat = ChatClient(proxy, upstream)
    chat.converse(TURNS)
    stranger = ChatClient(proxy, upstream)
    request_id, sent = stranger.send(
        [{"role": "user", "content": SUMMARY}, {"role": "assistant", "content": "noted"},
         {"role": "user", "content": TURNS[2]}, {"role": "assistant", "content": "shorter: fix(auth): expire"},
         {"role": "user", "content": TURN_6}], "ok")
    assert "<skills_after_compaction" not in json.dumps(sent)
    assert "compaction_detected" not in request_line(logs, request_id)


def test_redis_the_compacted_history_on_another_proxy_finds_the_packet_there(
        start_proxy, upstream, logs, redis_server, engines):
    first, second = (start_proxy(engine=engines(state=redis_server.url)) for _ in range(2))
    chat = ChatClient(first, upstream)
    forwarded = chat.converse(TURNS)
    packet = packet_in(text_of(forwarded[1][-1]))
    redis = redis_server.client()
    redis.config_resetstat()
    other = ChatClient(second, upstream)
    request_id, sent = other.send(compacted_chat(chat.history), "answer 6")
    assert text_of(sent[1]).startswith(BLOCK) and packet in text_of(sent[1])
    assert request_line(logs, request_id)["compaction_detected"]["reinjected"] == ["conventional-commits:packet"]
    assert redis.info("commandstats")["cmdstat_mget"]["calls"] == 2, "the records, then the dropped packet"
    redis.config_resetstat()
    next_id, following = ChatClient(first, upstream).send([*other.history, {"role": "user", "content": TURN_7}],
                                                          "answer 7")
    assert following[: len(sent)] == sent, "the first proxy replays what the second forwarded"
    assert "compaction_detected" not in request_line(logs, next_id)
    assert redis.info("commandstats")["cmdstat_mget"]["calls"] == 1, "a request reads its records in one command"


# ---- Anthropic Messages -----------------------------------------------------------------------------

class ClaudeCode:
    """A client shaped like Claude Code: a changing attribution block, the cache marker on the newest message."""

    def __init__(self, proxy: Any, claude: AnthropicUpstream) -> None:
        self.proxy, self.claude = proxy, claude
        self.history: list[dict[str, Any]] = []
        self.requests = 0

    def send(self, messages: list[dict[str, Any]], answer: str) -> tuple[str, dict[str, Any]]:
        body = {"model": "m", "max_tokens": 64, "system": system_for(self.requests),
                "messages": marked_last(messages)}
        self.requests += 1
        response = post(self.proxy, body, **answer_script(answer))
        assert response.status_code == 200, response.text
        self.history = [*messages, {"role": "assistant", "content": response.json()["content"]}]
        return response.headers["x-request-id"], self.claude.messages()[-1].json

    def converse(self, texts: list[str]) -> list[dict[str, Any]]:
        return [self.send([*self.history, said(text)], f"answer {n}")[1] for n, text in enumerate(texts, 1)]


def said(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def test_anthropic_a_claude_code_summary_gets_the_packet_back_once(start_proxy, claude, logs, engines):
    proxy = start_proxy(engine=engines(), upstream=claude.url + "/v1")
    client = ClaudeCode(proxy, claude)
    forwarded = client.converse(TURNS)
    packet = packet_in(text_of(forwarded[1]["messages"][-1]))
    compacted = [said(CLAUDE_SUMMARY), *copy.deepcopy(client.history[6:10]), said(TURN_6)]
    request_id, sent = client.send(compacted, "answer 6")
    resumed = text_of(sent["messages"][1])
    assert resumed.startswith(BLOCK) and packet in resumed and resumed.endswith(TURNS[3])
    assert json.dumps(sent["messages"]).count(json.dumps(PACKET)[1:-1]) == 1
    assert sent["system"][0]["text"].endswith("2.1.5; cc_entrypoint=cli"), "the system prompt as the client sent it"
    assert request_line(logs, request_id)["compaction_detected"] == {
        "dropped_turns": 5, "resumed_at": 1, "summary": True, "reinjected": ["conventional-commits:packet"],
        "chars": resumed.index("\n\n---\n\n")}

    next_id, following = client.send([*client.history, said(TURN_7)], "answer 7")
    before, after = without_cache_control(sent["messages"]), without_cache_control(following["messages"])
    assert after[: len(before)] == before, "the next request replays the compacted prompt byte for byte"
    assert json.dumps(after).count(json.dumps(PACKET)[1:-1]) == 1
    assert "compaction_detected" not in request_line(logs, next_id)
