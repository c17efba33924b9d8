"""The upstream fault matrix, through the real proxy: every fault has its expected outcome.

Each behaviour family is one table-driven test over (case, mode). Modes:
- `json`, `stream`: a chat request forwarded as it is (the marker engine adds no
  skill tools), the answer relayed byte for byte;
- `loop-json`, `loop-stream`: the real engine over skills/, so the proxy adds its
  skill tools and the tool loop reads and parses every answer itself;
- `loop-json-r2`, `loop-stream-r2`: the fault hits the loop's second round, after
  the model called a skill tool and the proxy ran it (a stream has begun).
Upstreams: the fake ASGI upstream (`fault-*` models in fake_upstream.py), the raw
socket upstream (raw_upstream.py) for what HTTP libraries will not send, and a
port nobody listens on. Proxies serve the whole module (one per upstream, engine
and settings), so each also shows it serves on after every fault before; log
assertions go by the request's id. The keep-alive and wrong-length tests get
fresh proxies and upstreams (their connection pools are the point). Every
request is counted; the module prints the table (case, requests per mode,
outcome) when it ends (`-s` shows it).
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass

import httpx
import openai
import pytest

from proxy.app import create_app
from proxy.logs.setup import configure_logging
from proxy.settings import Settings

from .conftest import RunningProxy
from .engines import MarkerEngine, real_engine
from .fake_upstream import (
    BIG_IMAGE,
    FAULT_ANSWERS,
    FAULT_TEXT,
    OPENAI_500,
    content_events,
    fault_completion,
    fault_events,
)
from .raw_upstream import CLOSE_AFTER_ANSWER, DROP_REUSED, IDLE_CLOSE, KEEP_ALIVE, RawUpstream
from .servers import ServerThread

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
DONE = b"data: [DONE]\n\n"
FIRST_ROUND = ("json", "stream", "loop-json", "loop-stream")
ALL_MODES = (*FIRST_ROUND, "loop-json-r2", "loop-stream-r2")
READ_SKILL = {"calls": [{"name": "read_skill_file", "arguments": {"skill": "sql-query-tuning"}}]}
SECOND_ROUND = {"x-fake-script": json.dumps([READ_SKILL]), "x-fault-round": "2"}

COLUMNS = ("stream", "non-stream", "tool loop")
TALLY: dict[str, Counter[str]] = defaultdict(Counter)  # case -> requests per column
OUTCOMES: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # case -> column -> outcomes


def tally(case: str, mode: str, outcome: str, requests: int = 1) -> None:
    column = "tool loop" if mode.startswith("loop") else "stream" if mode == "stream" else "non-stream"
    TALLY[case][column] += requests
    OUTCOMES[case][column].add(outcome)


@pytest.fixture(scope="module", autouse=True)
def fault_table() -> Iterator[None]:
    yield
    lines = ["", "| case | " + " | ".join(COLUMNS) + " | outcome |", "|---|---|---|---|---|"]
    for case, counts in TALLY.items():
        outcome = "; ".join(f"{column}: {' / '.join(sorted(OUTCOMES[case][column]))}"
                            for column in COLUMNS if OUTCOMES[case][column])
        lines.append(f"| {case} | " + " | ".join(str(counts[c]) for c in COLUMNS) + f" | {outcome} |")
    total = sum(sum(counts.values()) for counts in TALLY.values())
    print("\n".join([*lines, f"{total} requests through the proxy"]))


# ---- asking through the proxy ------------------------------------------------------------

@dataclass
class Got:
    status: int
    raw: bytes
    streamed: bool
    request_id: str = ""

    def error(self) -> dict:
        """The OpenAI-shaped error of an answer that is not a stream."""
        assert b"Traceback" not in self.raw
        error = json.loads(self.raw)["error"]
        assert set(error) >= {"message", "type", "code"}, error
        return error

    def events(self) -> list[bytes]:
        return [e for e in re.split(rb"\r\n\r\n|\n\n|\r\r", self.raw) if e.strip()]

    def framed_error(self) -> dict:
        """The error event that ends a stream, checking it is followed by one `[DONE]` and nothing else."""
        assert self.status == 200 and self.raw.endswith(DONE) and self.raw.count(b"[DONE]") == 1, self.raw[-300:]
        error = json.loads(self.events()[-2].removeprefix(b"data: "))["error"]
        assert set(error) >= {"message", "type", "code"}, error
        return error

    def text(self) -> str:
        if not self.streamed:
            return json.loads(self.raw)["choices"][0]["message"]["content"]
        chunks = [_json_or_none(e.split(b"data:", 1)[1]) for e in self.events() if b"data:" in e]
        return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks
                       if isinstance(c, dict) and c.get("choices"))


def _json_or_none(data: bytes) -> object:
    try:
        return json.loads(data)
    except ValueError:
        return None


def ask(proxy, model: str, mode: str, **headers: str) -> Got:
    streamed = "stream" in mode
    body = {"model": model, "messages": [{"role": "user", "content": SQL}], "stream": streamed}
    if mode.endswith("-r2"):
        headers = {**SECOND_ROUND, **headers}
    with httpx.stream("POST", proxy.base_url + "/chat/completions", json=body, headers=headers,
                      timeout=30) as response:
        return Got(response.status_code, b"".join(response.iter_bytes()), streamed,
                   response.headers.get("x-request-id", ""))


def sdk_text(proxy, model: str, mode: str, **headers: str) -> str:
    """The answer's text as the openai SDK reads the stream (it must end cleanly)."""
    if mode.endswith("-r2"):
        headers = {**SECOND_ROUND, **headers}
    client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0, default_headers=headers)
    stream = client.chat.completions.create(model=model, messages=[{"role": "user", "content": SQL}], stream=True)
    return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


class SharedProxies:
    """Proxies kept for the module: one per (upstream, tool loop?, settings)."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.proxies: dict[tuple, RunningProxy] = {}

    def get(self, upstream: str, loop: bool, overrides: dict[str, object]) -> RunningProxy:
        key = (upstream, loop, tuple(sorted(overrides.items())))
        if key not in self.proxies:
            engine = real_engine() if loop else MarkerEngine()
            if loop:
                self.stack.callback(engine.close)
            settings = Settings(**{"upstream": upstream, "roots": (), "connect_timeout": 1.0, "read_timeout": 5.0,
                                   "log_format": "json", **overrides})
            server = self.stack.enter_context(ServerThread(create_app(settings, engine)))
            self.proxies[key] = RunningProxy(server.url, settings, engine)
        return self.proxies[key]


@pytest.fixture(scope="module")
def shared_proxies(_fake_server) -> Iterator[SharedProxies]:
    with ExitStack() as stack:
        yield SharedProxies(stack)


@pytest.fixture(scope="module")
def shared_raw() -> Iterator[RawUpstream]:
    with RawUpstream(KEEP_ALIVE) as raw:
        yield raw


@pytest.fixture(scope="module")
def dead_url() -> str:
    """A port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.fixture
def upstream_url(upstream, shared_raw, dead_url) -> Callable[[str], str]:
    return {"asgi": upstream.url + "/v1", "raw": shared_raw.url, "dead": dead_url}.__getitem__


@pytest.fixture
def proxy_for(shared_proxies, upstream, start_proxy, logs) -> Iterator[Callable[..., RunningProxy]]:
    """A proxy for a mode: the real engine (skill tools, so the tool loop) for `loop-*`, else the marker engine.

    Shared for the module (its log now going to `logs`), or with `fresh=True` a new one (a pool of its own).
    """
    engines = []

    def start(mode: str, upstream: str = upstream.url + "/v1", fresh: bool = False, **settings: object):
        loop = mode.startswith("loop")
        if not fresh:
            proxy = shared_proxies.get(upstream, loop, settings)
            configure_logging(proxy.settings, stream=logs)
            return proxy
        if not loop:
            return start_proxy(upstream=upstream, **settings)
        engines.append(real_engine())
        return start_proxy(engine=engines[-1], upstream=upstream, **settings)

    yield start
    for engine in engines:
        engine.close()


def assert_loop_ran(mode: str, bodies: list[dict]) -> None:
    """A `loop-*` request went out with the proxy's skill tools (so the tool loop read the answer)."""
    if mode.startswith("loop"):
        assert "read_skill_file" in json.dumps(bodies[0].get("tools")), "the tool loop did not run"
        assert len(bodies) == (2 if mode.endswith("-r2") else 1)
    else:
        assert "tools" not in bodies[0]


# ---- 1. no answer at all: a 502 or 504 that names the upstream and what to check ---------

NO_ANSWER = {  # case: (upstream, model, settings, status, code, words the message must hold)
    "connection refused": ("dead", "any", {}, 502, "upstream_unreachable", ["cannot connect", "is the model server"]),
    "slow to answer headers": ("asgi", "fault-slow-headers", {"read_timeout": 0.5}, 504, "upstream_timeout",
                               ["did not answer in time", "read_timeout"]),
    "invalid status line": ("raw", "raw-bad-status", {}, 502, "upstream_protocol_error",
                            ["not valid HTTP", "illegal status line"]),
    "not HTTP at all": ("raw", "raw-not-http", {}, 502, "upstream_connection_closed",
                        ["closed the connection", "not an HTTP server"]),
}


@pytest.mark.parametrize("case, mode", [(c, m) for c in NO_ANSWER for m in FIRST_ROUND])
def test_no_answer_is_a_502_or_504_naming_the_upstream(case, mode, proxy_for, upstream_url, upstream, logs):
    kind, model, settings, status, code, words = NO_ANSWER[case]
    url = upstream_url(kind)
    got = ask(proxy_for(mode, upstream=url, **settings), model, mode)
    assert got.status == status
    error = got.error()
    assert error["code"] == code and error["type"] == "upstream_error"
    assert url in error["message"] and all(word in error["message"] for word in words), error["message"]
    assert logs.wait_for("request", request_id=got.request_id)["error"] == code
    if kind == "asgi":
        assert_loop_ran(mode, [upstream.last().json])
    tally(case, mode, f"{status} {code}")


# ---- 2. error answers: the upstream's status, an OpenAI-shaped body a person can act on ----

ERROR_ANSWERS = {  # model: (status to the client, code, words the message must hold)
    "fault-500-openai": (500, "internal_error", ["CUDA error: out of memory"]),
    "fault-503-detail": (503, None, ["Service Unavailable: the model is still loading"]),
    "fault-502-nginx": (502, "upstream_html_error", ['"502 Bad Gateway nginx/1.24.0 (Ubuntu)"', "reverse proxy"]),
    "fault-504-nginx": (504, "upstream_html_error", ["504 Gateway Time-out", "may be down"]),
    "fault-502-cloudflare": (502, "upstream_html_error", ["502: Bad gateway", "Error code 502", "Ray ID"]),
    "fault-200-html": (502, "upstream_invalid_response", ["Sign in · Model Gateway", "usually ending in /v1"]),
    "fault-200-text": (502, "upstream_invalid_response", ["(text/plain)", "'OK'"]),
    "fault-200-bad-json": (502, "upstream_invalid_response", ["do not parse as a JSON object", "cut off"]),
}


@pytest.mark.parametrize("model, mode", [(m, mode) for m in ERROR_ANSWERS for mode in ALL_MODES])
def test_error_answers_reach_the_client_openai_shaped_without_html(model, mode, proxy_for, upstream):
    status, code, words = ERROR_ANSWERS[model]
    got = ask(proxy_for(mode), model, mode)
    if mode == "loop-stream-r2":  # the stream began in round one: the error is framed
        error = got.framed_error()
        upstream_status = FAULT_ANSWERS[model][0]
        if upstream_status == 200:
            assert error["code"] == "upstream_bad_stream" and FAULT_ANSWERS[model][2].split(";")[0] in error["message"]
        else:
            assert f"HTTP {upstream_status}" in error["message"] and all(w in error["message"] for w in words)
        outcome = f"framed {error['code']}, then [DONE]"
    else:
        assert got.status == status
        error = got.error()
        assert error["code"] == code and all(word in error["message"] for word in words), error["message"]
        if model == "fault-500-openai":
            assert json.loads(got.raw) == json.loads(OPENAI_500), "an OpenAI-shaped error passes through as it is"
        outcome = f"{status} {code}"
    assert "<" not in error["message"] and len(error["message"]) < 700, "no HTML soup"
    assert_loop_ran(mode, [r.json for r in upstream.received])
    tally(model.removeprefix("fault-"), mode, outcome)


# ---- 3. the answer began, then broke off or stalled -----------------------------------

BROKEN_OFF = {  # case: (upstream, model, settings, modes, status, code)
    "slow body (gap > read_timeout)": ("asgi", "fault-slow-body", {"read_timeout": 0.5}, ALL_MODES, 504,
                                       "upstream_timeout"),
    "reset mid-answer": ("asgi", "fault-reset", {}, ALL_MODES, 502, "upstream_connection_closed"),
    "Content-Length longer than the body": ("raw", "raw-long-length", {}, ALL_MODES, 502,
                                            "upstream_connection_closed"),
    "slow headers in round 2": ("asgi", "fault-slow-headers", {"read_timeout": 0.5},
                                ("loop-json-r2", "loop-stream-r2"), 504, "upstream_timeout"),
}


@pytest.mark.parametrize("case, mode", [(c, m) for c, spec in BROKEN_OFF.items() for m in spec[3]])
def test_an_answer_that_breaks_off_is_a_framed_error_in_a_stream_and_a_status_otherwise(
        case, mode, proxy_for, upstream_url, upstream, logs):
    kind, model, settings, _, status, code = BROKEN_OFF[case]
    url = upstream_url(kind)
    got = ask(proxy_for(mode, upstream=url, **settings), model, mode)
    if got.streamed:
        error = got.framed_error()
        assert error["code"] == code and url in error["message"]
        if model == "fault-reset" and mode in ("stream", "loop-stream"):
            assert got.text() == "Hello from", "what arrived before the reset was delivered"
        if mode == "stream" and kind == "asgi":
            assert got.raw.startswith(content_events()[0]), "the relayed part is the upstream's own bytes"
        assert logs.wait_for("stream_error_framed", request_id=got.request_id)["code"] == code
        outcome = f"framed {code}, then [DONE]"
    else:
        assert got.status == status and got.error()["code"] == code
        assert url in got.error()["message"]
        outcome = f"{status} {code}"
    if kind == "asgi":
        assert_loop_ran(mode, [r.json for r in upstream.received])
    tally(case, mode, outcome)


# ---- 4. odd but whole answers are delivered whole -------------------------------------

WHOLE = {  # case: (model, settings, headers, modes)
    "slow body within read_timeout": ("fault-slow-body", {}, {"x-fault-gap": "0.05"},
                                      FIRST_ROUND),
    "stream without [DONE]": ("fault-no-done", {}, {}, ("stream", "loop-stream", "loop-stream-r2")),
    "no [DONE], last event unterminated": ("fault-no-done-unterminated", {}, {}, ("stream", "loop-stream")),
    "garbage SSE lines, CRLF": ("fault-garbage", {}, {}, ("stream", "loop-stream", "loop-stream-r2")),
    "2 MB SSE line (base64 image)": ("fault-big-line", {}, {}, ALL_MODES),
}


@pytest.mark.parametrize("case, mode", [(c, m) for c, spec in WHOLE.items() for m in spec[3]])
def test_odd_but_whole_answers_arrive_whole(case, mode, proxy_for, upstream, logs):
    model, settings, headers, _ = WHOLE[case]
    proxy = proxy_for(mode, **settings)
    got = ask(proxy, model, mode, **headers)
    assert got.status == 200
    sent = b"".join(fault_events(model)) if got.streamed else fault_completion(model)
    expected_text = BIG_IMAGE if model == "fault-big-line" else FAULT_TEXT
    if mode in ("json", "stream", "loop-json"):
        assert got.raw == sent, "passed on byte for byte"
    elif mode == "loop-stream" and model in ("fault-big-line", "fault-slow-body"):
        assert got.raw == sent, "one round without tool calls: the upstream's own bytes"
    elif mode == "loop-stream" and model == "fault-no-done":
        assert got.raw == sent + DONE, "the tool loop ends every stream with one [DONE]"
    elif mode == "loop-stream" and model == "fault-no-done-unterminated":
        assert got.raw == b"".join(content_events()[:-1]) + DONE, "the last event is ended, then [DONE]"
    elif got.streamed:
        assert got.raw.endswith(DONE) and got.raw.count(b"[DONE]") == 1 and b'"error"' not in got.raw
    if mode.startswith("loop") and model == "fault-garbage":
        assert b"not json" not in got.raw and b"event: ping" not in got.raw and b": ping" in got.raw
        assert logs.wait_for("stream_events_skipped", request_id=got.request_id)["count"] == 4
    assert got.text() == expected_text
    requests = 1
    if got.streamed and not (mode == "stream" and model == "fault-garbage"):  # untouched garbage is the client's
        assert sdk_text(proxy, model, mode, **headers) == expected_text, "the openai SDK reads it and ends cleanly"
        requests += 1
    assert_loop_ran(mode, [r.json for r in upstream.received][:2 if mode.endswith("-r2") else 1])
    tally(case, mode, "delivered whole" + (", byte-identical" if got.raw == sent else ""), requests)


# ---- 5. keep-alive connections the upstream closes ------------------------------------

SEQUENTIAL, CONCURRENT = 6, 6


def script_for(mode: str) -> dict[str, str]:
    """Passthrough: an answer. The tool loop: a list_skills round first, so each request uses the pool twice."""
    steps = [{"answer": "raw ok"}]
    if mode.startswith("loop"):
        steps.insert(0, {"calls": [{"name": "list_skills", "arguments": {"query": "sql"}}]})
    return {"x-fake-script": json.dumps(steps)}


def ask_raw(proxy, mode: str) -> tuple[int, str]:
    if mode == "passthrough":  # a GET, a POST with a body, and the readiness probe
        models = httpx.get(proxy.base_url + "/models", timeout=30)
        embeddings = httpx.post(proxy.base_url + "/embeddings", json={"input": "x"}, timeout=30)
        ready = httpx.get(proxy.url + "/readyz", timeout=30)
        assert ready.json()["status"] == "ready"
        return max(models.status_code, embeddings.status_code, ready.status_code), embeddings.json()["data"][0]["id"]
    got = ask(proxy, "raw-ok", mode, **script_for(mode))
    return got.status, got.text()


@pytest.mark.parametrize("closing, mode", [(c, m) for c in (CLOSE_AFTER_ANSWER, IDLE_CLOSE, DROP_REUSED)
                                           for m in ("json", "stream", "loop-stream", "passthrough")])
def test_an_upstream_closing_keep_alive_connections_fails_no_request(closing, mode, proxy_for, logs):
    with RawUpstream(closing) as raw:
        proxy = proxy_for(mode, upstream=raw.url, fresh=True)
        sequential = []
        for number in range(SEQUENTIAL):
            sequential.append(ask_raw(proxy, mode))
            if closing == IDLE_CLOSE and number % 2:
                time.sleep(raw.idle * 1.5)  # the upstream closes the idle connection before the next request
        with ThreadPoolExecutor(CONCURRENT) as pool:
            concurrent = list(pool.map(lambda _: ask_raw(proxy, mode), range(CONCURRENT)))
    expected = (200, "raw" if mode == "passthrough" else "raw ok")
    assert sequential == [expected] * SEQUENTIAL and concurrent == [expected] * CONCURRENT
    assert raw.connections > 1, "the upstream did close connections"
    if closing == DROP_REUSED:
        assert raw.dropped >= 1 and logs.events("upstream_retry"), "stale connections were met and replaced"
    if mode.startswith("loop"):
        assert len(raw.bodies) == 2 * (SEQUENTIAL + CONCURRENT) and all("tools" in b for b in raw.bodies[::2])
    tally(f"upstream closes keep-alive ({closing})", "loop" if mode.startswith("loop") else mode,
          "all 200, complete", (SEQUENTIAL + CONCURRENT) * (3 if mode == "passthrough" else 1))


# ---- 6. a broken answer fails its own request only ------------------------------------

# An answer longer than its Content-Length: the bytes past it are where the next answer's status line must be,
# and they are not one, so the transport refuses the answer as not HTTP and drops the connection at once.
BROKEN_THEN_FINE = {  # case: (model, code)
    "Content-Length shorter than the body": ("raw-short-length", "upstream_connection_closed"),
    "Content-Length longer than the body, then fine": ("raw-long-length", "upstream_connection_closed"),
    "invalid status line, then fine": ("raw-bad-status", "upstream_protocol_error"),
}


@pytest.mark.parametrize("case, mode", [(c, m) for c in BROKEN_THEN_FINE for m in ("json", "loop-json")])
def test_a_broken_answer_fails_its_own_request_and_no_later_one(case, mode, proxy_for, logs):
    model, code = BROKEN_THEN_FINE[case]
    with RawUpstream(KEEP_ALIVE) as raw:
        proxy = proxy_for(mode, upstream=raw.url, fresh=True)
        before = ask_raw(proxy, mode)
        broken = ask(proxy, model, mode, **script_for(mode))
        after = [ask_raw(proxy, mode) for _ in range(5)]
    assert before == (200, "raw ok") and after == [(200, "raw ok")] * 5
    assert broken.status == 502 and broken.error()["code"] == code
    if model == "raw-short-length":
        assert "the answer is not HTTP" in broken.error()["message"], broken.error()["message"]
    tally(case, mode, f"502 {code}; the 6 requests around it 200", 7)
