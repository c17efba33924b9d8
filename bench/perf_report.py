"""The Markdown of bench/perf_bench.py: its tables, the goals check, and the profiles of the goals missed.

Pure functions over the results dict that `perf_bench.run` builds (and `--json`
writes), so a saved run can be printed again: `python -m bench.perf_report FILE`.
A figure a run did not measure (an older file, a part skipped) prints as `–`
and its goal as `n/a`. A ratio is always skillproxy's figure over the other
target's; for latencies the ratio is of the latency *added* over direct, which
is what a proxy costs. Each surface (OpenAI Responses, Anthropic Messages,
Ollama native) has a table of its own: skillproxy against the bare passthrough
and direct on that surface's path. `missed_where` says which measured cell
each missed goal is about, so perf_bench can profile it.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.perf_levers import levers_for

TARGETS = (("direct", "direct"), ("bare", "bare"), ("skillproxy", "skillproxy"), ("litellm", "LiteLLM"))
CELLS = ("c1 non-stream", "c1 stream", "c32 non-stream", "c32 stream")
SURFACES = (("responses", "OpenAI Responses", "POST /v1/responses"),
            ("messages", "Anthropic Messages", "POST /v1/messages"),
            ("ollama", "Ollama native", "POST /api/chat, NDJSON stream"))
WORKER_CELLS = ("c32 non-stream", "c32 stream")
NA = "–"

Goal = tuple[str, str, str, "bool | None"]


@dataclass(frozen=True)
class Where:
    """The measured cell a goal is about: what to profile when it is missed."""

    surface: str = "chat"
    concurrency: int = 32
    stream: bool = False
    workers: int = 1
    preprocess: bool = False

    @property
    def key(self) -> str:
        if self.preprocess:
            return "engine.preprocess at the big catalog"
        workers = f" --workers {self.workers}" if self.workers > 1 else ""
        return f"skillproxy{workers}, {self.surface} c{self.concurrency} {'stream' if self.stream else 'non-stream'}"


def _get(results: dict[str, Any], target: str, *path: str) -> float | None:
    value: Any = results.get("targets", {}).get(target)
    return _dig(value, *path)


def _dig(value: Any, *path: str) -> float | None:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if value is None or isinstance(value, (dict, list, str)) or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _added(results: dict[str, Any], target: str, *path: str) -> float | None:
    value, floor = _get(results, target, *path), _get(results, "direct", *path)
    return None if value is None or floor is None else value - floor


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b <= 0 else a / b


def _fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return NA if value is None else f"{value:,.{digits}f}{suffix}"


def _row(label: str, values: dict[str, float | None], digits: int, ratios: bool = True,
         targets: tuple[tuple[str, str], ...] = TARGETS) -> str:
    cells = [_fmt(values.get(key), digits) for key, _ in targets]
    sp = values.get("skillproxy")
    others = [key for key, _ in targets if key in ("bare", "litellm")]
    cells += [_fmt(_ratio(sp, values.get(key)), 2, "×") if ratios else "" for key in others]
    return f"| {label} | " + " | ".join(cells) + " |"


def _head(targets: tuple[tuple[str, str], ...]) -> list[str]:
    others = [f"skillproxy/{label}" for key, label in targets if key in ("bare", "litellm")]
    labels = [label for _, label in targets] + others
    return ["| | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]


def load_rows(results: dict[str, Any], prefix: tuple[str, ...] = (),
              targets: tuple[tuple[str, str], ...] = TARGETS) -> list[str]:
    """req/s, p50, p99 and added p50 of each cell; `prefix` is the path to a surface's figures."""
    keys = [key for key, _ in targets]
    rows = []
    for cell in CELLS:
        def each(figure: str) -> dict[str, float | None]:
            return {k: _get(results, k, *prefix, "cells", cell, figure) for k in keys}  # noqa: B023

        rows.append(_row(f"{cell}: req/s", each("rps"), 0, targets=targets))
        rows.append(_row(f"{cell}: p50 ms", each("p50_ms"), 2, False, targets))
        rows.append(_row(f"{cell}: p99 ms", each("p99_ms"), 2, False, targets))
        rows.append(_row(f"{cell}: added p50 ms", {k: _added(results, k, *prefix, "cells", cell, "p50_ms")
                                                   for k in keys if k != "direct"}, 2, targets=targets))
    return rows


def stream_rows(results: dict[str, Any], prefix: tuple[str, ...] = (),
                targets: tuple[tuple[str, str], ...] = TARGETS) -> list[str]:
    keys = [key for key, _ in targets]
    rows = [
        _row("c1 stream: first byte p50 ms", {k: _get(results, k, *prefix, "ttfb_ms", "p50") for k in keys}, 2,
             False, targets),
        _row("c1 stream: first byte p99 ms", {k: _get(results, k, *prefix, "ttfb_ms", "p99") for k in keys}, 2,
             False, targets),
        _row("c1 stream: added first byte p50 ms", {k: _added(results, k, *prefix, "ttfb_ms", "p50")
                                                    for k in keys if k != "direct"}, 2, targets=targets),
    ]
    found = [_section(results, k, prefix) for k in keys]
    events = next((int(t["long_stream"]["events"]) for t in found if t and "long_stream" in t), 0)
    blanks = " |" * sum(1 for key, _ in targets if key in ("bare", "litellm"))
    rows.append(f"| {events:,}-event stream: first byte / whole ms | "
                + " | ".join(_long_cell(t) for t in found) + " |" + blanks)
    return rows


def _section(results: dict[str, Any], target: str, prefix: tuple[str, ...]) -> dict[str, Any] | None:
    value: Any = results.get("targets", {}).get(target)
    for key in prefix:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else None


def _long_cell(target: dict[str, Any] | None) -> str:
    if not target or "long_stream" not in target:
        return NA
    return f"{target['long_stream']['first_ms']:,.1f} / {target['long_stream']['total_ms']:,.0f}"


def memory_rows(results: dict[str, Any]) -> list[str]:
    keys = [key for key, _ in TARGETS]
    growth = {k: _percent(_get(results, k, "rss", "growth")) for k in keys}
    return [
        _row("soak: requests at c32, half streams", {k: _get(results, k, "rss", "requests") for k in keys}, 0, False),
        _row("RSS before soak MiB", {k: _get(results, k, "rss", "before_mib") for k in keys}, 1),
        _row("RSS after soak MiB", {k: _get(results, k, "rss", "after_mib") for k in keys}, 1),
        _row("RSS growth %", growth, 1, False),
        _row("processes", {k: _get(results, k, "processes") for k in keys if k != "direct"}, 0, False),
    ]


def _percent(share: float | None) -> float | None:
    return None if share is None else share * 100


def table(results: dict[str, Any]) -> str:
    """The Chat Completions table: every target, with skillproxy's ratios to bare and LiteLLM."""
    return "\n".join([*_head(TARGETS), *load_rows(results), *stream_rows(results), *memory_rows(results)])


def surface_table(results: dict[str, Any], surface: str) -> str:
    """One surface's table: direct, bare and skillproxy on that surface's path."""
    targets = TARGETS[:3]
    prefix = ("surfaces", surface)
    return "\n".join([*_head(targets), *load_rows(results, prefix, targets), *stream_rows(results, prefix, targets)])


def workers_table(results: dict[str, Any]) -> str:
    """skillproxy with one worker and with `--workers N`, at c32, with the CPU used and the memory."""
    workers = results.get("workers") or {}
    count = int(workers.get("count", 2))
    one = _one_worker_cells(results)
    several = workers.get("cells", {})
    head = f"| | skillproxy, 1 worker | skillproxy --workers {count} | {count} workers / 1 |"
    rows = [head, "|---|---:|---:|---:|"]
    for cell in WORKER_CELLS:
        a, b = _dig(one, cell, "rps"), _dig(several, cell, "rps")
        rows.append(f"| {cell}: req/s | {_fmt(a, 0)} | {_fmt(b, 0)} | {_fmt(_ratio(b, a), 2, '×')} |")
        rows.append(f"| {cell}: p50 ms | {_fmt(_dig(one, cell, 'p50_ms'))} | {_fmt(_dig(several, cell, 'p50_ms'))} |"
                    " |")
        for part, label in (("proxy", "skillproxy (all processes)"), ("upstream", "fake upstream"), ("wrk", "wrk"),
                            ("total", "these three"), ("other", "anything else on the machine")):
            rows.append(f"| {cell}: CPU s/s, {label} | {_fmt(_dig(one, cell, 'cpu', part))} | "
                        f"{_fmt(_dig(several, cell, 'cpu', part))} | |")
    rss = workers.get("rss") or {}
    each = " + ".join(f"{mib:,.1f}" for mib in rss.get("workers_mib", [])) or NA
    others = " + ".join(f"{mib:,.1f}" for mib in rss.get("others_mib", []))
    total = sum([rss.get("parent_mib", 0.0), *rss.get("workers_mib", []), *rss.get("others_mib", [])])
    one_rss = _dig(workers, "one_worker_rss_mib")
    rows.append(f"| RSS MiB, after the cells | {_fmt(one_rss, 1)} | {_fmt(total if rss else None, 1)} | "
                f"{_fmt(_ratio(total if rss else None, one_rss), 2, '×')} |")
    rows.append(f"| RSS MiB: process manager / each worker{' / other children' if others else ''} | | "
                f"{_fmt(_dig(rss, 'parent_mib'), 1)} / {each}{' / ' + others if others else ''} | |")
    return "\n".join(rows)


# --- goals -------------------------------------------------------------------------------------------------

def _one_worker_cells(results: dict[str, Any]) -> dict[str, Any]:
    """One worker's c32 cells beside the workers' (a run that has none: the main table's)."""
    workers = results.get("workers") or {}
    found = workers.get("one_worker_cells") or results.get("targets", {}).get("skillproxy", {}).get("cells", {})
    return found if isinstance(found, dict) else {}


def _goal_rows(results: dict[str, Any]) -> list[tuple[Goal, Where | None]]:
    """Every goal with the cell it is about (None: not a matter of CPU time)."""
    rows: list[tuple[Goal, Where | None]] = []
    for cell, stream in (("c32 non-stream", False), ("c32 stream", True)):
        sp = _get(results, "skillproxy", "cells", cell, "rps")
        where = Where(concurrency=32, stream=stream)
        rows.append((_goal(f"{cell}: req/s, skillproxy/bare", _ratio(sp, _get(results, "bare", "cells", cell, "rps")),
                           "≥ 0.90", 0.9, "×", True), where))
        rows.append((_goal(f"{cell}: req/s, skillproxy/LiteLLM",
                           _ratio(sp, _get(results, "litellm", "cells", cell, "rps")), "≥ 3.00", 3.0, "×", True),
                     where))
    added = _added(results, "skillproxy", "cells", "c1 non-stream", "p50_ms")
    bare_added = _added(results, "bare", "cells", "c1 non-stream", "p50_ms")
    rows.append((_goal("c1 non-stream: added p50, skillproxy/bare", _ratio(added, bare_added), "≤ 1.20", 1.2, "×"),
                 Where(concurrency=1)))
    rows.append((_goal("c1 stream: added first byte p50", _added(results, "skillproxy", "ttfb_ms", "p50"),
                       "≤ 1.50 ms", 1.5, " ms"), Where(concurrency=1, stream=True)))
    pre = results.get("preprocess") or {}
    skills = int(pre.get("skills") or 0)
    for figure, limit in (("p50", 0.5), ("p99", 1.0)):
        rows.append((_goal(f"preprocess {figure} at {skills:,} skills", _dig(pre, f"{figure}_ms"),
                           f"≤ {limit:.2f} ms", limit, " ms"), Where(preprocess=True)))
    workers = results.get("workers") or {}
    count = int(workers.get("count", 2))
    one = _dig(_one_worker_cells(results), "c32 non-stream", "rps")
    rows.append((_goal(f"--workers {count}: c32 non-stream req/s over one worker's",
                       _ratio(_dig(workers, "cells", "c32 non-stream", "rps"), one), "≥ 1.70", 1.7, "×", True),
                 Where(concurrency=32, workers=count)))
    growth = _percent(_get(results, "skillproxy", "rss", "growth"))
    rows.append((_goal("RSS growth over the soak", growth, "< 10.0 %", 10.0, " %",
                       strict=True, digits=1), None))
    rows.append((_unbuffered("stream never buffered", results, ()), None))
    for surface, label, _ in SURFACES:
        rows += _surface_goals(results, surface, label)
    return rows


def _surface_goals(results: dict[str, Any], surface: str, label: str) -> list[tuple[Goal, Where | None]]:
    prefix = ("surfaces", surface)
    rows: list[tuple[Goal, Where | None]] = []
    for cell, stream in (("c32 non-stream", False), ("c32 stream", True)):
        sp, bare = (_get(results, k, *prefix, "cells", cell, "rps") for k in ("skillproxy", "bare"))
        rows.append((_goal(f"{label} {cell}: req/s, skillproxy/bare", _ratio(sp, bare), "≥ 0.90", 0.9, "×", True),
                     Where(surface, 32, stream)))
    added = _added(results, "skillproxy", *prefix, "cells", "c1 non-stream", "p50_ms")
    bare_added = _added(results, "bare", *prefix, "cells", "c1 non-stream", "p50_ms")
    rows.append((_goal(f"{label} c1 non-stream: added p50, skillproxy/bare", _ratio(added, bare_added), "≤ 1.20",
                       1.2, "×"), Where(surface, 1, False)))
    rows.append((_unbuffered(f"{label} stream never buffered", results, prefix), None))
    return rows


def _unbuffered(name: str, results: dict[str, Any], prefix: tuple[str, ...]) -> Goal:
    first, total = (_get(results, "skillproxy", *prefix, "long_stream", key) for key in ("first_ms", "total_ms"))
    return _goal(f"{name}: first byte / whole stream", _ratio(first, total), "< 0.50", 0.5, "", strict=True)


def goals(results: dict[str, Any]) -> list[Goal]:
    """(goal, value, target, met): met None when a figure is missing (LiteLLM skipped, say)."""
    return [goal for goal, _ in _goal_rows(results)]


def missed_where(results: dict[str, Any]) -> dict[Where, list[str]]:
    """The cells to profile: each cell a missed goal is about, with the names of the goals it explains."""
    missed: dict[Where, list[str]] = {}
    for (name, _, _, met), where in _goal_rows(results):
        if met is False and where is not None:
            missed.setdefault(where, []).append(name)
    return missed


def _goal(name: str, value: float | None, target: str, limit: float, unit: str, at_least: bool = False,
          strict: bool = False, digits: int = 2) -> Goal:
    if value is None:
        return name, NA, target, None
    if at_least:
        met = value >= limit
    elif strict:
        met = value < limit
    else:
        met = value <= limit
    return name, _fmt(value, digits, unit), target, met


def goals_table(results: dict[str, Any]) -> str:
    rows = [f"| {name} | {value} | {target} | {'n/a' if met is None else 'yes' if met else 'NO'} |"
            for name, value, target, met in goals(results)]
    return "\n".join(["| goal | value | target | met |", "|---|---:|---|---|", *rows])


# --- profiles ----------------------------------------------------------------------------------------------

def profiles_section(results: dict[str, Any]) -> list[str]:
    """For each missed goal: where the time goes now (the profile perf_bench took), or why there is none."""
    missed = [(name, where) for (name, _, _, met), where in _goal_rows(results) if met is False]
    if not missed:
        return []
    lines = ["", "## What was tried, for each goal missed", ""]
    by_levers: dict[tuple[str, ...], list[str]] = {}
    for name, _ in missed:
        by_levers.setdefault(tuple(levers_for(name)) or ("nothing yet",), []).append(name)
    for levers, names in by_levers.items():
        lines += [f"- {'; '.join(names)}:", *[f"  - {lever}" for lever in levers]]
    lines += ["", "## Where the time goes, for each goal missed", ""]
    no_cpu = [name for name, where in missed if where is None]
    if no_cpu:
        lines += [f"- {name}: not a question of CPU time (no profile; see the figures above)." for name in no_cpu]
        lines.append("")
    profiles = results.get("profiles")
    timed = [name for name, where in missed if where is not None]
    if timed and profiles is None:
        lines.append("Not profiled in this run (`--profile-misses` runs py-spy on each): " + "; ".join(timed) + ".")
        return lines
    for profile in profiles or []:
        lines += _profile_lines(profile)
    return lines


def _profile_lines(profile: dict[str, Any]) -> list[str]:
    head = f"### {profile['where']}: {'; '.join(profile.get('goals', []))}"
    if profile.get("error"):
        return [head, "", f"No profile: {profile['error']}", ""]
    lines = [head, "", f"py-spy, {profile.get('seconds', 0):g} s, {profile.get('samples', 0):,} samples of a thread "
             "holding the GIL; own time (the innermost frame), as a share of the samples:", ""]
    for title, key in (("by function", "own"), ("by package", "packages")):
        lines += [f"{title}:", "```", *[f"{share:6.1%}  {name}" for share, name in profile.get(key, [])], "```"]
    return [*lines, ""]


# --- the whole report --------------------------------------------------------------------------------------

def report(results: dict[str, Any]) -> str:
    config = results["config"]
    pre = results.get("preprocess") or {}
    lines = [
        f"wrk, 1 thread, {config['duration_s']:g} s per cell; one process per server; {config['cores']} cores; "
        f"load average {config['load_before']:.2f} before, {config.get('load_after', float('nan')):.2f} after; "
        f"Python {config['python']}; LiteLLM {config['litellm'] or 'skipped'}"
        + (f"; the run took {config['run_seconds']:,.0f} s." if config.get("run_seconds") else "."),
        "",
        "### Chat Completions (POST /v1/chat/completions)",
        "",
        table(results),
        "",
        f"Preprocess per request at {pre.get('skills', 0):,} skills (engine.preprocess, {pre.get('n', 0)} new turns "
        f"from the dev cases): p50 {_fmt(_dig(pre, 'p50_ms'), 3)} ms, p99 {_fmt(_dig(pre, 'p99_ms'), 3)} ms.",
        f"skillproxy's route for the benchmark message: `{results.get('skillproxy_route', NA)}`.",
    ]
    routes = results.get("skillproxy_routes") or {}
    for surface, label, path in SURFACES:
        lines += ["", f"### {label} ({path})", ""]
        if not any(surface in (t.get("surfaces") or {}) for t in results.get("targets", {}).values()):
            lines.append("Not measured in this run (`--surfaces` measures it).")
            continue
        if surface in routes:
            lines += [f"skillproxy's route: `{routes[surface]}`.", ""]
        lines.append(surface_table(results, surface))
    workers = results.get("workers")
    lines += ["", f"### skillproxy --workers {(workers or {}).get('count', 2)} (c32, the same upstream)", ""]
    if workers:
        lines += [workers_table(results), "",
                  f"wrk (one thread) and the fake upstream (one process) run on the same {config['cores']} cores as "
                  "skillproxy's workers: CPU s/s is CPU seconds used per second of the cell (1.00 = one core busy); "
                  "when these three and anything else on the machine near the core count together, a second "
                  "worker has no core of its own."]
    else:
        lines.append("Not measured in this run (`--workers N` measures it).")
    lines += ["", goals_table(results)]
    lines += profiles_section(results)
    lines += _warnings(results)
    return "\n".join(lines)


def _all_cells(results: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(where, figures) of every wrk cell in the run."""
    cells = []
    for name, target in results.get("targets", {}).items():
        cells += [(f"{name} {cell}", data) for cell, data in target.get("cells", {}).items()]
        for surface, found in (target.get("surfaces") or {}).items():
            cells += [(f"{name} {surface} {cell}", data) for cell, data in found.get("cells", {}).items()]
    workers = results.get("workers") or {}
    cells += [(f"skillproxy --workers {workers.get('count', 2)} {cell}", data)
              for cell, data in workers.get("cells", {}).items()]
    return cells


def error_count(results: dict[str, Any]) -> int:
    """Failed requests over every cell and soak of the run."""
    errors = sum(int(data.get("errors", 0)) for _, data in _all_cells(results))
    return errors + sum(int(t["rss"]["errors"]) for t in results.get("targets", {}).values() if t.get("rss"))


def _warnings(results: dict[str, Any]) -> list[str]:
    notes = [f"WARNING: {where}: {data['errors']} failed requests (non-2xx, socket errors or timeouts)"
             for where, data in _all_cells(results) if data.get("errors")]
    notes += [f"WARNING: {name} soak: {target['rss']['errors']} failed requests"
              for name, target in results["targets"].items() if target.get("rss") and target["rss"]["errors"]]
    notes += [f"WARNING: {name} ran as {target['processes']} processes, not 1"
              for name, target in results["targets"].items() if target.get("processes", 1) != 1]
    if results["config"]["load_before"] >= 1.0:
        notes.append(f"NOTE: the load average was {results['config']['load_before']:.2f} before the run: "
                     "other work shared the CPU, the figures are noisy.")
    return ["", *notes] if notes else []


if __name__ == "__main__":
    print(report(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
