"""`skillproxy eval`: routing quality over labelled cases (top-1, top-3, false routes, speed)."""

from __future__ import annotations

import argparse
from typing import Any

from proxy.cli.common import UsageError, add_catalog_arguments, catalog_from_args, run_reporting_usage_errors
from proxy.core import json_codec
from proxy.core.routing.evaluation import HALVES, EvaluationReport, evaluate, in_half
from proxy.core.routing.router import SkillRouter


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("eval", help="measure routing on labelled cases (JSONL)")
    add_catalog_arguments(parser)
    parser.add_argument("cases", metavar="CASES.jsonl", help='one {"text", "expected": [names], "lang"} per line')
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--half", choices=HALVES,
                        help="only the cases of one half, split by a hash of their text: tune on `tuning`, "
                             "report `check`")
    parser.add_argument("--misses", type=int, default=20, metavar="N", help="misses to print (default 20)")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(run, args))


def run(args: argparse.Namespace) -> int:
    cases = in_half(load_cases(args.cases), args.half)
    catalog = catalog_from_args(args)
    router = SkillRouter(catalog.skills)
    report = evaluate(cases, router.route)
    print(json_codec.dumps(report).decode("utf-8") if args.json else render(report, args.misses))
    return 0


def load_cases(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as cases_file:
            lines = cases_file.read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    cases = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json_codec.loads(line)
            case["text"], case["expected"] = str(case["text"]), list(case.get("expected") or [])
        except (ValueError, KeyError, TypeError):
            raise UsageError(f'{path}:{number}: expected {{"text": ..., "expected": [...]}}') from None
        cases.append(case)
    return cases


def _pct(value: float | None) -> str:
    return "   -" if value is None else f"{value:.2f}"


def render(report: EvaluationReport, misses: int) -> str:
    lines = [f"{report['cases']} cases",
             f"top-1 {_pct(report['top1'])}   top-3 {_pct(report['top3'])}   "
             f"false routes {_pct(report['false_route_rate'])}   "
             f"p50 {report['p50_ms']:.3f} ms   p99 {report['p99_ms']:.3f} ms", "", "lang   top-1  top-3  false"]
    for lang, rates in report["by_lang"].items():
        lines.append(f"{lang:<6} {_pct(rates['top1'])}   {_pct(rates['top3'])}   {_pct(rates['false_route_rate'])}")
    if report["misses"] and misses:
        lines += ["", f"misses (first {min(misses, len(report['misses']))} of {len(report['misses'])}):"]
        for miss in report["misses"][:misses]:
            top = ", ".join(f"{n}={s}" for n, s in miss["candidates"][:3])
            lines.append(f"  [{miss['lang']}] expected {miss['expected'] or 'nothing'}; "
                         f"got {miss['selected'] or 'nothing'} (top: {top})  {miss['text'][:90]}")
    return "\n".join(lines)
