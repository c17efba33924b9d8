"""Every decision the skill engine makes on the dev cases, dumped to compare two versions of the code.

    python bench/decision_dump.py dump BEFORE.pickle --catalog /tmp/big --repo ../main   # the old code
    python bench/decision_dump.py dump AFTER.pickle --catalog /tmp/big                   # this checkout's
    python bench/decision_dump.py compare BEFORE.pickle AFTER.pickle                     # exit 1 on a difference

A change meant to make preprocessing faster must not change a decision: this dumps, for
every dev case (../shared/eval/dev.jsonl), the whole result of `SkillEngine.preprocess`
(the forwarded messages with the injected text, mode, route header, selected skills,
events, state keys and records, and the router's decision: every candidate's skill,
score, confidence and reasons) over the 1,000-skill catalog (bench/big_catalog.py) and
over the seven corpus roots, in several situations: a first turn, a second turn (the
first recomputed, then a reminder or a new route), a resent request (replayed), the
inline and client tool modes, a request narrowed by X-Skills-Deny, explicit-only mode,
`$skill` activations with a near miss, both skills-index placements, long, CJK and
misspelt messages, and the router's own ranking (`search`) of every skill.

The big catalog is written to `--catalog` the first time and reused after, so both
dumps see the same paths; the clock is fixed. `--repo` names the checkout whose code
is dumped (this script's by default; it only needs what that code already has). Run
both dumps with the same Python.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

# The code dumped: --repo's, read before anything of the proxy is imported.
sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--repo") + 1]).resolve() if "--repo" in sys.argv[:-1]
                       else Path(__file__).resolve().parents[1]))

from bench.big_catalog import write_big_catalog
from bench.corpus_skills import ROOT_ORDER, corpus_roots, load_cases
from proxy.core.catalog.scope import SkillScope
from proxy.core.routing.router import RouteCandidate, RouteDecision
from proxy.core.turns.modes import SkillsMode
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.turns.records import TurnRecord
from proxy.core.turns.request_options import RequestOptions
from proxy.engine.skill_engine import SkillEngine
from proxy.settings import load_settings
from proxy.surfaces.chat_messages import read_messages

NOW = 1_700_000_000.0


def candidate(c: RouteCandidate) -> tuple[Any, ...]:
    return c.skill.name, c.skill.location, c.skill.root, c.score, c.confidence, tuple(c.reasons)


def decision(d: RouteDecision | None) -> tuple[Any, ...] | None:
    if d is None:
        return None
    return tuple(map(candidate, d.selected)), tuple(map(candidate, d.candidates)), d.query_terms


def record(r: TurnRecord | None) -> tuple[Any, ...] | None:
    if r is None:
        return None
    return (r.forwarded, r.mode, r.fingerprint, r.full_injection_at, r.tool_exchange, r.mixed_call, r.tool_mode,
            r.context_mode, r.model)


def result(p: Preprocessed) -> dict[str, Any]:
    return {"messages": p.messages, "mode": str(p.mode), "header": p.route_header, "selected": p.selected,
            "injected_chars": p.injected_chars, "events": p.events, "turn_key": p.turn_key,
            "records": [(key, record(r)) for key, r in p.records],
            "anchor": p.anchor and (p.anchor[0], record(p.anchor[1])), "model": p.model,
            "decision": decision(p.decision), "chain": record(p.chain_record)}


def engine(roots: list[Path], **overrides: Any) -> SkillEngine:
    settings = load_settings(None, env={}, overrides={"roots": tuple(str(r) for r in roots), **overrides})
    return SkillEngine.from_settings(settings, watch=False, clock=lambda: NOW)


def user(text: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def situations(roots: list[Path], texts: list[str]) -> dict[str, list[Any]]:
    e = engine(roots)
    names = [s.name for s in e.context.catalog.skills]
    first = [result(e.preprocess(read_messages(user(t)))) for t in texts]
    odd = ([t * 30 for t in texts[:10]] + ["数据库查询优化 " + t for t in texts[:10]]
           + [t.replace("e", "3").replace("a", "") for t in texts[:20]] + ["", "   ", "user: hello", "$HOME $PATH"])
    out = {
        "first turn": first,
        "second turn": [result(e.preprocess(read_messages([
            {"role": "user", "content": t}, {"role": "assistant", "content": "ok"},
            {"role": "user", "content": [{"type": "text", "text": "and more: " + t}]}]))) for t in texts],
        "resent": [result(e.preprocess(read_messages(user(t)))) for t in texts[:40]],
        "long, CJK, misspelt, empty": [result(e.preprocess(read_messages(user(t + " odd")))) for t in odd],
        "denied by a scope": [result(e.preprocess(read_messages(user(t + " scoped")), RequestOptions(
            scope=SkillScope.of(None, ("*-pro", "a*", "*e"))))) for t in texts],
        "explicit only": [result(e.preprocess(read_messages(user(t + " x")), RequestOptions(
            skills_mode=SkillsMode.EXPLICIT))) for t in texts[:40]],
        "activations": [result(e.preprocess(read_messages(user(f"${names[i * 7 % len(names)]} {t} $nosuchskil"))))
                        for i, t in enumerate(texts[:60])],
        "search every skill": [tuple(map(candidate, e.context.router.search(t, 100_000))) for t in texts],
        "search five": [tuple(map(candidate, e.context.router.search(t[:40], 5))) for t in texts],
    }
    for mode in ("inline", "client"):
        out[f"{mode} tools"] = [result(e.preprocess(read_messages(user(f"{t} {mode}")), RequestOptions(tool_mode=mode)))
                                for t in texts[:80]]
    for placement in ("system", "user"):
        placed = engine(roots, skills_index=placement)
        out[f"skills index in {placement}"] = [
            result(placed.preprocess(read_messages([{"role": "system", "content": "sys"}, *user(t)])))
            for t in texts[:40]]
    return out


def dump(path: Path, catalog: Path) -> None:
    if not catalog.exists() or not any(catalog.iterdir()):
        write_big_catalog(catalog, 1000)
    texts = [case["text"] for case in load_cases()]
    dumped = {"1,000 skills": situations([catalog / name for name in ROOT_ORDER], texts),
              "corpus": situations(corpus_roots(), texts)}
    path.write_bytes(pickle.dumps(dumped))
    print(f"{sum(len(v) for s in dumped.values() for v in s.values())} results in {path}")


def compare(before_path: Path, after_path: Path) -> int:
    before, after = pickle.loads(before_path.read_bytes()), pickle.loads(after_path.read_bytes())
    differing = 0
    for catalog, situation_results in before.items():
        for situation, results in situation_results.items():
            others = after[catalog][situation]
            for i, (old, new) in enumerate(zip(results, others, strict=True)):
                if old != new:
                    differing += 1
                    if differing <= 5:
                        fields = [k for k in old if old[k] != new[k]] if isinstance(old, dict) else ["ranking"]
                        print(f"differs: {catalog}, {situation}, case {i}: {', '.join(fields)}")
    total = sum(len(v) for s in before.values() for v in s.values())
    print(f"{total} results compared, {differing} differ")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump", help="dump every decision to a file")
    dumping.add_argument("out", type=Path)
    dumping.add_argument("--catalog", type=Path, required=True,
                         help="where the 1,000-skill catalog is, or is written the first time (same for both dumps)")
    dumping.add_argument("--repo", type=Path, help="the checkout whose code is dumped (default: this script's)")
    comparing = commands.add_parser("compare", help="compare two dumps; exit 1 when any decision differs")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump(args.out, args.catalog)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    raise SystemExit(main())
