"""Routing quality and speed over labelled cases: pure, the clock is a parameter.

A case is `{"text": ..., "expected": [skill names], "lang": ...}`; `expected == []`
means no skill applies and nothing should be routed. `route` is any callable
text → decision with `.selected` and `.candidates` (each with `.skill.name` and
`.score`), so the same function measures skillproxy's router and baselines.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict

Case = Mapping[str, Any]
Clock = Callable[[], float]
TOP_K = 3
MISS_CANDIDATES = 5
HALVES = ("tuning", "check")


def half_of(case: Case) -> str:
    """`tuning` or `check`: which half of a labelled set a case falls in, by a hash of its text.

    Fixed by the text alone, so the halves are the same on every machine and do not move when
    cases are added: tune on one half, report the other as what the router does on prompts
    nobody tuned to."""
    digest = hashlib.sha256(str(case["text"]).encode("utf-8")).digest()
    return HALVES[digest[0] & 1]


def in_half(cases: Iterable[Case], half: str | None) -> list[Case]:
    """The cases of one half (`None`: all of them)."""
    if half is not None and half not in HALVES:
        raise ValueError(f"half must be one of {', '.join(HALVES)}, not {half!r}")
    return [case for case in cases if half is None or half_of(case) == half]


class Rates(TypedDict):
    """Shares of the cases (None when there were none to count): top-1 and top-3 of those that
    expect a skill, false routes of those that expect none."""

    top1: float | None
    top3: float | None
    false_route_rate: float | None


class Miss(TypedDict):
    """A case routed wrongly: a false route, or an expected skill not first."""

    text: str
    expected: list[str]
    lang: str
    selected: list[str]
    candidates: list[tuple[str, float]]  # (name, score), best first
    top3: bool


class EvaluationReport(Rates):
    by_lang: dict[str, Rates]
    p50_ms: float
    p99_ms: float
    cases: int
    misses: list[Miss]


def _names(items: Sequence[Any]) -> list[str]:
    return [c.skill.name for c in items]


def _outcome(case: Case, decision: Any) -> dict[str, bool]:
    expected = set(case.get("expected") or ())
    selected, ranked = _names(decision.selected), _names(decision.candidates)
    if not expected:
        return {"positive": False, "false_route": bool(selected), "top1": False, "top3": False}
    top1 = bool(selected) and selected[0] in expected
    top3 = any(name in expected for name in ranked[:TOP_K])
    return {"positive": True, "false_route": False, "top1": top1, "top3": top3}


def _rates(outcomes: Sequence[Mapping[str, bool]]) -> Rates:
    positives = [o for o in outcomes if o["positive"]]
    negatives = [o for o in outcomes if not o["positive"]]

    def share(items: Sequence[Mapping[str, bool]], key: str) -> float | None:
        return (sum(o[key] for o in items) / len(items)) if items else None

    return {
        "top1": share(positives, "top1"),
        "top3": share(positives, "top3"),
        "false_route_rate": share(negatives, "false_route"),
    }


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def _miss(case: Case, decision: Any, outcome: Mapping[str, bool]) -> Miss:
    top = [(c.skill.name, c.score) for c in decision.candidates[:MISS_CANDIDATES]]
    return {
        "text": case["text"],
        "expected": list(case.get("expected") or ()),
        "lang": case.get("lang", "?"),
        "selected": _names(decision.selected),
        "candidates": top,
        "top3": outcome["top3"],
    }


def evaluate(cases: Iterable[Case], route: Callable[[str], Any], clock: Clock = time.perf_counter) -> EvaluationReport:
    """top-1, top-3, false-route rate (overall and per language), p50/p99 ms, misses."""
    outcomes: list[dict[str, bool]] = []
    langs: list[str] = []
    times: list[float] = []
    misses: list[Miss] = []
    for case in cases:
        start = clock()
        decision = route(case["text"])
        times.append((clock() - start) * 1000.0)
        outcome = _outcome(case, decision)
        outcomes.append(outcome)
        langs.append(case.get("lang", "?"))
        if outcome["false_route"] or (outcome["positive"] and not outcome["top1"]):
            misses.append(_miss(case, decision, outcome))
    by_lang = {
        lang: _rates([o for o, case_lang in zip(outcomes, langs) if case_lang == lang]) for lang in sorted(set(langs))
    }
    return {
        **_rates(outcomes),
        "by_lang": by_lang,
        "p50_ms": percentile(times, 50),
        "p99_ms": percentile(times, 99),
        "cases": len(outcomes),
        "misses": misses,
    }
