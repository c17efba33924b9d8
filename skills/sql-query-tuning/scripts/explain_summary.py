#!/usr/bin/env python3
"""Summarise PostgreSQL EXPLAIN (ANALYZE, FORMAT JSON) output.

Reads the JSON plan from a file or stdin and prints:
  * the slowest plan nodes by exclusive time (time spent in the node itself,
    children excluded, multiplied by its loop count),
  * sequential scans that read many rows,
  * nodes whose row estimate is far from the actual row count,
  * sorts and hashes that spilled to disk.

Produce the input with, for example:

    psql -XqAt -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT ..." > plan.json

Plain psql output (with the "QUERY PLAN" header and trailing '+' markers) is
accepted too. Standard library only; no database connection is made.

Exit status: 0 on success, 2 on unreadable or invalid input.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


class PlanError(Exception):
    """Raised for input that is not a usable EXPLAIN ANALYZE JSON plan."""


@dataclass
class Node:
    id: int
    depth: int
    raw: dict[str, Any]
    under_limit: bool
    children: list[Node] = field(default_factory=list)

    @property
    def node_type(self) -> str:
        return str(self.raw.get("Node Type", "?"))

    @property
    def loops(self) -> int:
        return int(self.raw.get("Actual Loops", 0) or 0)

    @property
    def actual_rows(self) -> float:
        return float(self.raw.get("Actual Rows", 0) or 0)

    @property
    def plan_rows(self) -> float:
        return float(self.raw.get("Plan Rows", 0) or 0)

    @property
    def inclusive_ms(self) -> float:
        """Total time in this node and its children, summed over all loops."""
        return float(self.raw.get("Actual Total Time", 0) or 0) * self.loops

    @property
    def exclusive_ms(self) -> float:
        own = self.inclusive_ms - sum(c.inclusive_ms for c in self.children)
        return max(own, 0.0)

    @property
    def label(self) -> str:
        r = self.raw
        text = self.node_type
        if r.get("Parent Relationship") == "SubPlan" or r.get("Subplan Name"):
            text += f" ({r.get('Subplan Name', 'SubPlan')})"
        if r.get("Index Name"):
            text += f" using {r['Index Name']}"
        if r.get("Relation Name"):
            text += f" on {r['Relation Name']}"
            alias = r.get("Alias")
            if alias and alias != r["Relation Name"]:
                text += f" {alias}"
        elif r.get("CTE Name"):
            text += f" on {r['CTE Name']}"
        return text

    @property
    def condition(self) -> str:
        for key in ("Filter", "Index Cond", "Hash Cond", "Merge Cond", "Join Filter", "Recheck Cond"):
            if self.raw.get(key):
                return f"{key}: {self.raw[key]}"
        if self.raw.get("Sort Key"):
            return "Sort Key: " + ", ".join(map(str, self.raw["Sort Key"]))
        return ""


def strip_psql_decoration(text: str) -> str:
    """Remove psql's aligned-output header, '+' continuation marks and row count."""
    lines = []
    for line in text.splitlines():
        s = line.rstrip()
        if s.endswith("+"):
            s = s[:-1].rstrip()
        lines.append(s)
    body = "\n".join(lines)
    start = min((i for i in (body.find("["), body.find("{")) if i != -1), default=-1)
    end = max(body.rfind("]"), body.rfind("}"))
    if start == -1 or end <= start:
        raise PlanError("no JSON object or array found in the input")
    return body[start : end + 1]


def load_plan(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (top-level document, root plan node) from EXPLAIN JSON text."""
    if not text.strip():
        raise PlanError("input is empty")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        try:
            doc = json.loads(strip_psql_decoration(text))
        except json.JSONDecodeError as exc:
            raise PlanError(f"input is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(doc, list):
        if not doc or not isinstance(doc[0], dict):
            raise PlanError("expected a JSON array holding one object with a 'Plan' key")
        doc = doc[0]
    if not isinstance(doc, dict):
        raise PlanError("expected a JSON object or array from EXPLAIN (FORMAT JSON)")
    root = doc.get("Plan", doc)
    if not isinstance(root, dict) or "Node Type" not in root:
        raise PlanError("no plan found: expected a 'Plan' object with a 'Node Type' key")
    if "Actual Total Time" not in root and "Actual Loops" not in root:
        raise PlanError(
            "plan has no actual timings; this looks like plain EXPLAIN. "
            "Rerun with EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)"
        )
    return doc, root


def build_tree(raw: dict[str, Any]) -> list[Node]:
    """Flatten the plan into pre-order Node list with parent/child links."""
    nodes: list[Node] = []

    def visit(r: dict[str, Any], depth: int, under_limit: bool) -> Node:
        node = Node(id=len(nodes) + 1, depth=depth, raw=r, under_limit=under_limit)
        nodes.append(node)
        child_under_limit = under_limit or node.node_type == "Limit"
        for child in r.get("Plans", []) or []:
            if isinstance(child, dict):
                node.children.append(visit(child, depth + 1, child_under_limit))
        return node

    visit(raw, 0, False)
    return nodes


def iter_seq_scans(nodes: list[Node], min_rows: int) -> Iterator[dict[str, Any]]:
    for n in nodes:
        if n.node_type not in ("Seq Scan", "Parallel Seq Scan") or n.loops == 0:
            continue
        removed = float(n.raw.get("Rows Removed by Filter", 0) or 0)
        kept = n.actual_rows * n.loops
        read = kept + removed * n.loops
        if read < min_rows:
            continue
        selectivity = kept / read if read else 0.0
        if n.raw.get("Filter") and selectivity < 0.1:
            hint = "filter keeps few rows: an index on the filtered column(s) would likely help"
        elif n.raw.get("Filter"):
            hint = "filter keeps many rows: an index may not help; check the query really needs them"
        else:
            hint = "whole table read with no filter: expected for full joins/aggregates, otherwise add a WHERE or LIMIT"
        yield {
            "id": n.id,
            "node": n.label,
            "rows_read": int(read),
            "rows_kept": int(kept),
            "kept_pct": round(selectivity * 100, 1),
            "filter": n.raw.get("Filter", ""),
            "hint": hint,
        }


def iter_misestimates(nodes: list[Node], factor: float, min_rows: int) -> Iterator[dict[str, Any]]:
    for n in nodes:
        if n.loops == 0:
            continue
        est, act = n.plan_rows, n.actual_rows
        if max(est, act) * n.loops < min_rows:
            continue
        # Under a Limit the executor stops early, so fewer actual rows than
        # estimated is expected and not a statistics problem.
        if n.under_limit and act < est:
            continue
        ratio = max(est, 1.0) / max(act, 1.0)
        if ratio < 1:
            ratio = 1 / ratio
            direction = "under"
        else:
            direction = "over"
        if ratio >= factor:
            yield {
                "id": n.id,
                "node": n.label,
                "estimated_rows": int(est),
                "actual_rows": int(act),
                "loops": n.loops,
                "factor": round(ratio, 1),
                "direction": direction,
            }


def iter_warnings(nodes: list[Node]) -> Iterator[dict[str, Any]]:
    for n in nodes:
        r = n.raw
        if r.get("Sort Space Type") == "Disk":
            yield {
                "id": n.id,
                "node": n.label,
                "warning": f"sort spilled to disk ({r.get('Sort Method', '?')}, {r.get('Sort Space Used', '?')} kB): "
                "raise work_mem for this query or add an index that matches the ORDER BY",
            }
        batches = int(r.get("Hash Batches", 1) or 1)
        if batches > 1:
            yield {
                "id": n.id,
                "node": n.label,
                "warning": f"hash used {batches} batches (spilled to disk): raise work_mem or reduce the hashed input",
            }
        if n.loops >= 1000 and n.node_type.endswith("Scan") and n.depth > 0:
            yield {
                "id": n.id,
                "node": n.label,
                "warning": f"executed {n.loops} times (inner side of a nested loop): "
                "check the join estimate; a hash join or a batched query may be cheaper",
            }
        workers_planned = r.get("Workers Planned")
        workers_launched = r.get("Workers Launched")
        if workers_planned and workers_launched is not None and workers_launched < workers_planned:
            yield {
                "id": n.id,
                "node": n.label,
                "warning": f"only {workers_launched} of {workers_planned} parallel workers launched: "
                "check max_parallel_workers / max_worker_processes",
            }


def summarise(doc: dict[str, Any], root: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    nodes = build_tree(root)
    exec_ms = doc.get("Execution Time")
    if exec_ms is None:
        exec_ms = nodes[0].inclusive_ms
    exec_ms = float(exec_ms)
    ranked = sorted(nodes, key=lambda n: n.exclusive_ms, reverse=True)[: args.top]
    slowest = [
        {
            "id": n.id,
            "node": n.label,
            "exclusive_ms": round(n.exclusive_ms, 3),
            "pct": round(100 * n.exclusive_ms / exec_ms, 1) if exec_ms else 0.0,
            "actual_rows": int(n.actual_rows),
            "estimated_rows": int(n.plan_rows),
            "loops": n.loops,
            "detail": n.condition,
        }
        for n in ranked
    ]
    return {
        "execution_time_ms": round(exec_ms, 3),
        "planning_time_ms": doc.get("Planning Time"),
        "node_count": len(nodes),
        "slowest": slowest,
        "seq_scans": list(iter_seq_scans(nodes, args.seq_scan_rows)),
        "misestimates": list(iter_misestimates(nodes, args.misestimate, args.min_rows)),
        "warnings": list(iter_warnings(nodes)),
    }


def print_text(s: dict[str, Any], args: argparse.Namespace) -> None:
    out = sys.stdout.write
    planning = s["planning_time_ms"]
    out(f"Execution time: {s['execution_time_ms']:.1f} ms")
    if planning is not None:
        out(f"   Planning time: {float(planning):.1f} ms")
    out(f"   Nodes: {s['node_count']}\n\n")

    out("Slowest nodes by exclusive time (children excluded, all loops):\n")
    out(f"  {'id':>3}  {'excl ms':>10}  {'%':>6}  {'rows act/est':>18}  {'loops':>6}  node\n")
    for r in s["slowest"]:
        rows = f"{r['actual_rows']:,}/{r['estimated_rows']:,}"
        out(f"  {r['id']:>3}  {r['exclusive_ms']:>10.1f}  {r['pct']:>5.1f}%  {rows:>18}  {r['loops']:>6}  "
            f"{r['node']}\n")
        if r["detail"]:
            out(f"  {'':>3}  {'':>10}  {'':>6}  {'':>18}  {'':>6}    {r['detail']}\n")

    out(f"\nSequential scans reading >= {args.seq_scan_rows:,} rows:\n")
    if not s["seq_scans"]:
        out("  none\n")
    for r in s["seq_scans"]:
        out(f"  [{r['id']}] {r['node']}: read {r['rows_read']:,} rows, kept {r['rows_kept']:,} ({r['kept_pct']}%)\n")
        if r["filter"]:
            out(f"      Filter: {r['filter']}\n")
        out(f"      hint: {r['hint']}\n")

    out(f"\nRow estimate misses (>= {args.misestimate:g}x):\n")
    if not s["misestimates"]:
        out("  none\n")
    for r in s["misestimates"]:
        out(
            f"  [{r['id']}] {r['node']}: estimated {r['estimated_rows']:,}, actual {r['actual_rows']:,}"
            f" per loop ({r['factor']}x {r['direction']}-estimate)\n"
        )
    if s["misestimates"]:
        out("      hint: run ANALYZE on the tables; for correlated columns use CREATE STATISTICS\n")

    out("\nOther warnings:\n")
    if not s["warnings"]:
        out("  none\n")
    for r in s["warnings"]:
        out(f"  [{r['id']}] {r['node']}: {r['warning']}\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="explain_summary.py",
        description="Summarise PostgreSQL EXPLAIN (ANALYZE, FORMAT JSON) output: slowest nodes, "
        "big sequential scans, row-estimate misses and disk spills.",
        epilog="Example: psql -XqAt -c \"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT ...\" | %(prog)s",
    )
    p.add_argument("file", nargs="?", default="-", help="plan file; '-' or omitted reads stdin")
    p.add_argument("--top", type=int, default=5, help="how many slowest nodes to show (default 5)")
    p.add_argument("--seq-scan-rows", type=int, default=10_000, metavar="N",
                   help="report seq scans reading at least N rows (default 10000)")
    p.add_argument("--misestimate", type=float, default=10.0, metavar="FACTOR",
                   help="report nodes whose estimate is off by at least FACTOR (default 10)")
    p.add_argument("--min-rows", type=int, default=100, metavar="N",
                   help="ignore estimate misses where both counts times loops are below N (default 100)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = p.parse_args(argv)
    if args.top < 1:
        p.error("--top must be at least 1")
    if args.misestimate <= 1:
        p.error("--misestimate must be greater than 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.file == "-":
            if sys.stdin.isatty():
                raise PlanError("no input: pass a plan file or pipe EXPLAIN JSON on stdin (see --help)")
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
        doc, root = load_plan(text)
        summary = summarise(doc, root, args)
    except OSError as exc:
        print(f"explain_summary: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"explain_summary: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    except PlanError as exc:
        print(f"explain_summary: {exc}", file=sys.stderr)
        return 2
    except (TypeError, ValueError) as exc:
        print(f"explain_summary: malformed plan node ({exc})", file=sys.stderr)
        return 2
    try:
        if args.json:
            json.dump(summary, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print_text(summary, args)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`; see Python docs on SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
