"""What was tried for each performance goal of issue 20, with the figures each try measured.

bench/perf_report.py prints these under a missed goal, beside the profile of where the time goes
now, so a reader of a run sees what has been done about it and what is left. Each figure comes
from one A/B run (before and after in the same run, on the same 2-core machine), since absolute
times from different runs on a shared machine do not compare.
"""

from __future__ import annotations

# (a piece of the goal's name, the levers tried for it): a goal gets every entry whose piece its name holds.
LEVERS_TRIED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("req/s, skillproxy/bare", (
        "kept: the upstream client's transport, httpcore → aiohttp's connection pool under httpx's API "
        "(proxy/upstream/aiohttp_transport.py): c32 non-stream 197 → 364 req/s, c32 stream 180 → 320 req/s",
        "kept: one `request` log line per request, the step events at debug (`log_events`)",
        "kept: chat POSTs served by `FastPath` past FastAPI's router and dependency resolution",
        "kept: preprocessing inline, without the thread hop, while recent runs are fast (`PreprocessPace`)",
        "rejected: the `httpx-aiohttp` package (same idea, but it maps a server disconnect to a connect "
        "timeout and lets a bad status line through unmapped)",
        "left: calling the transport without httpx.AsyncClient.send (httpx's request and response objects are "
        "8-13 % of the profile); uvicorn writing the answer is 15-17 % here and in the bare passthrough alike",
    )),
    ("added p50, skillproxy/bare", (
        "kept: the aiohttp transport (c1 p50 3.75 → 3.24 ms), one log line per request, `FastPath`, inline "
        "preprocessing",
        "kept: routing's per-catalog work (postings and field weights laid out once): 1,000 skills p50 "
        "0.77 → 0.48 ms",
        "the rest is the work a skill proxy does that a bare one does not: routing (5-8 % of the profile), "
        "the turn record and the inspect history (~4 %), the one log line (~4 %)",
    )),
    ("added first byte", (
        "kept: the same levers as c1 non-stream (the first event waits for the same preprocessing and "
        "upstream request)",
        "the bare passthrough itself adds 1.6-2.6 ms to the first byte on this machine, so a 1.5 ms ceiling "
        "sits below what a Python proxy with an HTTP client adds here",
    )),
    ("preprocess", (
        "kept: routing per catalog, not per request (postings as arrays for common terms, field weights "
        "folded once, a message normalised once): p50 0.77 → 0.48 ms, p99 1.40 → 0.95 ms at 1,000 skills, "
        "every decision identical (bench/decision_dump.py)",
        "left: building the decision events only when read (estimated 5-10 % of preprocessing)",
    )),
    ("--workers", (
        "kept: `serve --workers N` (uvicorn's own process manager), each worker loading the catalog itself",
        "the ratio depends on a core being free for the second worker: wrk and the fake upstream share the "
        "two cores (the CPU rows of the workers table say how busy they were)",
    )),
)


def levers_for(goal: str) -> list[str]:
    """The levers tried for a goal, by its name."""
    return [lever for piece, levers in LEVERS_TRIED if piece in goal for lever in levers]
