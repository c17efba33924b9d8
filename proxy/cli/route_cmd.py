"""`skillproxy route`: the decision the preprocessor takes for one message, and why."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from proxy.cli.common import UsageError, add_catalog_arguments, run_reporting_usage_errors, settings_from_args
from proxy.core import json_codec
from proxy.core.catalog.catalog import load_catalog
from proxy.core.routing.router import RouteCandidate, SkillRouter
from proxy.core.turns.modes import TurnMode
from proxy.core.turns.turn_decision import SkillContext, TurnOutcome, decide_turn
from proxy.core.turns.turn_text import SEPARATOR
from proxy.engine.skill_engine import preprocess_config
from proxy.surfaces.chat_messages import CHAT_MESSAGES


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("route", help="show which skills a message would activate or route to")
    add_catalog_arguments(parser)
    parser.add_argument("text", nargs="?", help="the user message")
    parser.add_argument("--jsonl", metavar="FILE", help='one {"text": ...} per line; prints one decision per line')
    parser.add_argument("--json", action="store_true", help="print the decision as JSON")
    parser.add_argument("--show-injection", action="store_true",
                        help="also print the exact text that would be injected")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(run, args))


def run(args: argparse.Namespace) -> int:
    texts = _texts(args)
    settings = settings_from_args(args)
    catalog = load_catalog(settings.roots, settings.max_skill_file_bytes)
    context = SkillContext(catalog, SkillRouter(catalog.skills))
    config = preprocess_config(settings)
    for text in texts:
        outcome = decide_turn(CHAT_MESSAGES.read_turn({"role": "user", "content": text}), context, config, None, 0.0,
                              CHAT_MESSAGES)
        report = decision_report(outcome, args.show_injection)
        if args.json or args.jsonl:
            print(json_codec.dumps(report).decode("utf-8"))
        else:
            print(render(report))
    return 0


def _texts(args: argparse.Namespace) -> list[str]:
    if args.jsonl:
        return [_case_text(line, n) for n, line in enumerate(_read_lines(args.jsonl), 1) if line.strip()]
    if args.text is None:
        raise UsageError("give a message to route, or --jsonl FILE")
    return [args.text]


def _read_lines(path: str) -> list[str]:
    try:
        return (sys.stdin if path == "-" else open(path, encoding="utf-8")).read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _case_text(line: str, number: int) -> str:
    try:
        case = json_codec.loads(line)
        return str(case["text"])
    except (ValueError, KeyError, TypeError):
        raise UsageError(f'line {number}: expected a JSON object with a "text" key') from None


def decision_report(outcome: TurnOutcome, show_injection: bool) -> dict[str, Any]:
    decision = outcome.decision
    report: dict[str, Any] = {
        "mode": TurnMode.NONE if outcome.record.mode == TurnMode.PASSTHROUGH else outcome.record.mode,
        "route_header": outcome.route_header,
        "selected": [_candidate(c) for c in decision.selected] if decision else
        [{"name": name, "score": None, "confidence": "explicit", "reasons": ["explicit:activation"]}
         for name in outcome.selected],
        "candidates": [_candidate(c) for c in decision.candidates] if decision else [],
        "unresolved": [{"token": a.token, "closest": list(a.suggestions)} for a in outcome.activation.unresolved]
        if outcome.activation else [],
    }
    if show_injection:
        report["injection"] = _injected_text(outcome)
    return report


def _candidate(candidate: RouteCandidate) -> dict[str, Any]:
    return {"name": candidate.skill.name, "score": candidate.score, "confidence": candidate.confidence,
            "reasons": list(candidate.reasons)}


def _injected_text(outcome: TurnOutcome) -> str:
    if outcome.record.mode == TurnMode.EXPLICIT:
        return outcome.forwarded.text
    return outcome.injection + SEPARATOR if outcome.injection else ""


def render(report: dict[str, Any]) -> str:
    lines = [f"mode: {report['mode']}  (X-Skills-Route: {report['route_header']})"]
    for item in report["selected"]:
        reasons = "; ".join(item["reasons"][:4])
        lines.append(f"  selected  {item['name']}  score={item['score']}  {item['confidence']}  {reasons}")
    for item in report["unresolved"]:
        lines.append(f"  unresolved {item['token']}  closest: {', '.join(item['closest']) or '-'}")
    if report["candidates"]:
        lines.append("candidates:")
        lines.extend(f"  {c['score']:>4}  {c['confidence']:<6}  {c['name']}" for c in report["candidates"])
    if "injection" in report:
        lines.extend(["", "--- injection ---", report["injection"]])
    return "\n".join(lines)
