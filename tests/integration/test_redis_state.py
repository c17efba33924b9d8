"""Replay records in a real Redis (`state: redis://...`), shared by two proxies in front of one upstream.

- A conversation whose turns alternate between proxy A and proxy B (each with its own engine,
  sharing only Redis) forwards exactly what one proxy forwards: the proxy's tool rounds of
  turn 1 (run on A) are replayed by B, byte for byte, and nothing is recomputed. With
  in-memory state the same alternation loses them: that is what Redis is for.
- Redis stopped mid-conversation: every request still answers 200 (the proxy's own records
  keep its replays, others recompute), one `state_unavailable` warning, then
  `state_recovered` once Redis is back, and records reach Redis again.
- A password in the URL (right or wrong) never reaches a log line, the banner or a repr.
"""

from __future__ import annotations

import io
import json
import re
import time

import openai
import pytest

from proxy.cli.serve_cmd import print_banner
from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings, SettingsError

from .engines import real_engine
from .redis_server import RedisServer
from .test_skill_tool_loop import SQL, assert_extends, read, script

CALL_ID = re.compile(r"call_skp_[0-9a-f]{24}")
TURNS = [
    (SQL, [read("sql-query-tuning"), {"answer": "Add an index on (user_id, created_at)."}]),
    ("and the same query is still slow with the index, EXPLAIN shows a seq scan again",
     [read("sql-query-tuning", "references/index-cheatsheet.md"), {"answer": "Run ANALYZE."}]),
    ("write a conventional commit message for adding that index",
     [read("conventional-commits"), {"answer": "perf(db): add index"}]),
]


@pytest.fixture
def engines():
    made: list[SkillEngine] = []

    def make(**settings) -> SkillEngine:
        made.append(real_engine(**settings))
        return made[-1]

    yield make
    for engine in made:
        engine.close()


def converse(proxies, upstream, turns=TURNS) -> tuple[list[list[list[dict]]], list[str]]:
    """The turns, the n-th sent to proxies[n % len]; what the upstream got per turn, and the routes."""
    messages: list[dict] = []
    forwarded_per_turn, routes = [], []
    for number, (text, steps) in enumerate(turns):
        proxy = proxies[number % len(proxies)]
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
        upstream.clear()
        messages.append({"role": "user", "content": text})
        raw = client.chat.completions.with_raw_response.create(model="scripted", messages=messages,
                                                               extra_headers=script(*steps))
        assert raw.http_response.status_code == 200
        routes.append(raw.headers["x-skills-route"].split("=")[0])
        answer = raw.parse().choices[0].message.content
        forwarded_per_turn.append([r.json["messages"] for r in upstream.received])
        messages.append({"role": "assistant", "content": answer})
        if hasattr(proxy.engine.store, "flush"):
            proxy.engine.store.flush()  # queued writes sent before the next turn goes to the other proxy
    return forwarded_per_turn, routes


def breaks_in_prefix(forwarded_per_turn) -> list[str]:
    """Where a turn's first forwarded prompt does not extend the previous turn's last one."""
    breaks = []
    for number in range(1, len(forwarded_per_turn)):
        previous, first = forwarded_per_turn[number - 1][-1], forwarded_per_turn[number][0]
        try:
            assert_extends(first, previous, f"turn {number + 1}")
        except AssertionError as error:
            breaks.append(str(error))
    return breaks


def without_call_ids(forwarded) -> str:
    """The proxy names its tool calls with random ids; two separate runs differ only there."""
    return CALL_ID.sub("call_skp_ID", json.dumps(forwarded, ensure_ascii=False))


def test_turns_alternating_between_two_proxies_forward_what_one_proxy_forwards(
        start_proxy, upstream, logs, redis_server, engines):
    single = start_proxy(engine=engines())
    alone, alone_routes = converse([single], upstream)
    a = start_proxy(engine=engines(state=redis_server.url))
    b = start_proxy(engine=engines(state=redis_server.url))
    shared, routes = converse([a, b], upstream)
    assert routes == alone_routes == ["sql-query-tuning", "reminder", "conventional-commits"]
    assert breaks_in_prefix(shared) == []
    assert without_call_ids(shared) == without_call_ids(alone), "byte-identical to a single proxy"
    turn_one_tool_round = shared[0][-1][1:3]
    assert [m["role"] for m in turn_one_tool_round] == ["assistant", "tool"]
    assert shared[1][0][1:3] == turn_one_tool_round, "B replays the tool round A ran"
    assert logs.events("replay_recomputed") == []
    keys = redis_server.turn_keys()
    assert len(keys) >= 3
    assert 0 < redis_server.client().pttl(keys[0]) <= 86_400_000


def test_with_memory_state_the_other_proxy_cannot_replay_the_tool_rounds(start_proxy, upstream, logs, engines):
    a, b = start_proxy(engine=engines()), start_proxy(engine=engines())
    forwarded, routes = converse([a, b], upstream)
    assert routes[0] == "sql-query-tuning"
    assert len(breaks_in_prefix(forwarded)) == 2, "each turn lands on the proxy that did not run the last one"
    assert logs.events("replay_recomputed")


def test_redis_going_away_mid_conversation_costs_nothing_but_a_warning(
        start_proxy, upstream, logs, redis_server, engines):
    proxy = start_proxy(engine=engines(state=redis_server.url))
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
    messages: list[dict] = []
    forwarded: list[list[dict]] = []

    def turn(text: str) -> None:
        upstream.clear()
        messages.append({"role": "user", "content": text})
        answer = client.chat.completions.create(model="json", messages=messages)
        forwarded.append(upstream.received[-1].json["messages"])
        messages.append({"role": "assistant", "content": answer.choices[0].message.content})

    turn(SQL)
    proxy.engine.store.flush()
    assert len(redis_server.turn_keys()) == 1
    redis_server.stop()
    for text in ("is an index on (user_id) enough?", "and for the EXPLAIN output, which plan is better?"):
        turn(text)
    assert len(logs.events("state_unavailable")) == 1, "one warning for the outage, not one per request"
    warning = logs.events("state_unavailable")[0]
    assert warning["level"] == "warning" and warning["state"] == redis_server.url
    assert len(forwarded) == 3 and breaks_in_prefix([[f] for f in forwarded]) == []
    redis_server.start()
    deadline = time.monotonic() + 15
    while not logs.events("state_recovered") and time.monotonic() < deadline:
        turn("one more question about that index")
        proxy.engine.store.flush()
    assert logs.events("state_recovered"), "the store tries Redis again after a short pause"
    turn("and a last one")
    proxy.engine.store.flush()
    assert redis_server.turn_keys(), "records reach Redis again"
    assert breaks_in_prefix([[f] for f in forwarded]) == []


@pytest.mark.parametrize("configured", ["s3cret-redis-pass-8c1f", "wrong-redis-pass-51d2"])
def test_a_password_in_the_url_never_reaches_a_log_line_the_banner_or_a_repr(
        start_proxy, upstream, logs, tmp_path, engines, configured):
    server = RedisServer(tmp_path, password="s3cret-redis-pass-8c1f").start()
    try:
        url = f"redis://:{configured}@127.0.0.1:{server.port}/0"
        settings = Settings(state=url, roots=())
        proxy = start_proxy(engine=engines(state=url), state=url)
        if configured == "s3cret-redis-pass-8c1f":
            server.stop()  # the right password: make it fail by taking Redis away
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
        client.chat.completions.create(model="json", messages=[{"role": "user", "content": SQL}])
        client.chat.completions.create(model="json", messages=[{"role": "user", "content": SQL},
                                                               {"role": "assistant", "content": "ok"},
                                                               {"role": "user", "content": "and then?"}])
        warning = logs.wait_for("state_unavailable")
        assert warning["state"] == f"redis://:***@127.0.0.1:{server.port}/0"
        banner = io.StringIO()
        print_banner(settings, proxy.engine.startup_summary(), banner)
        assert f"redis://:***@127.0.0.1:{server.port}/0" in banner.getvalue()
        for text in (logs.text(), banner.getvalue(), repr(settings), repr(proxy.settings)):
            assert configured not in text
    finally:
        server.stop()


def test_a_redis_url_that_cannot_be_used_is_a_settings_error_naming_state():
    with pytest.raises(SettingsError, match="'state'") as error:
        SkillEngine.from_settings(Settings(state="redis://:hunter2-pass@localhost:port/0", roots=()), watch=False)
    assert "hunter2-pass" not in str(error.value)


def test_a_redis_that_is_down_at_start_is_said_in_the_banner_and_requests_go_through(
        start_proxy, upstream, logs, engines, tmp_path):
    url = f"redis://127.0.0.1:{RedisServer(tmp_path).port}/0"  # nothing listens there
    proxy = start_proxy(engine=engines(state=url))
    banner = io.StringIO()
    print_banner(proxy.settings, proxy.engine.startup_summary(), banner)
    assert f"state:    {url} (not reachable now: requests go through" in banner.getvalue()
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
    answer = client.chat.completions.with_raw_response.create(model="json", messages=[{"role": "user", "content": SQL}])
    assert answer.http_response.status_code == 200 and answer.headers["x-skills-route"].startswith("sql-query-tuning")
    assert logs.events("state_unavailable")[0]["state"] == url


def test_a_damaged_record_in_redis_is_recomputed_like_a_missing_one(start_proxy, upstream, logs, redis_server, engines):
    first = start_proxy(engine=engines(state=redis_server.url))
    client = openai.OpenAI(base_url=first.base_url, api_key="sk-test", max_retries=0)
    messages = [{"role": "user", "content": SQL}]
    client.chat.completions.create(model="json", messages=messages)
    turn_one = upstream.received[-1].json["messages"]
    for key in redis_server.turn_keys():
        redis_server.client().set(key, b'{"v": 1, "forwarded": "cut sho')
    second = start_proxy(engine=engines(state=redis_server.url))
    messages += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "is one index enough?"}]
    openai.OpenAI(base_url=second.base_url, api_key="sk-test", max_retries=0).chat.completions.create(
        model="json", messages=messages)
    assert upstream.received[-1].json["messages"][0] == turn_one[0], "recomputed to the same text"
    assert [e["turn_index"] for e in logs.events("replay_recomputed")] == [0]


def test_a_request_reads_all_its_records_in_one_command(start_proxy, upstream, redis_server, engines):
    proxy = start_proxy(engine=engines(state=redis_server.url))
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
    history = [{"role": "system", "content": "be brief"}]
    for text in (SQL, "is one index enough?", "and the EXPLAIN output?", "thanks, one more thing"):
        history.append({"role": "user", "content": text})
        history.append({"role": "assistant", "content": "ok"})
    redis_server.client().config_resetstat()
    client.chat.completions.create(model="json", messages=history[:-1])
    stats = redis_server.client().info("commandstats")
    assert stats["cmdstat_mget"]["calls"] == 1 and "cmdstat_get" not in stats
    assert stats["cmdstat_set"]["calls"] == 5, "the three recomputed turns, the new one, the newest exchange's skills"
    assert len(redis_server.turn_keys()) == 5


def test_a_redis_that_never_answers_costs_one_short_timeout_not_the_request(start_proxy, upstream, logs, engines):
    import socket

    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        proxy = start_proxy(engine=engines(state=url))
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(model="json",
                                                               messages=[{"role": "user", "content": SQL}])
    assert raw.http_response.status_code == 200
    assert raw.headers["x-skills-route"].startswith("sql-query-tuning"), "routed, not the scan-timeout fallback"
    warning = logs.wait_for("state_unavailable")
    assert "Timeout" in warning["error"] and logs.events("preprocess_fallback") == []


def test_the_newest_write_of_a_record_is_the_one_redis_keeps(redis_server):
    from proxy.core.turns.record_json import decode_record
    from proxy.core.turns.records import TurnRecord
    from proxy.state.redis_store import KEY_PREFIX, RedisTurnStore

    store = RedisTurnStore.from_settings(Settings(state=redis_server.url, roots=()))
    try:
        for n in range(50):
            queued, written = TurnRecord({"n": n, "v": "queued"}, "none"), TurnRecord({"n": n, "v": "now"}, "none")
            store.put_later(f"k{n}", queued, 1.0)
            assert store.get(f"k{n}", 1.0) == queued, "a queued record is read back before it reaches Redis"
            store.put(f"k{n}", written, 1.0)
        store.flush()
        kept = [decode_record(redis_server.client().get(f"{KEY_PREFIX}k{n}")).forwarded["v"] for n in range(50)]
        assert set(kept) == {"now"}
    finally:
        store.close()
