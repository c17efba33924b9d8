"""bench/perf_bench.py's pieces, without wrk or LiteLLM: bodies, wrk's figures, the TTFB client, the report.

The bare passthrough runs for real (uvicorn on 127.0.0.1) in front of the load
upstream: what it forwards must be byte-identical, and the TTFB client must see
the first event long before the end of a paced stream (it is not buffered).
"""

from __future__ import annotations

import json
import re

import httpx
import pytest
import yaml

from bench import perf_bench, perf_load
from bench.bare_passthrough import create_app
from bench.load_upstream import LoadUpstream, expected_stream
from bench.perf_report import goals, report, table
from tests.conftest import REPO
from tests.integration.servers import ServerThread

WRK_OUTPUT = """Running 2s test @ http://127.0.0.1:1/v1/chat/completions
  1 threads and 32 connections
WRKJSON {"requests":2400,"duration_us":2000000,"p50_us":1250,"p99_us":9800,"max_us":20000,\
"errors":{"connect":0,"read":1,"write":0,"status":2,"timeout":0}}
"""


def test_the_lua_script_posts_the_same_bodies_as_chat_body(tmp_path):
    script = perf_load.lua_script(tmp_path, "c32-s", perf_load.ALWAYS).read_text(encoding="utf-8")
    assert "$" not in script and "local mode, counter = 1, 0" in script
    prefix = re.search(r"local prefix = '(.*)'\n", script).group(1)
    lua_body = (prefix.replace("' .. tag .. '", "c32-s") + '7)"}]' + ',"stream":true}').encode()
    assert lua_body == perf_load.chat_body("c32-s", 7, stream=True)
    assert json.loads(lua_body)["messages"][0]["content"].endswith("(c32-s 7)")


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
        (first, whole), = perf_load.stream_times(bare.port, "/v1/chat/completions", "smoke", 1, events=6)
    assert whole >= 0.35  # 8 paced events after the first, 0.05 s apart
    assert first < whole / 2


def _results(litellm: bool = True) -> dict:
    def target(rps: float, p50: float, ttfb: float, rss: tuple[float, float] | None) -> dict:
        cells = {perf_bench.cell_name(c, s): {"rps": rps, "p50_ms": p50, "p99_ms": p50 * 3, "requests": 100,
                                              "errors": 0} for c, s in perf_bench.CELLS}
        found = {"cells": cells, "ttfb_ms": {"p50": ttfb, "p99": ttfb * 2, "n": 10}, "processes": 1,
                 "long_stream": {"events": 2000, "first_ms": ttfb, "total_ms": 100.0}}
        if rss:
            found["rss"] = {"before_mib": rss[0], "after_mib": rss[1], "growth": rss[1] / rss[0] - 1,
                            "requests": 10000, "errors": 0}
        return found

    targets = {"direct": target(5000, 0.5, 0.25, None), "bare": target(800, 1.7, 1.25, (50, 50)),
               "skillproxy": target(600, 1.5, 2.0, (140, 150))}
    if litellm:
        targets["litellm"] = target(150, 5.5, 9.0, (300, 310))
    return {"config": {"duration_s": 2, "cores": 2, "load_before": 0.2, "load_after": 0.3, "python": "3.11",
                       "litellm": "1.82.6" if litellm else None},
            "targets": targets, "preprocess": {"skills": 1000, "n": 320, "p50_ms": 0.4, "p99_ms": 1.2},
            "skillproxy_route": "algorithmic-art=77"}


def test_table_carries_every_target_and_the_ratios():
    text = table(_results())
    header, _rule, *rows = text.splitlines()
    assert header.split("|")[2:-1] == [" direct ", " bare ", " skillproxy ", " LiteLLM ", " skillproxy/bare ",
                                       " skillproxy/LiteLLM "]
    assert all(row.count("|") == header.count("|") for row in rows)
    by_label = {row.split("|")[1].strip(): [c.strip() for c in row.split("|")[2:-1]] for row in rows}
    assert by_label["c32 non-stream: req/s"] == ["5,000", "800", "600", "150", "0.75×", "4.00×"]
    assert by_label["c1 non-stream: added p50 ms"] == ["–", "1.20", "1.00", "5.00", "0.83×", "0.20×"]
    assert by_label["2,000-event stream: first byte / whole ms"][:4] == ["0.2 / 100", "1.2 / 100", "2.0 / 100",
                                                                         "9.0 / 100"]
    assert by_label["RSS growth %"][2] == "7.1"


def test_goals_say_met_missed_or_not_measured():
    met = {name: (value, ok) for name, value, _, ok in goals(_results())}
    assert met["c1 non-stream: added p50, skillproxy/bare"] == ("0.83×", True)
    assert met["c1 non-stream: added p50 over direct"] == ("1.00 ms", True)
    assert met["c32 stream: req/s, skillproxy/LiteLLM"] == ("4.00×", True)
    assert met["c32 stream: req/s, skillproxy/bare"] == ("0.75×", True)
    assert met["stream: added first byte p50"] == ("1.75 ms", True)
    assert met["preprocess p50 at 1,000 skills"] == ("0.40 ms", True)
    assert met["RSS growth over the soak"] == ("7.1 %", True)
    slow = _results(litellm=False)
    slow["targets"]["skillproxy"]["cells"]["c1 non-stream"]["p50_ms"] = 3.0
    missed = {name: ok for name, _, _, ok in goals(slow)}
    assert missed["c1 non-stream: added p50 over direct"] is False
    assert missed["c32 non-stream: req/s, skillproxy/LiteLLM"] is None
    assert "| c32 non-stream: req/s, skillproxy/LiteLLM | – | ≥ 3.00 | n/a |" in report(slow)


def test_litellm_config_runs_the_hook_against_the_upstream_the_bench_sets():
    config = yaml.safe_load((REPO / "bench" / "litellm_config.yaml").read_text(encoding="utf-8"))
    (model,) = config["model_list"]
    assert model["model_name"] == "load" and model["litellm_params"]["model"].startswith("openai/")
    assert model["litellm_params"]["api_base"] == "os.environ/PERF_BENCH_UPSTREAM"
    assert config["litellm_settings"]["callbacks"] == "litellm_hook.proxy_handler_instance"
    hook = (REPO / "bench" / "litellm_hook.py").read_text(encoding="utf-8")
    assert "async def async_pre_call_hook(" in hook and "proxy_handler_instance = " in hook
    assert "PERF_BENCH_UPSTREAM" in (REPO / "bench" / "perf_bench.py").read_text(encoding="utf-8")


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
