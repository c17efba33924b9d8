"""The performance benchmark: skillproxy against direct calls, a bare passthrough and LiteLLM, on every surface.

    python -m bench.perf_bench                    # the full run: 10 s per cell, a 10,000-request soak
    python -m bench.perf_bench --quick            # 2 s per cell, a 2,000-request soak, no profiles: a few minutes
    python -m bench.perf_bench --skip-litellm --duration 5 --json perf.json
    python -m bench.perf_bench --quick --no-surfaces --workers 1   # the Chat Completions table only

One run, one fast fake upstream (bench/load_upstream.py, no pause between stream
events) on 127.0.0.1, and four targets measured one after the other, each the
only server running besides the upstream, each one process (one worker):
direct (the fake upstream itself, the floor), bare (bench/bare_passthrough.py,
the smallest Starlette + httpx proxy), skillproxy (`skillproxy serve` over the
seven corpus roots, routing on) and LiteLLM (its proxy with a no-op hook);
bench/perf_servers.py starts them.

wrk (Debian's package `wrk`) makes the load: for concurrency 1 and 32, non-stream and
stream, requests/s and p50/p99 latency, each request a body of its own so
skillproxy routes every one (bench/perf_load.py). Then, at concurrency 1 from a
raw socket, the time to the first event of a stream (median and p99), and one
2,000-event stream whose first event must come long before its end (a buffering
proxy would hold it). Then each proxy's RSS before and after a soak of 10,000
requests at concurrency 32, half of them streams. That is the Chat Completions
table (LiteLLM included).

With `--surfaces` (the default), the same cells, first bytes and long stream for
OpenAI Responses (`POST /v1/responses`), Anthropic Messages (`POST /v1/messages`)
and Ollama native (`POST /api/chat`, NDJSON), each answered by the fake upstream
in its own wire format: direct, bare and skillproxy on the same path (skillproxy
sends `/api/chat` to the upstream's root, bare forwards every path as it came).

With `--workers N` (default 2; 1 skips it), skillproxy twice more, one worker
and `--workers N`, both up at once, at c32 non-stream and stream against the
same upstream, the cells interleaved: req/s of N workers over one worker's, the
CPU seconds per second that skillproxy's processes, the upstream, wrk and the
rest of the machine used in each cell (they share the machine's cores), and the
RSS of the process manager and of each worker.

Apart from the servers, the preprocess time per request at 1,000 skills
(bench/preprocess_timing.py), timed on the engine directly over the dev cases.

Prints Markdown tables and the goals, each a figure and the limit it must stay
within (bench/perf_report.py `goals`). With `--profile-misses` (the default,
off with --quick), each missed goal's cell is loaded again under py-spy
(bench/perf_profile.py) and the report lists the top own-time functions and
packages there. Exits 1 when a goal is missed or a request failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from bench.perf_load import (
    ALTERNATE,
    ALWAYS,
    CHAT,
    NEVER,
    SURFACE_BY_NAME,
    SURFACES,
    Surface,
    WrkMissing,
    cpu_seconds,
    lua_script,
    machine_busy_seconds,
    process_count,
    reaped_children_cpu,
    rss_by_process,
    rss_bytes,
    run_wrk,
    stream_times,
    wrk_path,
)
from bench.perf_report import error_count, goals, missed_where, report
from bench.perf_servers import LITELLM_VERSION, Target, litellm_venv, start_target, upstream_server
from bench.preprocess_timing import percentile, preprocess_times

CELLS = ((1, False), (1, True), (32, False), (32, True))
WORKER_CELLS = ((32, False), (32, True))
LONG_EVENTS = 2000
PROFILE_TOP = 12

__all__ = ["CELLS", "cell_name", "main", "percentile", "preprocess_times", "run"]


def cell_name(concurrency: int, stream: bool) -> str:
    return f"c{concurrency} {'stream' if stream else 'non-stream'}"


def route_header(port: int, surface: Surface = CHAT) -> str:
    """What skillproxy decided for the benchmark message on `surface` (shows that routing is on)."""
    body = surface.body(f"route-check-{surface.name}", 0, False)
    answer = httpx.post(f"http://127.0.0.1:{port}{surface.path}", content=body,
                        headers={"content-type": "application/json"}, timeout=30)
    return str(answer.headers.get("x-skills-route", f"(no X-Skills-Route header; HTTP {answer.status_code})"))


# --- measuring one target ----------------------------------------------------------------------------------

def run_cell(target: Target, surface: Surface, concurrency: int, stream: bool, seconds: float, folder: Path,
             upstream: Target, label: str | None = None) -> dict[str, Any]:
    """One wrk cell: its figures, and for a proxy the CPU seconds per second it, the upstream and wrk used."""
    url = f"http://127.0.0.1:{target.port}{surface.path}"
    tag = f"{label or target.name}-{surface.name}-c{concurrency}-{'s' if stream else 'n'}"
    script = lua_script(folder, tag, ALWAYS if stream else NEVER, surface=surface)
    proxy = target.pid != upstream.pid
    before = (cpu_seconds(target.pid) if proxy else 0.0, cpu_seconds(upstream.pid), reaped_children_cpu(),
              machine_busy_seconds())
    cell = run_wrk(url, script, concurrency, seconds)
    after = (cpu_seconds(target.pid) if proxy else 0.0, cpu_seconds(upstream.pid), reaped_children_cpu(),
             machine_busy_seconds())
    found: dict[str, Any] = {"rps": cell.rps, "p50_ms": cell.p50_ms, "p99_ms": cell.p99_ms,
                             "requests": cell.requests, "errors": cell.errors}
    if proxy and cell.seconds:
        used = [(b - a) / cell.seconds for a, b in zip(before, after, strict=True)]
        found["cpu"] = {"proxy": used[0], "upstream": used[1], "wrk": used[2], "total": sum(used[:3]),
                        "other": max(0.0, used[3] - sum(used[:3]))}
    print(f"  {label or target.name:12} {surface.name:9} {cell_name(concurrency, stream):15} {cell.rps:8.0f} req/s  "
          f"p50 {cell.p50_ms:7.2f} ms  p99 {cell.p99_ms:7.2f} ms  errors {cell.errors}", file=sys.stderr, flush=True)
    return found


def measure_surface(target: Target, surface: Surface, args: argparse.Namespace, folder: Path,
                    upstream: Target) -> dict[str, Any]:
    """The four cells, the first bytes and the long stream of one surface."""
    url = f"http://127.0.0.1:{target.port}{surface.path}"
    run_wrk(url, lua_script(folder, f"{target.name}-{surface.name}-warm", ALTERNATE, surface=surface), 32,
            args.warmup)
    result: dict[str, Any] = {"cells": {cell_name(c, s): run_cell(target, surface, c, s, args.duration, folder,
                                                                   upstream) for c, s in CELLS}}
    firsts = [first for first, _ in stream_times(target.port, surface, f"{target.name}-{surface.name}-ttfb",
                                                 args.ttfb)]
    result["ttfb_ms"] = {"p50": percentile(firsts, 0.5) * 1000, "p99": percentile(firsts, 0.99) * 1000,
                         "n": len(firsts)}
    first, total = stream_times(target.port, surface, f"{target.name}-{surface.name}-long", 1,
                                events=LONG_EVENTS)[0]
    result["long_stream"] = {"events": LONG_EVENTS, "first_ms": first * 1000, "total_ms": total * 1000}
    return result


def measure(target: Target, args: argparse.Namespace, folder: Path, upstream: Target) -> dict[str, Any]:
    """Chat Completions (cells, first bytes, long stream, the soak), then each other surface unless LiteLLM."""
    result: dict[str, Any] = {**measure_surface(target, CHAT, args, folder, upstream),
                              "processes": process_count(target.pid)}
    if target.soak:
        url = f"http://127.0.0.1:{target.port}{CHAT.path}"
        result["rss"] = soak(target, url, args, folder, result["cells"])
    if args.surfaces and target.name != "litellm":
        result["surfaces"] = {surface.name: measure_surface(target, surface, args, folder, upstream)
                              for surface in SURFACES if surface is not CHAT}
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
    print(f"  {target.name:12} soak            {done} requests, RSS {before / 2**20:.1f} -> {after / 2**20:.1f} MiB",
          file=sys.stderr)
    return {"before_mib": before / 2**20, "after_mib": after / 2**20, "growth": after / before - 1,
            "requests": done, "errors": errors}


def measure_workers(args: argparse.Namespace, folder: Path, upstream: Target) -> dict[str, Any]:
    """skillproxy --workers N against one worker at c32, non-stream and stream, the cells interleaved (one
    worker, N workers, one, N: both servers are up, only the loaded one works), then each process's RSS."""
    label = f"skillproxy-w{args.workers}"
    with ExitStack() as stack:
        one = start_target(stack, "skillproxy", upstream.port, folder, None)
        several = start_target(stack, "skillproxy", upstream.port, folder, None, workers=args.workers)
        for target, tag in ((one, "skillproxy-w1"), (several, label)):
            url = f"http://127.0.0.1:{target.port}{CHAT.path}"
            run_wrk(url, lua_script(folder, f"{tag}-warm", ALTERNATE), 32, args.warmup)
        one_cells, cells = {}, {}
        for c, s in WORKER_CELLS:
            one_cells[cell_name(c, s)] = run_cell(one, CHAT, c, s, args.duration, folder, upstream, "skillproxy-w1")
            cells[cell_name(c, s)] = run_cell(several, CHAT, c, s, args.duration, folder, upstream, label)
        one_rss, rss = rss_bytes(one.pid) / 2**20, rss_by_process(several.pid)
    print(f"  {label:12} RSS parent {rss['parent_mib']:.1f} MiB, workers "
          + ", ".join(f"{mib:.1f}" for mib in rss["workers_mib"]) + f" MiB; one worker {one_rss:.1f} MiB",
          file=sys.stderr)
    return {"count": args.workers, "cells": cells, "rss": rss, "one_worker_cells": one_cells,
            "one_worker_rss_mib": one_rss, "processes": 1 + len(rss["workers_mib"]) + len(rss["others_mib"])}


# --- profiles of the goals missed --------------------------------------------------------------------------

def profile_misses(results: dict[str, Any], args: argparse.Namespace, folder: Path,
                   upstream: Target) -> list[dict[str, Any]]:
    """py-spy on each cell a missed goal is about: the top own-time functions and packages there."""
    from bench.perf_profile import Profile, PySpyMissing, profile_preprocess, profile_under_load

    missed = missed_where(results)
    found: list[dict[str, Any]] = []
    by_workers: dict[int, list[Any]] = {}
    for where in missed:
        by_workers.setdefault(0 if where.preprocess else where.workers, []).append(where)
    for workers, places in sorted(by_workers.items()):
        with ExitStack() as stack:
            target = None
            for where in places:
                print(f"profiling {where.key} ...", file=sys.stderr, flush=True)
                entry: dict[str, Any] = {"where": where.key, "goals": missed[where], "seconds": args.profile_seconds}
                try:
                    profile: Profile
                    if where.preprocess:
                        profile = profile_preprocess(args.catalog_size, args.profile_seconds, folder)
                    else:
                        if target is None:
                            target = start_target(stack, "skillproxy", upstream.port, folder, None, workers=workers)
                        profile = profile_under_load(target, SURFACE_BY_NAME[where.surface], where.concurrency,
                                                     where.stream, args.profile_seconds, folder,
                                                     subprocesses=workers > 1, warmup=args.warmup)
                except (PySpyMissing, RuntimeError, OSError, subprocess.SubprocessError) as failed:
                    entry["error"] = str(failed)
                else:
                    entry.update(samples=profile.samples, own=profile.top("own", PROFILE_TOP),
                                 packages=profile.top("packages", PROFILE_TOP))
                found.append(entry)
    return found


# --- the run -----------------------------------------------------------------------------------------------

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
                    if args.surfaces:
                        results["skillproxy_routes"] = {s.name: route_header(target.port, s)
                                                        for s in SURFACES if s is not CHAT}
                results["targets"][name] = measure(target, args, folder, direct)
        if args.workers > 1:
            print(f"skillproxy --workers {args.workers} ...", file=sys.stderr, flush=True)
            results["workers"] = measure_workers(args, folder, direct)
        if args.profile_misses and missed_where(results):
            results["profiles"] = profile_misses(results, args, folder, direct)
    results["config"]["load_after"] = os.getloadavg()[0]
    return results


def config(args: argparse.Namespace) -> dict[str, Any]:
    wrk = subprocess.run([wrk_path(), "--version"], capture_output=True, text=True).stdout.splitlines()
    return {"duration_s": args.duration, "soak_requests": args.soak, "ttfb_samples": args.ttfb,
            "litellm": None if args.skip_litellm else LITELLM_VERSION, "python": sys.version.split()[0],
            "wrk": wrk[0] if wrk else "wrk", "cores": os.cpu_count(), "load_before": os.getloadavg()[0],
            "surfaces": args.surfaces, "workers": args.workers, "profile_misses": args.profile_misses,
            "run": uuid.uuid4().hex[:8]}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, help="seconds per wrk cell (default 10; 2 with --quick)")
    parser.add_argument("--soak", type=int, help="requests in each proxy's RSS soak (default 10000; 2000 with --quick)")
    parser.add_argument("--ttfb", type=int, help="streams timed for the first byte (default 200; 50 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="short cells, a short soak, no profiles unless --profile-misses: a check that it all runs")
    parser.add_argument("--skip-litellm", action="store_true", help="no LiteLLM (no venv, no install)")
    parser.add_argument("--surfaces", action=argparse.BooleanOptionalAction, default=True,
                        help="also measure OpenAI Responses, Anthropic Messages and Ollama native (default on)")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="also measure skillproxy --workers N at c32 (default 2; 1 skips it)")
    parser.add_argument("--profile-misses", action=argparse.BooleanOptionalAction, default=None,
                        help="py-spy on the cell of each goal missed (default on; off with --quick)")
    parser.add_argument("--profile-seconds", type=float,
                        help="seconds each profile records (default 10; 4 with --quick)")
    parser.add_argument("--catalog-size", type=int, default=1000, help="skills for the preprocess timing")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)
    quick = args.quick
    args.duration = args.duration or (2.0 if quick else 10.0)
    args.soak = args.soak or (2000 if quick else 10_000)
    args.ttfb = args.ttfb or (50 if quick else 200)
    args.warmup = 1.0 if quick else 3.0
    args.profile_misses = (not quick) if args.profile_misses is None else args.profile_misses
    args.profile_seconds = args.profile_seconds or (4.0 if quick else 10.0)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        wrk_path()
    except WrkMissing as missing:
        print(f"perf_bench: {missing}", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = run(args)
    results["config"]["run_seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(report(results))
    failed = [row for row in goals(results) if row[3] is False]
    return 1 if failed or error_count(results) else 0


if __name__ == "__main__":
    sys.exit(main())
