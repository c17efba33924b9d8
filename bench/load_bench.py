"""The load run: many concurrent streams, then many aborted ones, with figures.

    python -m bench.load_bench                       # 200 clients for 60 s, 1,000 aborts
    python -m bench.load_bench --clients 50 --seconds 10 --aborts 200

The load upstream (`bench.load_upstream`) and the real proxy with its probe
(`bench.probed_proxy`, the real engine over skills/) run in processes of their own
on 127.0.0.1; the clients run here. Exits non-zero when any check fails:
every stream complete and byte-identical, every aborted stream's upstream
connection closed within 1 s, the proxy's tasks and upstream connections back
to where they were, its RSS back within 10 %.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from bench.load_clients import AbortResult, abort_storm, get_json, stream_soak, wait_until_closed
from proxy.upstream.client import MAX_IDLE_CONNECTIONS as KEEPALIVE_POOL

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(stack: ExitStack, args: list[str], log: Path) -> subprocess.Popen[bytes]:
    out = stack.enter_context(open(log, "wb"))  # noqa: SIM115 - the ExitStack closes it
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    stack.callback(_stop, process)
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def wait_ready(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up within {timeout:.0f} s")


async def run(args: argparse.Namespace, proxy: str, upstream: str, port: int) -> list[tuple[str, str, bool]]:
    probe_url = f"{proxy}/_probe?port={port}"
    await stream_soak(proxy + "/v1", clients=args.clients, seconds=3)  # warm-up at full size
    await abort_storm(proxy + "/v1", count=args.abort_concurrency, concurrency=args.abort_concurrency, tag="warm")
    await wait_until_closed(upstream, AbortResult())
    before = await get_json(probe_url)
    soak = await stream_soak(proxy + "/v1", clients=args.clients, seconds=args.seconds, events=args.events)
    aborted = await abort_storm(proxy + "/v1", count=args.aborts, concurrency=args.abort_concurrency)
    stats = await wait_until_closed(upstream, aborted)
    await asyncio.sleep(1.0)
    after = await get_json(probe_url)
    for error in soak.errors[:5]:
        print("stream error:", error, file=sys.stderr)
    if after["tasks"] > before["tasks"]:
        print("tasks left behind, by where they wait:", *after["task_stacks"], sep="\n  ", file=sys.stderr)
    return rows(args, soak, aborted, stats, before, after)


def rows(args: argparse.Namespace, soak: Any, aborted: AbortResult, stats: dict[str, Any],
         before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, bool]]:
    delays = aborted.close_delays(stats["closed_at"])
    closed = sorted(d for d in delays.values() if d is not None)
    p99 = closed[int(len(closed) * 0.99) - 1] if closed else float("nan")
    growth = after["rss"] / before["rss"] - 1
    return [
        (f"{args.clients} concurrent streaming clients for {args.seconds:.0f} s",
         f"{soak.streams} streams ({soak.streams / soak.seconds:.0f}/s, {soak.bytes / 2**20:.1f} MiB), "
         f"{soak.identical} byte-identical, {len(soak.errors)} errors, {len(soak.mismatched)} different",
         soak.identical == soak.streams and not soak.errors),
        (f"{args.aborts} streams aborted by the client",
         f"{len(closed)} upstream closes seen, max {max(closed, default=float('nan')) * 1000:.0f} ms, "
         f"p99 {p99 * 1000:.0f} ms, {len(aborted.errors)} client errors, {stats['open']} still open",
         len(closed) == args.aborts and max(closed, default=9) <= 1.0 and not aborted.errors and stats["open"] == 0),
        ("proxy tasks after the aborts", f"{before['tasks']} before, {after['tasks']} after",
         after["tasks"] <= before["tasks"]),
        ("proxy connections to the upstream", f"{after['connections']} (keep-alive pool {KEEPALIVE_POOL})",
         after["connections"] <= KEEPALIVE_POOL),
        ("proxy RSS", f"{before['rss'] / 2**20:.1f} MiB before, {after['rss'] / 2**20:.1f} MiB after "
         f"({growth:+.1%})", growth <= 0.10),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--events", type=int, default=16, help="content events per stream")
    parser.add_argument("--aborts", type=int, default=1000)
    parser.add_argument("--abort-concurrency", type=int, default=100)
    args = parser.parse_args()
    with ExitStack() as stack:
        logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="skillproxy-load-")))
        up_port, proxy_port = free_port(), free_port()
        upstream, proxy = f"http://127.0.0.1:{up_port}", f"http://127.0.0.1:{proxy_port}"
        start(stack, ["bench.load_upstream", "--port", str(up_port)], logs / "upstream.log")
        start(stack, ["bench.probed_proxy", "--upstream", upstream + "/v1", "--port", str(proxy_port)],
              logs / "proxy.log")
        wait_ready(upstream + "/stats")
        wait_ready(proxy + "/healthz")
        table = asyncio.run(run(args, proxy, upstream, up_port))
        for name in ("proxy.log", "upstream.log"):
            report_trouble(name, logs / name)
    print("| tried | outcome | ok |\n|---|---|---|")
    for tried, outcome, ok in table:
        print(f"| {tried} | {outcome} | {'yes' if ok else 'NO'} |")
    return 0 if all(ok for _, _, ok in table) else 1


def report_trouble(name: str, log: Path) -> None:
    """The warnings and errors a server logged during the run, counted by event, on stderr."""
    counts: dict[str, int] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if '"level":"warning"' in line or '"level":"error"' in line or "Traceback" in line or "ERROR" in line:
            key = line if len(line) < 160 else line[:160] + "…"
            event = json.loads(line).get("event", key) if line.startswith("{") else key
            counts[event] = counts.get(event, 0) + 1
    for event, count in sorted(counts.items(), key=lambda item: -item[1])[:10]:
        print(f"{name}: {count} × {event}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
