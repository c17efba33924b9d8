"""evaluate(): metrics over labelled cases with any router shape and a fake clock."""

from __future__ import annotations

from itertools import count
from types import SimpleNamespace

import pytest

from proxy.core.routing.evaluation import evaluate, half_of, in_half, percentile


def cand(name: str, score: int = 50) -> SimpleNamespace:
    return SimpleNamespace(skill=SimpleNamespace(name=name), score=score)


def decision(selected: list[str], ranked: list[str]) -> SimpleNamespace:
    return SimpleNamespace(selected=[cand(n) for n in selected], candidates=[cand(n) for n in ranked])


ANSWERS = {
    "right": decision(["a"], ["a", "b"]),
    "second": decision(["b"], ["b", "x", "a"]),
    "wrong": decision([], ["x", "y", "z", "a"]),
    "quiet": decision([], ["x"]),
    "noisy": decision(["x"], ["x"]),
}
CASES = [
    {"text": "right", "expected": ["a"], "lang": "en"},
    {"text": "second", "expected": ["a"], "lang": "zh"},
    {"text": "wrong", "expected": ["a"], "lang": "en"},
    {"text": "quiet", "expected": [], "lang": "en"},
    {"text": "noisy", "expected": [], "lang": "zh"},
]


def ticking_clock(step_ms: float = 2.0):
    ticks = count()
    return lambda: next(ticks) * step_ms / 1000.0


@pytest.fixture()
def result() -> dict:
    return evaluate(CASES, ANSWERS.__getitem__, clock=ticking_clock())


def test_overall_rates(result: dict) -> None:
    assert result["top1"] == pytest.approx(1 / 3)
    assert result["top3"] == pytest.approx(2 / 3)
    assert result["false_route_rate"] == pytest.approx(0.5)
    assert result["cases"] == 5


def test_rates_per_language(result: dict) -> None:
    assert result["by_lang"]["en"] == {"top1": 0.5, "top3": 0.5, "false_route_rate": 0.0}
    assert result["by_lang"]["zh"] == {"top1": 0.0, "top3": 1.0, "false_route_rate": 1.0}


def test_timing_uses_the_given_clock(result: dict) -> None:
    assert result["p50_ms"] == pytest.approx(2.0)
    assert result["p99_ms"] == pytest.approx(2.0)


def test_misses_list_wrong_first_choices_and_false_routes(result: dict) -> None:
    assert [m["text"] for m in result["misses"]] == ["second", "wrong", "noisy"]
    miss = result["misses"][1]
    assert miss["expected"] == ["a"] and miss["selected"] == [] and miss["top3"] is False
    assert miss["candidates"][0] == ("x", 50)


def test_no_cases_gives_empty_rates() -> None:
    empty = evaluate([], ANSWERS.__getitem__, clock=ticking_clock())
    assert empty["top1"] is None and empty["false_route_rate"] is None and empty["p99_ms"] == 0.0


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0], 99) == 3.0


def test_halves_are_fixed_by_the_text_and_split_a_set_about_evenly() -> None:
    cases = [{"text": f"prompt number {i}", "expected": []} for i in range(400)]
    tuning, check = in_half(cases, "tuning"), in_half(cases, "check")
    assert len(tuning) + len(check) == 400 and 160 < len(tuning) < 240
    assert {c["text"] for c in tuning}.isdisjoint(c["text"] for c in check)
    assert [half_of(c) for c in cases] == [half_of(dict(c, lang="xx")) for c in cases]  # the text alone decides
    assert half_of({"text": "prompt number 0"}) == half_of({"text": "prompt number 0", "expected": ["x"]})
    assert in_half(cases, None) == cases
    with pytest.raises(ValueError, match="tuning, check"):
        in_half(cases, "train")
