"""The performance benchmark: skillproxy against direct calls, a bare passthrough and LiteLLM.

    python -m bench.perf_bench                    # the full run: 10 s per cell, a 10,000-request soak
    python -m bench.perf_bench --quick            # 2 s per cell, a 2,000-request soak: a few minutes
    python -m bench.perf_bench --skip-litellm --duration 5 --json perf.json

One run, one fast fake upstream (bench/load_upstream.py, no pause between stream
events) on 127.0.0.1, and four targets measured one after the other, each the
only server running besides the upstream, each one process (one worker):

1. direct: the fake upstream itself (the floor);
2. bare: bench/bare_passthrough.py, the smallest Starlette + httpx proxy;
3. skillproxy: `skillproxy serve` over the seven corpus roots of ../shared/corpus,
   routing on, the shipped config/skillproxy.yaml otherwise (server tool mode);
4. LiteLLM: its proxy with a no-op `async_pre_call_hook` (bench/litellm_hook.py,
   bench/litellm_config.yaml), installed from PyPI into its own venv under
   ~/.cache/skillproxy-bench the first time (about a minute).

wrk (Debian's package `wrk`) makes the load: for concurrency 1 and 32, non-stream and
stream, requests/s and p50/p99 latency, each request a chat body of its own so
skillproxy routes every one (bench/perf_load.py). Then, at concurrency 1 from a
raw socket, the time to the first event of a stream (median and p99), and one
2,000-event stream whose first event must come long before its end (a buffering
proxy would hold it). Then each proxy's RSS before and after a soak of 10,000
requests at concurrency 32, half of them streams. Apart from the servers, the
preprocess time per request at 1,000 skills (bench/big_catalog.py), timed on the
engine directly over the dev cases. Prints a Markdown table and the goals, each a figure
and the limit it must stay within (bench/perf_report.py `goals`); exits 1 when a goal is
missed or a request failed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.load_bench import free_port, wait_ready
from bench.perf_load import (
    ALTERNATE,
    ALWAYS,
    NEVER,
    WrkMissing,
    chat_body,
    lua_script,
    process_count,
    rss_bytes,
    run_wrk,
    stream_times,
    wrk_path,
)
from bench.perf_report import goals, report

REPO = Path(__file__).resolve().parent.parent
CHAT = "/v1/chat/completions"
CELLS = ((1, False), (1, True), (32, False), (32, True))
LONG_EVENTS = 2000
LITELLM_VERSION = "1.82.6"  # a known-clean release: 1.82.7 and 1.82.8 were malicious uploads (BerriAI/litellm#24518)
CACHE = Path.home() / ".cache" / "skillproxy-bench"


@dataclass(frozen=True)
class Target:
    name: str
    port: int
    pid: int
    soak: bool  # a proxy: its RSS is measured over the soak


def cell_name(concurrency: int, stream: bool) -> str:
    return f"c{concurrency} {'stream' if stream else 'non-stream'}"


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (share 0.5 is the median)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else float("nan")


# --- the servers -------------------------------------------------------------------------------------------

def spawn(stack: ExitStack, argv: list[str], log: Path, cwd: Path = REPO,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    out = stack.enter_context(open(log, "wb"))  # noqa: SIM115 - the ExitStack closes it
    process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    stack.callback(_stop, process)
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def corpus_roots() -> list[str]:
    from bench.corpus_skills import corpus_roots as roots

    found = [str(root) for root in roots() if root.is_dir()]
    if len(found) != 7:
        raise SystemExit(f"the seven corpus roots are not all there ({len(found)} found under ../shared/corpus)")
    return found


def litellm_venv(cache: Path = CACHE, version: str = LITELLM_VERSION) -> Path:
    """The `litellm` command of the benchmark's own venv, made (and LiteLLM installed) when missing."""
    venv = cache / "litellm-venv"
    command = venv / "bin" / "litellm"
    if command.exists() and list(venv.glob(f"lib/python*/site-packages/litellm-{version}.dist-info")):
        return command
    print(f"installing litellm[proxy]=={version} into {venv} (once, about a minute)", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"litellm[proxy]=={version}"], check=True)
    return command


def start_target(stack: ExitStack, name: str, upstream: int, logs: Path, litellm: Path | None) -> Target:
    port, origin = free_port(), f"http://127.0.0.1:{upstream}"
    if name == "bare":
        process, ready = spawn(stack, [sys.executable, "-m", "bench.bare_passthrough", "--upstream", origin,
                                       "--port", str(port)], logs / "bare.log"), "/stats"
    elif name == "skillproxy":
        roots = [arg for root in corpus_roots() for arg in ("--root", root)]
        process, ready = spawn(stack, [sys.executable, "-m", "proxy", "serve", "--upstream", origin + "/v1",
                                       "--port", str(port), "--log-format", "json", *roots],
                               logs / "skillproxy.log"), "/healthz"
    else:
        assert litellm is not None
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path.home()), "LANG": "C.UTF-8",
               "PERF_BENCH_UPSTREAM": origin + "/v1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        argv = [str(litellm), "--config", str(REPO / "bench" / "litellm_config.yaml"), "--host", "127.0.0.1",
                "--port", str(port), "--num_workers", "1", "--telemetry", "False"]
        process, ready = spawn(stack, argv, logs / "litellm.log", cwd=REPO / "bench", env=env), "/health/liveliness"
    wait_ready(f"http://127.0.0.1:{port}{ready}", timeout=180)
    return Target(name, port, process.pid, soak=True)


def route_header(port: int) -> str:
    """What skillproxy decided for the benchmark message (shows that routing is on)."""
    answer = httpx.post(f"http://127.0.0.1:{port}{CHAT}", content=chat_body("route-check", 0, stream=False),
                        headers={"content-type": "application/json"}, timeout=30)
    return answer.headers.get("x-skills-route", f"(no X-Skills-Route header; HTTP {answer.status_code})")


# --- measuring one target ----------------------------------------------------------------------------------

def measure(target: Target, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    url = f"http://127.0.0.1:{target.port}{CHAT}"
    run_wrk(url, lua_script(folder, f"{target.name}-warm", ALTERNATE), 32, args.warmup)
    result: dict[str, Any] = {"cells": {}, "processes": process_count(target.pid)}
    for concurrency, stream in CELLS:
        tag = f"{target.name}-c{concurrency}-{'s' if stream else 'n'}"
        cell = run_wrk(url, lua_script(folder, tag, ALWAYS if stream else NEVER), concurrency, args.duration)
        result["cells"][cell_name(concurrency, stream)] = {
            "rps": cell.rps, "p50_ms": cell.p50_ms, "p99_ms": cell.p99_ms, "requests": cell.requests,
            "errors": cell.errors}
        print(f"  {target.name:10} {cell_name(concurrency, stream):15} {cell.rps:8.0f} req/s  "
              f"p50 {cell.p50_ms:7.2f} ms  p99 {cell.p99_ms:7.2f} ms  errors {cell.errors}", file=sys.stderr)
    firsts = [first for first, _ in stream_times(target.port, CHAT, f"{target.name}-ttfb", args.ttfb)]
    result["ttfb_ms"] = {"p50": percentile(firsts, 0.5) * 1000, "p99": percentile(firsts, 0.99) * 1000,
                         "n": len(firsts)}
    first, total = stream_times(target.port, CHAT, f"{target.name}-long", 1, events=LONG_EVENTS)[0]
    result["long_stream"] = {"events": LONG_EVENTS, "first_ms": first * 1000, "total_ms": total * 1000}
    if target.soak:
        result["rss"] = soak(target, url, args, folder, result["cells"])
    return result


def soak(target: Target, url: str, args: argparse.Namespace, folder: Path,
         cells: dict[str, Any]) -> dict[str, Any]:
    """RSS before and after at least `args.soak` requests at concurrency 32, every other one a stream."""
    time.sleep(0.5)
    before = rss_bytes(target.pid)
    rate = max(1.0, (cells["c32 non-stream"]["rps"] + cells["c32 stream"]["rps"]) / 2)
    done, errors, part = 0, 0, 0
    while done < args.soak and part < 6:
        # wrk runs for a time, not a count: the first part aims short, the next ones use the rate just seen
        seconds = max(1.0, (args.soak - done) / rate * (0.6 if part == 0 else 1.05))
        run = run_wrk(url, lua_script(folder, f"{target.name}-soak{part}", ALTERNATE), 32, seconds)
        done, errors, part, rate = done + run.requests, errors + run.errors, part + 1, max(1.0, run.rps)
    time.sleep(1.0)
    after = rss_bytes(target.pid)
    print(f"  {target.name:10} soak            {done} requests, RSS {before / 2**20:.1f} -> {after / 2**20:.1f} MiB",
          file=sys.stderr)
    return {"before_mib": before / 2**20, "after_mib": after / 2**20, "growth": after / before - 1,
            "requests": done, "errors": errors}


def preprocess_times(size: int, passes: int) -> dict[str, Any]:
    """engine.preprocess per request over a `size`-skill catalog: every dev case, `passes` times (new turns)."""
    from bench.big_catalog import write_big_catalog
    from bench.corpus_skills import load_cases
    from proxy.engine.skill_engine import SkillEngine
    from proxy.settings import load_settings
    from proxy.surfaces.chat_messages import read_messages

    with tempfile.TemporaryDirectory(prefix="skillproxy-perf-catalog-") as tmp:
        roots = write_big_catalog(Path(tmp), size)
        settings = load_settings(None, env={}, overrides={"roots": tuple(str(root) for root in roots)})
        engine = SkillEngine.from_settings(settings, watch=False)
        texts = [case["text"] for case in load_cases()]
        for text in texts[:20]:
            engine.preprocess(read_messages([{"role": "user", "content": f"{text} (warm-up)"}]))
        times = []
        for number in range(passes):
            for text in texts:
                body = {"model": "load", "messages": [{"role": "user", "content": f"{text} ({number})"}]}
                started = time.perf_counter()
                engine.preprocess(read_messages(body["messages"]))
                times.append(time.perf_counter() - started)
        skills = len(engine.context.catalog.skills)
    return {"skills": skills, "n": len(times), "p50_ms": percentile(times, 0.5) * 1000,
            "p99_ms": percentile(times, 0.99) * 1000}


# --- the run -----------------------------------------------------------------------------------------------

@contextmanager
def upstream_server(logs: Path) -> Iterator[Target]:
    """The fast fake upstream (no pause between stream events), as the `direct` target."""
    with ExitStack() as stack:
        port = free_port()
        process = spawn(stack, [sys.executable, "-m", "bench.load_upstream", "--port", str(port), "--gap", "0"],
                        logs / "upstream.log")
        wait_ready(f"http://127.0.0.1:{port}/stats")
        yield Target("direct", port, process.pid, soak=False)


def run(args: argparse.Namespace) -> dict[str, Any]:
    litellm = None if args.skip_litellm else litellm_venv()
    names = ["direct", "bare", "skillproxy"] + ([] if args.skip_litellm else ["litellm"])
    results: dict[str, Any] = {"config": config(args), "targets": {}}
    print(f"preprocess at {args.catalog_size} skills ...", file=sys.stderr, flush=True)
    results["preprocess"] = preprocess_times(args.catalog_size, 1 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="skillproxy-perf-") as tmp, upstream_server(Path(tmp)) as direct:
        folder = Path(tmp)
        for name in names:
            print(f"{name} ...", file=sys.stderr, flush=True)
            with ExitStack() as stack:
                target = direct if name == "direct" else start_target(stack, name, direct.port, folder, litellm)
                if name == "skillproxy":
                    results["skillproxy_route"] = route_header(target.port)
                results["targets"][name] = measure(target, args, folder)
    results["config"]["load_after"] = os.getloadavg()[0]
    return results


def config(args: argparse.Namespace) -> dict[str, Any]:
    wrk = subprocess.run([wrk_path(), "--version"], capture_output=True, text=True).stdout.splitlines()
    return {"duration_s": args.duration, "soak_requests": args.soak, "ttfb_samples": args.ttfb,
            "litellm": None if args.skip_litellm else LITELLM_VERSION, "python": sys.version.split()[0],
            "wrk": wrk[0] if wrk else "wrk", "cores": os.cpu_count(), "load_before": os.getloadavg()[0],
            "run": uuid.uuid4().hex[:8]}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, help="seconds per wrk cell (default 10; 2 with --quick)")
    parser.add_argument("--soak", type=int, help="requests in each proxy's RSS soak (default 10000; 2000 with --quick)")
    parser.add_argument("--ttfb", type=int, help="streams timed for the first byte (default 200; 50 with --quick)")
    parser.add_argument("--quick", action="store_true", help="short cells, a short soak: a check that it all runs")
    parser.add_argument("--skip-litellm", action="store_true", help="no LiteLLM (no venv, no install)")
    parser.add_argument("--catalog-size", type=int, default=1000, help="skills for the preprocess timing")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)
    quick = args.quick
    args.duration = args.duration or (2.0 if quick else 10.0)
    args.soak = args.soak or (2000 if quick else 10_000)
    args.ttfb = args.ttfb or (50 if quick else 200)
    args.warmup = 1.0 if quick else 3.0
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        wrk_path()
    except WrkMissing as missing:
        print(f"perf_bench: {missing}", file=sys.stderr)
        return 2
    results = run(args)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(report(results))
    failed = [row for row in goals(results) if row[3] is False]
    targets = results["targets"].values()
    errors = sum(cell["errors"] for t in targets for cell in t["cells"].values())
    errors += sum(t["rss"]["errors"] for t in targets if t.get("rss"))
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
