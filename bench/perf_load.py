"""The measuring tools of bench/perf_bench.py: wrk with a Lua body script, a raw-socket TTFB client, RSS, CPU.

wrk (Debian's package `wrk`) makes the load: one thread, C keep-alive connections,
each request a POST to one surface's path (`SURFACES`: Chat Completions, OpenAI
Responses, Anthropic Messages, Ollama's `/api/chat`) with a body of its own (the
user message carries a counter, so skillproxy routes every request instead of
replaying a turn it has seen). Each surface's body is built once in Python
(`Surface.body`); the Lua script is cut from the same JSON, so the two cannot
differ. Its `done()` hook prints the figures as one `WRKJSON {...}` line:
request count, duration, p50/p99 latency in microseconds, errors. wrk cannot
see when the first byte of a stream arrives, so the time to first byte is
measured here with a blocking socket, one request at a time, on one keep-alive
connection: the client's own cost is the same for every target.
"""

from __future__ import annotations

import json
import resource
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

import psutil

WRK_PACKAGE = "wrk"
MESSAGE = ("make me a p5.js sketch with thousands of thin lines drifting like wind over water, "
           "and let me re-run it to get the exact same image later")  # a dev case: routes to algorithmic-art
EVENTS = 8  # content events per stream (the fake upstream sends max_tokens of them)
NEVER, ALWAYS, ALTERNATE = 0, 1, 2  # which requests of a wrk run ask for a stream

TEXT = "@@TEXT@@"  # where the user message goes in a surface's body, cut out for the Lua script

LUA = Template(r"""
local mode, counter = $mode, 0
local prefix = '$prefix'
local plain_tail, stream_tail = '$plain_tail', '$stream_tail'
local headers = {["Content-Type"] = "application/json"}

function request()
  counter = counter + 1
  local stream = mode == 1 or (mode == 2 and counter % 2 == 0)
  local body = prefix .. counter .. (stream and stream_tail or plain_tail)
  return wrk.format("POST", nil, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,'
    .. '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
""")


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def _chat(text: str, events: int, stream: bool) -> dict[str, Any]:
    return {"model": "load", "max_tokens": events, "messages": _user(text), **({"stream": True} if stream else {})}


def _responses(text: str, events: int, stream: bool) -> dict[str, Any]:
    return {"model": "load", "max_output_tokens": events, "input": text, **({"stream": True} if stream else {})}


def _ollama(text: str, events: int, stream: bool) -> dict[str, Any]:
    return {"model": "load", "options": {"num_predict": events}, "messages": _user(text), "stream": stream}


@dataclass(frozen=True)
class Surface:
    """One wire format the benchmark loads: its path, its request body, how its stream's first event starts."""

    name: str
    label: str
    path: str
    build: Callable[[str, int, bool], dict[str, Any]]  # (user text, content events, stream) -> the body
    first_event: bytes  # the first bytes of a streamed answer's first event
    accept: str = "text/event-stream"  # what a streaming client of this API asks for

    def body(self, tag: str, number: int, stream: bool, events: int = EVENTS) -> bytes:
        """One benchmark request body, as wrk's script builds it."""
        return _dumps(self.build(f"{MESSAGE} ({tag} {number})", events, stream))

    def lua_pieces(self, tag: str, events: int = EVENTS) -> tuple[str, str, str]:
        """(the body up to the request's number, what follows it non-streamed, what follows it streamed)."""
        plain_head, plain_tail = _dumps(self.build(TEXT, events, False)).decode().split(TEXT)
        stream_head, stream_tail = _dumps(self.build(TEXT, events, True)).decode().split(TEXT)
        if plain_head != stream_head:
            raise ValueError(f"{self.name}: `stream` must come after the user message in the body")
        return f"{plain_head}{MESSAGE} ({tag} ", ")" + plain_tail, ")" + stream_tail


CHAT = Surface("chat", "Chat Completions", "/v1/chat/completions", _chat, b"data:")
RESPONSES = Surface("responses", "OpenAI Responses", "/v1/responses", _responses, b"data:")
MESSAGES = Surface("messages", "Anthropic Messages", "/v1/messages", _chat, b"data:")
OLLAMA = Surface("ollama", "Ollama native", "/api/chat", _ollama, b'{"', "application/x-ndjson")
SURFACES = (CHAT, RESPONSES, MESSAGES, OLLAMA)
SURFACE_BY_NAME = {surface.name: surface for surface in SURFACES}


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


class WrkMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class WrkResult:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def wrk_path() -> str:
    path = shutil.which("wrk")
    if path is None:
        raise WrkMissing(f"wrk is not installed: it makes the load. Install Debian's package `{WRK_PACKAGE}` "
                         f"(apt-get install -y {WRK_PACKAGE}) and run again.")
    return path


def lua_script(folder: Path, tag: str, mode: int, events: int = EVENTS, surface: Surface = CHAT) -> Path:
    """A wrk script posting `surface`'s bodies, `mode` saying which ask for a stream (NEVER, ALWAYS, ALTERNATE)."""
    prefix, plain_tail, stream_tail = surface.lua_pieces(tag, events)
    if "'" in prefix + plain_tail + stream_tail or "\\" in prefix + plain_tail + stream_tail:
        raise ValueError("a quote or backslash in a body piece: the Lua string would read it differently")
    path = folder / f"{tag}.lua"
    path.write_text(LUA.substitute(mode=mode, prefix=prefix, plain_tail=plain_tail, stream_tail=stream_tail),
                    encoding="utf-8")
    return path


def run_wrk(url: str, script: Path, connections: int, seconds: float) -> WrkResult:
    command = [wrk_path(), "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
               "-s", str(script), url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120)
    return parse_wrk(done.stdout + done.stderr)


def parse_wrk(output: str) -> WrkResult:
    """The figures of the `WRKJSON` line our `done()` prints."""
    line = next((ln for ln in output.splitlines() if ln.startswith("WRKJSON ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no figures:\n{output[-2000:]}")
    data = json.loads(line[len("WRKJSON "):])
    return WrkResult(requests=data["requests"], seconds=data["duration_us"] / 1e6, p50_ms=data["p50_us"] / 1000,
                     p99_ms=data["p99_us"] / 1000, errors=sum(data["errors"].values()))


def chat_body(tag: str, number: int, stream: bool, events: int = EVENTS) -> bytes:
    """One Chat Completions benchmark body, as wrk's script builds it."""
    return CHAT.body(tag, number, stream, events)


def stream_times(port: int, surface: Surface, tag: str, count: int, events: int = EVENTS,
                 timeout: float = 60.0) -> list[tuple[float, float]]:
    """(seconds to the first event, seconds to the end of the answer) for `count` streams in a row."""
    times = []
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for number in range(count):
            body = surface.body(tag, number, stream=True, events=events)
            head = (f"POST {surface.path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                    f"Accept: {surface.accept}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            times.append(_one_stream(sock, head + body, surface.first_event))
    return times


def _one_stream(sock: socket.socket, request: bytes, first_event: bytes) -> tuple[float, float]:
    """Send one request; read its chunked answer to the end. The first event: `first_event` seen after the head."""
    started = time.perf_counter()
    sock.sendall(request)
    received, first = bytearray(), None
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError(f"connection closed mid-answer after {bytes(received[:300])!r}")
        received += chunk
        if first is None:
            if not received.startswith(b"HTTP/1.1 200"):
                raise ConnectionError(f"not a 200 stream: {bytes(received[:300])!r}")
            head_end = received.find(b"\r\n\r\n")
            if head_end >= 0 and received.find(first_event, head_end) >= 0:
                first = time.perf_counter() - started
        if received.endswith(b"\r\n0\r\n\r\n"):
            return first if first is not None else float("nan"), time.perf_counter() - started


def rss_bytes(pid: int) -> int:
    """Resident memory of a process and its children."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])


def process_count(pid: int) -> int:
    return 1 + len(psutil.Process(pid).children(recursive=True))


def rss_by_process(pid: int) -> dict[str, Any]:
    """The resident memory of a process and of each child: `parent_mib`, `workers_mib` (uvicorn's workers,
    started by multiprocessing's spawn) and `others_mib` (any other child, such as multiprocessing's
    resource tracker)."""
    process = psutil.Process(pid)
    workers: list[float] = []
    others: list[float] = []
    for child in process.children(recursive=True):
        try:
            command, rss = " ".join(child.cmdline()), child.memory_info().rss / 2**20
        except psutil.NoSuchProcess:
            continue
        (workers if "spawn_main" in command else others).append(rss)
    return {"parent_mib": process.memory_info().rss / 2**20, "workers_mib": workers, "others_mib": others}


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process and its children have used."""
    process = psutil.Process(pid)
    total = 0.0
    for each in [process, *process.children(recursive=True)]:
        try:
            times = each.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (every process, every core; not idle, not waiting on I/O)."""
    times = psutil.cpu_times()
    return sum(getattr(times, field) for field in ("user", "nice", "system", "irq", "softirq", "steal")
               if hasattr(times, field))


def reaped_children_cpu() -> float:
    """CPU seconds of this process's finished children (wrk, once `run_wrk` has waited for it)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
