"""Skills reaching a real model: a `$skill` packet, a routed turn, the reminder, a change of topic.

What the model was given is read off the server's own `usage.prompt_tokens`
(the direct call is the baseline), and off its KV-cache log: a replayed
history lets llama.cpp reuse the previous turn's prompt.
"""

from __future__ import annotations

import re
import time
from typing import Any

import openai
import pytest

from .pair import MODEL_ALIAS, SKILLS, LlamaServer, ProxyServer, free_port, sdk

pytestmark = pytest.mark.real_model

SKILL_TASK = "$conventional-commits fix token expiry in login"
SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
SQL_AGAIN = "the slow query still does a seq scan after I added the index on user_id"
COMMIT = "now write a conventional commit message for: fix token expiry in login"


def ask(api: openai.OpenAI, messages: list[dict[str, str]], max_tokens: int = 8) -> Any:
    return api.chat.completions.with_raw_response.create(model=MODEL_ALIAS, messages=messages,
                                                         max_tokens=max_tokens, temperature=0)


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_dollar_skill_reaches_the_model_as_a_packet(client, direct, llama: LlamaServer, proxy: ProxyServer,
                                                    figures) -> None:
    baseline = ask(direct, user(SKILL_TASK)).parse().usage.prompt_tokens
    began = time.monotonic()
    raw = ask(client, user(SKILL_TASK))
    seconds = time.monotonic() - began
    assert raw.headers["x-skills-route"] == "explicit:conventional-commits"
    through = raw.parse().usage.prompt_tokens
    added = through - baseline

    skill_md = (SKILLS / "conventional-commits" / "SKILL.md").read_text(encoding="utf-8")
    body = skill_md.split("\n---", 1)[1] if skill_md.startswith("---") else skill_md
    body_tokens = llama.count_tokens(body) - 1  # less the BOS the count includes
    # The whole SKILL.md body reached the model, inside a packet of bounded size.
    assert body_tokens * 0.95 <= added <= body_tokens + 800, (baseline, through, body_tokens)
    # And exactly the packet `skillproxy route` shows: token for token.
    packet_tokens = llama.count_tokens(proxy.routed_injection(SKILL_TASK)) - llama.count_tokens(SKILL_TASK)
    assert abs(added - packet_tokens) <= 2, (added, packet_tokens)
    figures["$skill prompt_tokens"] = (f"direct {baseline}, through proxy {through} (+{added}; packet "
                                       f"{packet_tokens} tokens, SKILL.md body {body_tokens}); {seconds:.1f} s")


def prefix_hits(log: str) -> list[int]:
    return [int(n) for n in re.findall(r"Llama\.generate: (\d+) prefix-match hit", log)]


def test_routed_then_reminder_then_a_new_topic(client, direct, llama: LlamaServer, figures) -> None:
    assert llama.process is not None
    baseline = ask(direct, user(SQL)).parse().usage.prompt_tokens

    first = ask(client, user(SQL), max_tokens=16)
    assert first.headers["x-skills-route"].startswith("sql-query-tuning=")
    first_tokens = first.parse().usage.prompt_tokens
    assert first_tokens > baseline + 20  # the routed block reached the model
    answer = first.parse().choices[0].message.content or ""

    history = [*user(SQL), {"role": "assistant", "content": answer}, *user(SQL_AGAIN)]
    log_before = len(llama.process.log_text())
    second = ask(client, history, max_tokens=16)
    assert second.headers["x-skills-route"] == "reminder"
    second_tokens = second.parse().usage.prompt_tokens
    assert second_tokens > first_tokens
    # The first turn was replayed byte for byte, so the server reused its whole prompt from the KV cache.
    hits = prefix_hits(llama.process.log_text()[log_before:])
    assert hits and hits[-1] >= first_tokens - 2, (hits, first_tokens)
    # The reminder is one line, not the routed block again.
    reminder_cost = second_tokens - first_tokens - llama.count_tokens(answer + SQL_AGAIN)
    assert reminder_cost < first_tokens - baseline, (reminder_cost, first_tokens - baseline)

    answer2 = second.parse().choices[0].message.content or ""
    third = ask(client, [*history, {"role": "assistant", "content": answer2}, *user(COMMIT)])
    assert third.headers["x-skills-route"].startswith("conventional-commits=")
    third_tokens = third.parse().usage.prompt_tokens
    assert third_tokens > second_tokens
    figures["routed conversation prompt_tokens"] = (
        f"turn 1 direct {baseline} / proxy {first_tokens} (routed), turn 2 {second_tokens} (reminder, "
        f"{hits[-1]} reused from the KV cache), turn 3 {third_tokens} (new topic)")


@pytest.fixture(scope="module")
def server_mode_proxy(llama: LlamaServer, real_dir) -> Any:
    proxy = ProxyServer(llama.base_url, free_port(), real_dir / "proxy-server-mode", settings={"tool_mode": "server"})
    try:
        yield proxy.start()
    finally:
        proxy.stop()


def test_tool_mode_server_still_answers(server_mode_proxy: ProxyServer) -> None:
    """The proxy offers its skill tools to a server/model that may not do tool calls; the client gets an answer.

    llama-cpp-python's server with a plain chat format ignores `tools`; a server that refuses them
    with a 4xx makes the proxy log `upstream_rejected_tools` and answer inline instead.
    """
    client = sdk(server_mode_proxy.base_url)
    raw = ask(client, user(SQL), max_tokens=12)
    assert raw.http_response.status_code == 200
    assert raw.headers["x-skills-route"].startswith("sql-query-tuning=")
    assert raw.parse().choices[0].message.content
    streamed = client.chat.completions.create(model=MODEL_ALIAS, messages=user(SQL_AGAIN), max_tokens=12,
                                              temperature=0, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
    server_mode_proxy.wait_for("request", path="/v1/chat/completions", stream=True)
    requests = [e for e in server_mode_proxy.events("request") if e.get("path") == "/v1/chat/completions"]
    assert len(requests) >= 2 and all(e.get("status") == 200 for e in requests), requests
    refused = server_mode_proxy.events("upstream_rejected_tools")
    if refused:  # the server said no to tools: from then on this model is served inline
        assert refused[0]["model"] == MODEL_ALIAS
        assert requests[-1].get("tool_mode") == "inline", requests[-1]
    else:  # the server took the tools (llama-cpp-python ignores them) and the proxy ran its loop
        assert all(e.get("tool_mode") == "server" for e in requests), requests
