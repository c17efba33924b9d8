"""Our router against the baseline scorer (bench/seed003_scorer.py) on the real corpus and dev.jsonl.

Needs ../shared (the corpus and eval set next to the repo); skipped only when absent.
Margins are set below the measured gaps (see bench/route_eval.py) so noise-free
regressions fail without making the test brittle.
"""

from __future__ import annotations

import pytest

from tests.conftest import SHARED

pytestmark = pytest.mark.shared_corpus  # skipped only without ../shared, never in CI (tests/conftest.py)


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    from bench.corpus_skills import load_cases, load_corpus_skills
    from bench.seed003_scorer import SeedRouter
    from proxy.core.routing.evaluation import evaluate
    from proxy.core.routing.router import SkillRouter

    cases = load_cases(SHARED / "eval" / "dev.jsonl")
    skills = load_corpus_skills(SHARED / "corpus")
    return {
        "ours": evaluate(cases, SkillRouter(skills).route),
        "seed": evaluate(cases, SeedRouter(skills).route),
    }


def test_beats_the_seed_on_top1(results: dict[str, dict]) -> None:
    assert results["ours"]["top1"] >= results["seed"]["top1"] + 0.20


def test_beats_the_seed_on_top3(results: dict[str, dict]) -> None:
    assert results["ours"]["top3"] >= results["seed"]["top3"] + 0.20


def test_routes_far_fewer_no_skill_messages(results: dict[str, dict]) -> None:
    assert results["ours"]["false_route_rate"] <= results["seed"]["false_route_rate"] - 0.35
    assert results["ours"]["false_route_rate"] <= 0.15


def test_every_language_beats_the_seed(results: dict[str, dict]) -> None:
    for lang, ours in results["ours"]["by_lang"].items():
        assert ours["top1"] > results["seed"]["by_lang"][lang]["top1"], lang
