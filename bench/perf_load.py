"""The measuring tools of bench/perf_bench.py: wrk with a Lua body script, a raw-socket TTFB client, RSS.

wrk (Debian's package `wrk`) makes the load: one thread, C keep-alive connections,
each request a POST to /v1/chat/completions with a body of its own (the user
message carries a counter, so skillproxy routes every request instead of
replaying a turn it has seen). Its `done()` hook prints the figures as one
`WRKJSON {...}` line: request count, duration, p50/p99 latency in microseconds,
errors. wrk cannot see when the first byte of a stream arrives, so the time to
first byte is measured here with a blocking socket, one request at a time, on
one keep-alive connection: the client's own cost is the same for every target.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from string import Template

import psutil

WRK_PACKAGE = "wrk"
MESSAGE = ("make me a p5.js sketch with thousands of thin lines drifting like wind over water, "
           "and let me re-run it to get the exact same image later")  # a dev case: routes to algorithmic-art
EVENTS = 8  # content events per stream (the fake upstream sends max_tokens of them)
NEVER, ALWAYS, ALTERNATE = 0, 1, 2  # which requests of a wrk run ask for a stream

LUA = Template(r"""
local mode, counter = $mode, 0
local prefix = '{"model":"load","max_tokens":$events,"messages":[{"role":"user","content":"$message ($tag '
local headers = {["Content-Type"] = "application/json"}

function request()
  counter = counter + 1
  local stream = mode == 1 or (mode == 2 and counter % 2 == 0)
  local body = prefix .. counter .. ')"}]' .. (stream and ',"stream":true}' or '}')
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


def lua_script(folder: Path, tag: str, mode: int, events: int = EVENTS) -> Path:
    """A wrk script posting chat bodies, `mode` saying which ask for a stream (NEVER, ALWAYS, ALTERNATE)."""
    path = folder / f"{tag}.lua"
    path.write_text(LUA.substitute(mode=mode, events=events, message=MESSAGE, tag=tag), encoding="utf-8")
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
    """One benchmark request body, as wrk's script builds it."""
    message = {"role": "user", "content": f"{MESSAGE} ({tag} {number})"}
    body = {"model": "load", "max_tokens": events, "messages": [message], **({"stream": True} if stream else {})}
    return json.dumps(body, separators=(",", ":")).encode()


def stream_times(port: int, path: str, tag: str, count: int, events: int = EVENTS,
                 timeout: float = 60.0) -> list[tuple[float, float]]:
    """(seconds to the first SSE event, seconds to the end of the answer) for `count` streams in a row."""
    times = []
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for number in range(count):
            body = chat_body(tag, number, stream=True, events=events)
            head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                    f"Accept: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            times.append(_one_stream(sock, head + body))
    return times


def _one_stream(sock: socket.socket, request: bytes) -> tuple[float, float]:
    """Send one request; read its chunked answer to the end. The first event is the first `data:` seen."""
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
            if b"data:" in received:
                first = time.perf_counter() - started
        if received.endswith(b"\r\n0\r\n\r\n"):
            return first if first is not None else float("nan"), time.perf_counter() - started


def rss_bytes(pid: int) -> int:
    """Resident memory of a process and its children."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])


def process_count(pid: int) -> int:
    return 1 + len(psutil.Process(pid).children(recursive=True))
