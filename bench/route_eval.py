"""Routing benchmark: one table, skillproxy's router vs the baseline scorer (bench/seed003_scorer.py).

    python bench/route_eval.py [--cases ../shared/eval/dev.jsonl] [--misses N]

Prints top-1, top-3, false-route rate, per-language top-1 and p50/p99 routing
time per message for each router on the same cases and corpus catalog.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus_skills import DEV_CASES, load_cases, load_corpus_skills
from bench.seed003_scorer import SeedRouter
from proxy.core.routing.evaluation import evaluate
from proxy.core.routing.router import SkillRouter


def _pct(value: float | None) -> str:
    return "   -" if value is None else f"{value:.2f}"


def table(results: dict[str, dict], langs: list[str]) -> str:
    head = ["router", "top-1", "top-3", "false", *[f"{lang}@1" for lang in langs], "p50 ms", "p99 ms", "build s"]
    rows = [" | ".join(head), " | ".join("---" for _ in head)]
    for name, r in results.items():
        per_lang = [_pct(r["by_lang"].get(lang, {}).get("top1")) for lang in langs]
        cells = [name, _pct(r["top1"]), _pct(r["top3"]), _pct(r["false_route_rate"]), *per_lang]
        cells += [f"{r['p50_ms']:.3f}", f"{r['p99_ms']:.3f}", f"{r['build_s']:.2f}"]
        rows.append(" | ".join(cells))
    return "\n".join(f"| {row} |" for row in rows)


def print_misses(result: dict, limit: int) -> None:
    for miss in result["misses"][:limit]:
        top = ", ".join(f"{n}:{s}" for n, s in miss["candidates"][:3])
        print(f"- [{miss['lang']}] {miss['text'][:110]!r}\n"
              f"    expected={miss['expected']} selected={miss['selected']} top={top}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, default=DEV_CASES)
    parser.add_argument("--misses", type=int, default=0, help="print this many of our router's misses")
    args = parser.parse_args(argv)
    cases, skills = load_cases(args.cases), load_corpus_skills()
    results = {}
    for name, factory in (("skillproxy", SkillRouter), ("seed003", SeedRouter)):
        start = time.perf_counter()
        router = factory(skills)
        build = time.perf_counter() - start
        results[name] = {**evaluate(cases, router.route), "build_s": build}
    langs = sorted({c.get("lang", "?") for c in cases}, key=lambda lang: (lang != "en", lang))
    print(f"{len(cases)} cases, {len(skills)} skills\n")
    print(table(results, langs))
    if args.misses:
        print_misses(results["skillproxy"], args.misses)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
