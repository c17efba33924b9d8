"""bench/perf_bench.py's pieces, without wrk or LiteLLM: bodies, wrk's figures, the TTFB client, the report.

The bare passthrough runs for real (uvicorn on 127.0.0.1) in front of the load
upstream: what it forwards must be byte-identical, and the TTFB client must see
the first event long before the end of a paced stream (it is not buffered). The
load upstream's answers on each surface are read through the real proxy by each
API's official client, so the benchmark measures answers the proxy parses.
"""

from __future__ import annotations

import copy
import json
import re

import anthropic
import httpx
import ollama
import openai
import pytest
import yaml

from bench import perf_bench, perf_load, surface_answers
from bench.bare_passthrough import create_app
from bench.load_upstream import LoadUpstream, expected_stream
from bench.perf_report import Where, error_count, goals, missed_where, report, surface_table, table, workers_table
from proxy.app import create_app as create_proxy
from proxy.settings import Settings
from tests.conftest import REPO
from tests.integration.engines import real_engine
from tests.integration.servers import ServerThread

WRK_OUTPUT = """Running 2s test @ http://127.0.0.1:1/v1/chat/completions
  1 threads and 32 connections
WRKJSON {"requests":2400,"duration_us":2000000,"p50_us":1250,"p99_us":9800,"max_us":20000,\
"errors":{"connect":0,"read":1,"write":0,"status":2,"timeout":0}}
"""


@pytest.mark.parametrize("surface", perf_load.SURFACES, ids=lambda surface: surface.name)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_the_lua_script_posts_the_same_bodies_as_the_surface_builds(tmp_path, surface, stream):
    script = perf_load.lua_script(tmp_path, "c32-s", perf_load.ALWAYS, surface=surface).read_text(encoding="utf-8")
    assert "$" not in script and "local mode, counter = 1, 0" in script
    prefix = re.search(r"local prefix = '(.*)'\n", script).group(1)
    plain_tail, stream_tail = re.search(r"local plain_tail, stream_tail = '(.*)', '(.*)'\n", script).groups()
    lua_body = (prefix + "7" + (stream_tail if stream else plain_tail)).encode()
    assert lua_body == surface.body("c32-s", 7, stream=stream)
    body = json.loads(lua_body)
    assert surface_answers.streams(surface.path, body) is stream
    assert surface_answers.event_count(surface.path, body) == perf_load.EVENTS
    text = body["input"] if surface is perf_load.RESPONSES else body["messages"][0]["content"]
    assert text.endswith("(c32-s 7)")


def test_chat_body_is_the_chat_surfaces_body():
    assert perf_load.chat_body("t", 3, True) == perf_load.CHAT.body("t", 3, True)
    assert json.loads(perf_load.chat_body("t", 3, False)) == {
        "model": "load", "max_tokens": 8, "messages": [{"role": "user", "content": f"{perf_load.MESSAGE} (t 3)"}]}


def test_parse_wrk_reads_the_done_line():
    result = perf_load.parse_wrk(WRK_OUTPUT)
    assert (result.requests, result.p50_ms, result.p99_ms, result.errors) == (2400, 1.25, 9.8, 3)
    assert result.rps == 1200
    with pytest.raises(RuntimeError, match="no figures"):
        perf_load.parse_wrk("unable to connect to 127.0.0.1:1 Connection refused")


def test_without_wrk_the_bench_names_the_package(monkeypatch, capsys):
    monkeypatch.setattr(perf_load.shutil, "which", lambda name: None)
    assert perf_bench.main(["--quick", "--skip-litellm"]) == 2
    assert "apt-get install -y wrk" in capsys.readouterr().err


def test_bare_passthrough_forwards_streams_byte_identical_and_unbuffered():
    with ServerThread(LoadUpstream(gap=0.05)) as upstream, ServerThread(create_app(upstream.url)) as bare:
        body = perf_load.chat_body("smoke", 1, stream=True, events=6)
        with httpx.stream("POST", bare.url + "/v1/chat/completions", content=body,
                          headers={"content-type": "application/json"}, timeout=30) as answer:
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("text/event-stream")
            assert b"".join(answer.iter_raw()) == expected_stream(0, 6)
        plain = httpx.post(bare.url + "/v1/chat/completions", content=perf_load.chat_body("smoke", 2, False))
        assert plain.json()["choices"][0]["message"]["content"] == "ok"
        (first, whole), = perf_load.stream_times(bare.port, perf_load.CHAT, "smoke", 1, events=6)
    assert whole >= 0.35  # 8 paced events after the first, 0.05 s apart
    assert first < whole / 2


def test_the_first_byte_client_sees_an_ndjson_streams_first_line_before_its_end():
    with ServerThread(LoadUpstream(gap=0.05)) as upstream, ServerThread(create_app(upstream.url)) as bare:
        (first, whole), = perf_load.stream_times(bare.port, perf_load.OLLAMA, "smoke", 1, events=8)
    assert whole >= 0.4  # 9 lines, 0.05 s apart
    assert first < whole / 2


@pytest.fixture(scope="module")
def proxy_over_load_upstream():
    engine = real_engine()
    with ServerThread(LoadUpstream(gap=0)) as upstream:
        settings = Settings(upstream=upstream.url + "/v1", roots=(), log_format="json")
        with ServerThread(create_proxy(settings, engine)) as proxy:
            yield proxy.url
    engine.close()


def test_the_load_upstreams_responses_answers_read_through_skillproxy_with_openais_client(proxy_over_load_upstream):
    client = openai.OpenAI(base_url=proxy_over_load_upstream + "/v1", api_key="sk-bench", max_retries=0)
    whole = client.responses.create(model="load", input="a p5.js sketch (1)", max_output_tokens=3)
    assert (whole.status, whole.output_text) == ("completed", "ok")
    again = client.responses.create(model="load", input="a p5.js sketch (2)", max_output_tokens=3)
    assert again.id != whole.id  # each answer has an id of its own, as a real upstream's
    events = list(client.responses.create(model="load", input="a p5.js sketch (3)", max_output_tokens=3,
                                          stream=True))
    assert [e.type for e in events][:2] == ["response.created", "response.in_progress"]
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == " w0 w1 w2"
    assert events[-1].type == "response.completed" and events[-1].response.output_text == " w0 w1 w2"


def test_the_load_upstreams_messages_answers_read_through_skillproxy_with_anthropics_client(proxy_over_load_upstream):
    client = anthropic.Anthropic(base_url=proxy_over_load_upstream, api_key="sk-bench", max_retries=0)
    question = [{"role": "user", "content": "a p5.js sketch (4)"}]
    whole = client.messages.create(model="load", max_tokens=3, messages=question)
    assert (whole.stop_reason, whole.content[0].text) == ("end_turn", "ok")
    with client.messages.stream(model="load", max_tokens=3, messages=[{"role": "user", "content": "sketch (5)"}]) as s:
        final = s.get_final_message()
    assert (final.stop_reason, final.content[0].text, final.usage.output_tokens) == ("end_turn", " w0 w1 w2", 3)


def test_the_load_upstreams_ollama_answers_read_through_skillproxy_with_ollamas_client(proxy_over_load_upstream):
    client = ollama.Client(host=proxy_over_load_upstream)
    whole = client.chat(model="load", messages=[{"role": "user", "content": "sketch (6)"}], stream=False,
                        options={"num_predict": 3})
    assert (whole.done, whole.message.content) == (True, "ok")
    parts = list(client.chat(model="load", messages=[{"role": "user", "content": "sketch (7)"}], stream=True,
                             options={"num_predict": 3}))
    assert "".join(part.message.content for part in parts) == " w0 w1 w2"
    assert [part.done for part in parts] == [False, False, False, True] and parts[-1].eval_count == 3


SURFACE_NAMES = ("responses", "messages", "ollama")


def _results(litellm: bool = True) -> dict:
    """A whole run's figures: skillproxy is 0.75× bare at c32 on every surface, first byte 1.75 ms added."""
    def target(rps: float, p50: float, ttfb: float, rss: tuple[float, float] | None, surfaces: bool = True) -> dict:
        def section() -> dict:
            cells = {perf_bench.cell_name(c, s): {"rps": rps, "p50_ms": p50, "p99_ms": p50 * 3, "requests": 100,
                                                  "errors": 0} for c, s in perf_bench.CELLS}
            return {"cells": cells, "ttfb_ms": {"p50": ttfb, "p99": ttfb * 2, "n": 10},
                    "long_stream": {"events": 2000, "first_ms": ttfb, "total_ms": 100.0}}

        found = {**section(), "processes": 1}
        if surfaces:
            found["surfaces"] = {name: section() for name in SURFACE_NAMES}
        if rss:
            found["rss"] = {"before_mib": rss[0], "after_mib": rss[1], "growth": rss[1] / rss[0] - 1,
                            "requests": 10000, "errors": 0}
        return found

    targets = {"direct": target(5000, 0.5, 0.25, None), "bare": target(800, 1.7, 1.25, (50, 50)),
               "skillproxy": target(600, 1.5, 2.0, (140, 150))}
    if litellm:
        targets["litellm"] = target(150, 5.5, 9.0, (300, 310), surfaces=False)
    cpu = {"proxy": 1.7, "upstream": 0.2, "wrk": 0.1, "total": 2.0, "other": 0.0}
    workers = {"count": 2, "processes": 4,
               "cells": {"c32 non-stream": {"rps": 1100, "p50_ms": 25.0, "p99_ms": 60.0, "requests": 2200,
                                            "errors": 0, "cpu": cpu},
                         "c32 stream": {"rps": 900, "p50_ms": 30.0, "p99_ms": 70.0, "requests": 1800, "errors": 0,
                                        "cpu": cpu}},
               "rss": {"parent_mib": 60.0, "workers_mib": [150.0, 151.0], "others_mib": [15.0]},
               "one_worker_cells": {"c32 non-stream": {"rps": 550, "p50_ms": 50.0, "cpu": cpu},
                                    "c32 stream": {"rps": 500, "p50_ms": 55.0, "cpu": cpu}},
               "one_worker_rss_mib": 150.0}
    return {"config": {"duration_s": 2, "cores": 2, "load_before": 0.2, "load_after": 0.3, "python": "3.11",
                       "litellm": "1.82.6" if litellm else None},
            "targets": targets, "preprocess": {"skills": 1000, "n": 320, "p50_ms": 0.4, "p99_ms": 1.2},
            "skillproxy_route": "algorithmic-art=77", "workers": workers,
            "skillproxy_routes": dict.fromkeys(SURFACE_NAMES, "algorithmic-art=77")}


def _by_label(text: str) -> dict[str, list[str]]:
    header, _rule, *rows = text.splitlines()
    assert all(row.count("|") == header.count("|") for row in rows)
    return {row.split("|")[1].strip(): [c.strip() for c in row.split("|")[2:-1]] for row in rows}


def test_table_carries_every_target_and_the_ratios():
    text = table(_results())
    header = text.splitlines()[0]
    assert header.split("|")[2:-1] == [" direct ", " bare ", " skillproxy ", " LiteLLM ", " skillproxy/bare ",
                                       " skillproxy/LiteLLM "]
    by_label = _by_label(text)
    assert by_label["c32 non-stream: req/s"] == ["5,000", "800", "600", "150", "0.75×", "4.00×"]
    assert by_label["c1 non-stream: added p50 ms"] == ["–", "1.20", "1.00", "5.00", "0.83×", "0.20×"]
    assert by_label["2,000-event stream: first byte / whole ms"][:4] == ["0.2 / 100", "1.2 / 100", "2.0 / 100",
                                                                         "9.0 / 100"]
    assert by_label["RSS growth %"][2] == "7.1"


def test_a_surface_table_sets_skillproxy_against_bare_and_direct_on_that_path():
    results = _results()
    results["targets"]["skillproxy"]["surfaces"]["ollama"]["cells"]["c32 stream"]["rps"] = 720
    text = surface_table(results, "ollama")
    assert text.splitlines()[0].split("|")[2:-1] == [" direct ", " bare ", " skillproxy ", " skillproxy/bare "]
    by_label = _by_label(text)
    assert by_label["c32 stream: req/s"] == ["5,000", "800", "720", "0.90×"]
    assert by_label["c1 non-stream: added p50 ms"] == ["–", "1.20", "1.00", "0.83×"]
    assert by_label["c1 stream: added first byte p50 ms"] == ["–", "1.00", "1.75", "1.75×"]


def test_the_workers_table_gives_the_ratio_the_cpu_and_each_workers_memory():
    by_label = {row.split("|")[1].strip(): [c.strip() for c in row.split("|")[2:-1]]
                for row in workers_table(_results()).splitlines()[2:]}
    assert by_label["c32 non-stream: req/s"] == ["550", "1,100", "2.00×"]
    assert by_label["c32 stream: req/s"] == ["500", "900", "1.80×"]
    assert by_label["c32 stream: CPU s/s, skillproxy (all processes)"][1] == "1.70"
    assert by_label["RSS MiB, after the cells"] == ["150.0", "376.0", "2.51×"]
    assert by_label["RSS MiB: process manager / each worker / other children"][1] == "60.0 / 150.0 + 151.0 / 15.0"


def test_without_its_own_one_worker_cells_the_workers_ratio_uses_the_main_tables():
    results = _results()
    del results["workers"]["one_worker_cells"]
    met = {name: value for name, value, _, _ in goals(results)}
    assert met["--workers 2: c32 non-stream req/s over one worker's"] == "1.83×"


def test_goals_say_met_missed_or_not_measured():
    met = {name: (value, ok) for name, value, _, ok in goals(_results())}
    assert met["c32 non-stream: req/s, skillproxy/bare"] == ("0.75×", False)
    assert met["c32 stream: req/s, skillproxy/LiteLLM"] == ("4.00×", True)
    assert met["c1 non-stream: added p50, skillproxy/bare"] == ("0.83×", True)
    assert met["c1 stream: added first byte p50"] == ("1.75 ms", False)
    assert met["preprocess p50 at 1,000 skills"] == ("0.40 ms", True)
    assert met["preprocess p99 at 1,000 skills"] == ("1.20 ms", False)
    assert met["--workers 2: c32 non-stream req/s over one worker's"] == ("2.00×", True)
    assert met["RSS growth over the soak"] == ("7.1 %", True)
    assert met["stream never buffered: first byte / whole stream"] == ("0.02", True)
    for label in ("OpenAI Responses", "Anthropic Messages", "Ollama native"):
        assert met[f"{label} c32 stream: req/s, skillproxy/bare"] == ("0.75×", False)
        assert met[f"{label} c1 non-stream: added p50, skillproxy/bare"] == ("0.83×", True)
        assert met[f"{label} stream never buffered: first byte / whole stream"] == ("0.02", True)
    slow = _results(litellm=False)
    slow["targets"]["skillproxy"]["cells"]["c1 non-stream"]["p50_ms"] = 3.0
    missed = {name: ok for name, _, _, ok in goals(slow)}
    assert missed["c1 non-stream: added p50, skillproxy/bare"] is False
    assert missed["c32 non-stream: req/s, skillproxy/LiteLLM"] is None
    assert "| c32 non-stream: req/s, skillproxy/LiteLLM | – | ≥ 3.00 | n/a |" in report(slow)


def test_each_missed_goal_names_the_cell_to_profile_and_cells_are_profiled_once():
    missed = missed_where(_results())
    assert missed[Where(concurrency=32, stream=False)] == ["c32 non-stream: req/s, skillproxy/bare"]
    assert missed[Where(concurrency=1, stream=True)] == ["c1 stream: added first byte p50"]
    assert missed[Where(preprocess=True)] == ["preprocess p99 at 1,000 skills"]
    assert missed[Where("ollama", 32, True)] == ["Ollama native c32 stream: req/s, skillproxy/bare"]
    assert Where(concurrency=32, workers=2) not in missed and Where(concurrency=1) not in missed
    slow = _results()
    slow["targets"]["litellm"]["cells"]["c32 non-stream"]["rps"] = 590
    assert missed_where(slow)[Where()] == ["c32 non-stream: req/s, skillproxy/bare",
                                          "c32 non-stream: req/s, skillproxy/LiteLLM"]
    assert Where("ollama", 32, True).key == "skillproxy, ollama c32 stream"
    assert Where(workers=2).key == "skillproxy --workers 2, chat c32 non-stream"


def test_the_report_prints_each_profile_or_says_none_was_taken():
    results = _results()
    unprofiled = report(results)
    assert "Not profiled in this run (`--profile-misses` runs py-spy on each): c32 non-stream" in unprofiled
    results["profiles"] = [
        {"where": "skillproxy, chat c32 non-stream", "goals": ["c32 non-stream: req/s, skillproxy/bare"],
         "seconds": 4, "samples": 1234, "own": [[0.25, "send (uvicorn/protocols/http/httptools_impl.py)"]],
         "packages": [[0.4, "uvicorn"], [0.1, "proxy/core/routing"]]},
        {"where": "engine.preprocess at the big catalog", "goals": ["preprocess p99 at 1,000 skills"],
         "seconds": 4, "error": "py-spy is not installed (pip install py-spy)"}]
    text = report(results)
    assert "### skillproxy, chat c32 non-stream: c32 non-stream: req/s, skillproxy/bare" in text
    assert " 25.0%  send (uvicorn/protocols/http/httptools_impl.py)" in text and " 40.0%  uvicorn" in text
    assert "1,234 samples" in text
    assert "No profile: py-spy is not installed (pip install py-spy)" in text
    assert "Not profiled in this run" not in text


def test_a_run_saved_before_surfaces_and_workers_still_prints():
    old = copy.deepcopy(_results(litellm=False))
    for name in ("workers", "skillproxy_routes"):
        del old[name]
    del old["preprocess"]["p99_ms"]
    for found in old["targets"].values():
        del found["surfaces"]
    text = report(json.loads(json.dumps(old)))
    assert text.count("Not measured in this run (`--surfaces` measures it).") == 3
    assert "Not measured in this run (`--workers N` measures it)." in text
    assert "| preprocess p99 at 1,000 skills | – | ≤ 1.00 ms | n/a |" in text
    assert "| Ollama native c32 stream: req/s, skillproxy/bare | – | ≥ 0.90 | n/a |" in text
    assert "| c32 stream: req/s | 5,000 | 800 | 600 | – | 0.75× | – |" in text


def test_failed_requests_count_in_every_cell_and_soak():
    results = _results()
    assert error_count(results) == 0
    results["targets"]["bare"]["surfaces"]["messages"]["cells"]["c1 stream"]["errors"] = 2
    results["workers"]["cells"]["c32 stream"]["errors"] = 3
    results["targets"]["skillproxy"]["rss"]["errors"] = 1
    assert error_count(results) == 6
    text = report(results)
    assert "WARNING: bare messages c1 stream: 2 failed requests" in text
    assert "WARNING: skillproxy --workers 2 c32 stream: 3 failed requests" in text


def test_the_load_upstream_gives_each_responses_answer_an_id_of_its_own():
    body = {"model": "load", "input": "x", "stream": True, "max_output_tokens": 2}
    first, second = (list(surface_answers.answer(surface_answers.RESPONSES, body, n)[1]) for n in (1, 2))
    assert b'"id":"resp_00000001"' in first[0] and b'"id":"resp_00000002"' in second[0]
    assert surface_answers.RESPONSE_ID not in b"".join(first)
    assert [json.loads(e.split(b"data: ")[1])["sequence_number"] for e in first] == list(range(len(first)))
    assert surface_answers.streams(surface_answers.OLLAMA, {}) and not surface_answers.streams(
        surface_answers.MESSAGES, {})


@pytest.mark.parametrize("path", [surface_answers.RESPONSES, surface_answers.MESSAGES, surface_answers.OLLAMA])
def test_a_long_stream_is_the_same_bytes_as_a_cached_one_built_as_it_goes(path):
    def pieces(count: int) -> list[bytes]:
        body = {"stream": True, "max_tokens": count, "max_output_tokens": count, "options": {"num_predict": count}}
        return list(surface_answers.answer(path, body, 5)[1])

    short, long = pieces(surface_answers.CACHED_EVENTS), pieces(surface_answers.CACHED_EVENTS + 1)
    assert len(long) == len(short) + 1 and long[:3] == short[:3]
    assert b" w64" in b"".join(long) and b" w64" not in b"".join(short)


def test_litellm_config_runs_the_hook_against_the_upstream_the_bench_sets():
    config = yaml.safe_load((REPO / "bench" / "litellm_config.yaml").read_text(encoding="utf-8"))
    (model,) = config["model_list"]
    assert model["model_name"] == "load" and model["litellm_params"]["model"].startswith("openai/")
    assert model["litellm_params"]["api_base"] == "os.environ/PERF_BENCH_UPSTREAM"
    assert config["litellm_settings"]["callbacks"] == "litellm_hook.proxy_handler_instance"
    hook = (REPO / "bench" / "litellm_hook.py").read_text(encoding="utf-8")
    assert "async def async_pre_call_hook(" in hook and "proxy_handler_instance = " in hook
    assert "PERF_BENCH_UPSTREAM" in (REPO / "bench" / "perf_servers.py").read_text(encoding="utf-8")


def test_profile_sums_py_spy_samples_by_function_and_package():
    from bench.perf_profile import aggregate

    main = "<module> (proxy/__main__.py:3)"
    raw = (f"{main};handle (proxy/chat_completions.py:50);send (httpcore/_async/http11.py:10) 3\n"
           f"{main};handle (proxy/chat_completions.py:51);_score (proxy/core/router.py:9) 1\n"
           f"{main};acquire (threading.py:4) 2\n")
    own, inclusive, packages, total = aggregate(raw)
    assert total == 6
    assert own["send (httpcore/_async/http11.py)"] == 3
    assert inclusive["handle (proxy/chat_completions.py)"] == 4  # two lines of one function
    assert inclusive["<module> (proxy/__main__.py)"] == 6
    assert packages == {"httpcore": 3, "proxy/core/router.py": 1, "(stdlib) threading.py": 2}


def test_profile_of_several_processes_drops_the_process_frames_py_spy_puts_first():
    from bench.perf_profile import profile_of

    manager = 'process 10:"python -m proxy serve --workers 2"'
    worker = 'process 11:"python -B -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=7)"'
    raw = (f"{manager};{worker};run (uvicorn/server.py:5);send (anyio/_backends/_asyncio.py:9) 3\n"
           f"{manager};select (selectors.py:4) 1\n")
    found = profile_of(raw)
    assert found.samples == 4
    assert found.top("own", 2) == [(0.75, "send (anyio/_backends/_asyncio.py)"), (0.25, "select (selectors.py)")]
    assert found.top("packages", 1) == [(0.75, "anyio")]
    assert not [name for name in found.inclusive if "process" in name or "spawn_main" in name]


def test_each_missed_goal_says_what_was_tried_for_it_and_goals_met_say_nothing():
    from bench.perf_levers import LEVERS_TRIED, levers_for

    text = report(_results())
    tried = text[text.index("## What was tried, for each goal missed"):text.index("## Where the time goes")]
    assert "- c32 non-stream: req/s, skillproxy/bare; " in tried and "Ollama native c32 stream" in tried
    assert "aiohttp's connection pool" in tried and "- c1 stream: added first byte p50:" in tried
    assert "- preprocess p99 at 1,000 skills:" in tried and "RSS growth" not in tried
    assert "c1 non-stream: added p50" not in tried  # met in these results
    for piece, levers in LEVERS_TRIED:  # every entry is reachable from a goal the report checks
        assert levers and any(piece in name for name, _, _, _ in goals(_results())), piece
    assert levers_for("a goal nobody wrote") == []
