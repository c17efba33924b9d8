"""The Markdown of bench/perf_bench.py: its table and the goals check (each figure against its limit).

Pure functions over the results dict that `perf_bench.run` builds (and `--json`
writes), so a saved run can be printed again: `python -m bench.perf_report FILE`.
A ratio is always skillproxy's figure over the other target's; for latencies
the ratio is of the latency *added* over direct, which is what a proxy costs.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

TARGETS = (("direct", "direct"), ("bare", "bare"), ("skillproxy", "skillproxy"), ("litellm", "LiteLLM"))
CELLS = ("c1 non-stream", "c1 stream", "c32 non-stream", "c32 stream")
NA = "–"

Goal = tuple[str, str, str, "bool | None"]


def _get(results: dict[str, Any], target: str, *path: str) -> float | None:
    value: Any = results["targets"].get(target)
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _added(results: dict[str, Any], target: str, *path: str) -> float | None:
    value, floor = _get(results, target, *path), _get(results, "direct", *path)
    return None if value is None or floor is None else value - floor


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b <= 0 else a / b


def _fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return NA if value is None else f"{value:,.{digits}f}{suffix}"


def _row(label: str, values: dict[str, float | None], digits: int, ratios: bool = True) -> str:
    cells = [_fmt(values.get(key), digits) for key, _ in TARGETS]
    sp = values.get("skillproxy")
    if ratios:
        cells += [_fmt(_ratio(sp, values.get("bare")), 2, "×"), _fmt(_ratio(sp, values.get("litellm")), 2, "×")]
    else:
        cells += ["", ""]
    return f"| {label} | " + " | ".join(cells) + " |"


def load_rows(results: dict[str, Any]) -> list[str]:
    rows = []
    for cell in CELLS:
        each = {key: key for key, _ in TARGETS}
        rows.append(_row(f"{cell}: req/s", {k: _get(results, k, "cells", cell, "rps") for k in each}, 0))
        rows.append(_row(f"{cell}: p50 ms", {k: _get(results, k, "cells", cell, "p50_ms") for k in each}, 2, False))
        rows.append(_row(f"{cell}: p99 ms", {k: _get(results, k, "cells", cell, "p99_ms") for k in each}, 2, False))
        rows.append(_row(f"{cell}: added p50 ms", {k: _added(results, k, "cells", cell, "p50_ms")
                                                   for k in each if k != "direct"}, 2))
    return rows


def stream_rows(results: dict[str, Any]) -> list[str]:
    keys = [key for key, _ in TARGETS]
    rows = [
        _row("c1 stream: first byte p50 ms", {k: _get(results, k, "ttfb_ms", "p50") for k in keys}, 2, False),
        _row("c1 stream: first byte p99 ms", {k: _get(results, k, "ttfb_ms", "p99") for k in keys}, 2, False),
        _row("c1 stream: added first byte p50 ms", {k: _added(results, k, "ttfb_ms", "p50")
                                                    for k in keys if k != "direct"}, 2),
    ]
    events = next((t["long_stream"]["events"] for t in results["targets"].values() if "long_stream" in t), 0)
    long = [_long_cell(results["targets"].get(k)) for k in keys]
    rows.append(f"| {events:,}-event stream: first byte / whole ms | " + " | ".join(long) + " |  |  |")
    return rows


def _long_cell(target: dict[str, Any] | None) -> str:
    if not target or "long_stream" not in target:
        return NA
    return f"{target['long_stream']['first_ms']:,.1f} / {target['long_stream']['total_ms']:,.0f}"


def memory_rows(results: dict[str, Any]) -> list[str]:
    keys = [key for key, _ in TARGETS]
    growth = {k: None if _get(results, k, "rss", "growth") is None else _get(results, k, "rss", "growth") * 100
              for k in keys}
    return [
        _row("soak: requests at c32, half streams", {k: _get(results, k, "rss", "requests") for k in keys}, 0, False),
        _row("RSS before soak MiB", {k: _get(results, k, "rss", "before_mib") for k in keys}, 1),
        _row("RSS after soak MiB", {k: _get(results, k, "rss", "after_mib") for k in keys}, 1),
        _row("RSS growth %", growth, 1, False),
        _row("processes", {k: _get(results, k, "processes") for k in keys if k != "direct"}, 0, False),
    ]


def table(results: dict[str, Any]) -> str:
    head = "| | " + " | ".join(label for _, label in TARGETS) + " | skillproxy/bare | skillproxy/LiteLLM |"
    rule = "|---|" + "---:|" * (len(TARGETS) + 2)
    return "\n".join([head, rule, *load_rows(results), *stream_rows(results), *memory_rows(results)])


def goals(results: dict[str, Any]) -> list[Goal]:
    """(goal, value, target, met): met None when a figure is missing (LiteLLM skipped, say)."""
    added = _added(results, "skillproxy", "cells", "c1 non-stream", "p50_ms")
    bare_added = _added(results, "bare", "cells", "c1 non-stream", "p50_ms")
    rows: list[Goal] = [
        _goal("c1 non-stream: added p50, skillproxy/bare", _ratio(added, bare_added), "≤ 1.00", 1.0, "×"),
        _goal("c1 non-stream: added p50 over direct", added, "≤ 1.00 ms", 1.0, " ms"),
    ]
    for cell in ("c32 non-stream", "c32 stream"):
        sp = _get(results, "skillproxy", "cells", cell, "rps")
        rows.append(_goal(f"{cell}: req/s, skillproxy/LiteLLM", _ratio(sp, _get(results, "litellm", "cells", cell,
                                                                               "rps")), "≥ 3.00", 3.0, "×", True))
        rows.append(_goal(f"{cell}: req/s, skillproxy/bare", _ratio(sp, _get(results, "bare", "cells", cell, "rps")),
                          "≥ 0.70", 0.7, "×", True))
    rows.append(_goal("stream: added first byte p50", _added(results, "skillproxy", "ttfb_ms", "p50"),
                      "≤ 2.00 ms", 2.0, " ms"))
    first, total = (_get(results, "skillproxy", "long_stream", key) for key in ("first_ms", "total_ms"))
    rows.append(_goal("stream never buffered: first byte / whole stream", _ratio(first, total), "< 0.50", 0.5,
                      "", strict=True))
    rows.append(_goal("preprocess p50 at {:,} skills".format(results.get("preprocess", {}).get("skills", 0)),
                      results.get("preprocess", {}).get("p50_ms"), "≤ 0.50 ms", 0.5, " ms"))
    growth = _get(results, "skillproxy", "rss", "growth")
    rows.append(_goal("RSS growth over the soak", None if growth is None else growth * 100, "< 10.0 %", 10.0, " %",
                      strict=True, digits=1))
    return rows


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


def report(results: dict[str, Any]) -> str:
    config = results["config"]
    pre = results.get("preprocess", {})
    lines = [
        f"wrk, 1 thread, {config['duration_s']:g} s per cell; one process per server; {config['cores']} cores; "
        f"load average {config['load_before']:.2f} before, {config.get('load_after', float('nan')):.2f} after; "
        f"Python {config['python']}; LiteLLM {config['litellm'] or 'skipped'}.",
        "",
        table(results),
        "",
        f"Preprocess per request at {pre.get('skills', 0):,} skills (engine.preprocess, {pre.get('n', 0)} new turns "
        f"from the dev cases): p50 {_fmt(pre.get('p50_ms'), 3)} ms, p99 {_fmt(pre.get('p99_ms'), 3)} ms.",
        f"skillproxy's route for the benchmark message: `{results.get('skillproxy_route', NA)}`.",
        "",
        goals_table(results),
    ]
    lines += _warnings(results)
    return "\n".join(lines)


def _warnings(results: dict[str, Any]) -> list[str]:
    notes = [f"WARNING: {name} {cell}: {data['errors']} failed requests (non-2xx, socket errors or timeouts)"
             for name, target in results["targets"].items() for cell, data in target["cells"].items()
             if data["errors"]]
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
