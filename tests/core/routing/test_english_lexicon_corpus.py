"""The English table on the real catalog: everyday words reach the skills that use technical ones,
and a name or an everyday word mentioned in passing reaches none.

The messages are written here, not taken from an eval set: the kinds of request the English table
bridges (a file format or tool for the catalog's domain words, an everyday phrasing for a catalog
concept), and the kinds of chatter it must leave alone (a tool named in passing, an acronym asked
about, an everyday word a table could over-read: hospital, pop up, salary, log in).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import SHARED

pytestmark = pytest.mark.shared_corpus  # skipped only without ../shared, never in CI (tests/conftest.py)

BRIDGED = {
    "we exported a log of who messages whom on slack. which people are the most central, and are there tight groups?":
        "networkx",
    "I have a stripped ELF binary from a router, open it in ghidra and tell me what the main loop does":
        "binary-analysis-patterns",
    "lots of visitors start to create an account but most never finish signing up, how do we fix the form?":
        "signup",
    "customers stop paying after the second month, how do we keep them?": "churn-prevention",
    "our python worker keeps opening postgres connections until the server says too many clients":
        "python-resource-management",
    "convert these heic photos to jpg in bulk": "file-conversion",
}

IN_PASSING = (
    "is wireshark free to use?",
    "is jenkins free to use?",
    "what does ROAS stand for?",
    "the hospital visit went fine, thanks for asking",
    "a pop up keeps appearing in my browser asking for notifications, how do I turn it off",
    "what is the salary of a nurse in canada roughly",
    "how do I log in to my bank account if I forgot my username",
    "lol my coworker spent all day fighting with docker again, anyway what should I cook tonight",
    "what does a ball do when it bounces on concrete",
)


@pytest.fixture(scope="module")
def route() -> Callable[[str], Any]:
    from bench.corpus_skills import load_corpus_skills
    from proxy.core.routing.router import SkillRouter

    return SkillRouter(load_corpus_skills(SHARED / "corpus")).route


@pytest.mark.parametrize("text", list(BRIDGED))
def test_everyday_words_reach_the_skill_described_in_technical_ones(route: Callable[[str], Any], text: str) -> None:
    top3 = [c.skill.name for c in route(text).candidates[:3]]
    assert BRIDGED[text] in top3, top3


@pytest.mark.parametrize("text", IN_PASSING)
def test_a_name_or_everyday_word_in_passing_routes_nowhere(route: Callable[[str], Any], text: str) -> None:
    assert [c.skill.name for c in route(text).selected] == []
