"""The router's faster forms give exactly what their plain definitions give.

Routing splits a message once and reads everything from that split; keeps postings as arrays
(many holders) or tuples (a few); breaks ties by a precomputed name order; reads a reason's
field from a table; and writes a candidate's reasons when they are first read. Each is checked
here against the plain form it replaces.
"""

from __future__ import annotations

import copy
import pickle
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.core.catalog.catalog import load_catalog
from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import RouteCandidate, SkillRouter
from proxy.core.routing.term_index import SHORT_POSTINGS, RoutingIndex, build_index
from proxy.core.routing.terms import FIELDS, FIRST_FIELD, field_names
from proxy.core.routing.tokens import (
    CJK_RUN,
    compounds,
    normalize,
    phrases,
    split_terms,
    split_text,
    terms,
    word_phrases,
    words,
)
from tests.conftest import corpus_roots

CI_SETTINGS = settings(max_examples=300, derandomize=True, database=None, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])
PIECES = ["gh-fix-ci", "p5.js", "snake_case", "c++", "C#", "Neo4j", "ＤＡＴＡＢＡＳＥ", "Straße", "数据库查询", "ｶﾀｶﾅ",
          "한국어", "the", "landing pages", "1,000.5", "x", "--", "_", "ǰ", "ﬁle", "\u00a0", "\n", "é", "\ud83d"]
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=12).map(" ".join)


def make_skill(name: str, description: str, location: str | None = None) -> Skill:
    folder = Path("/skills") / name
    return Skill(name=name, description=description, folder=folder, root="/skills",
                 location=location or str(folder / "SKILL.md"))


SKILLS = (
    make_skill("db-tuning", "Speed up slow database queries: indexes, query plans and caching."),
    make_skill("db-tuning-pro", "Speed up slow database queries with indexes. Maintained by the Acme team."),
    make_skill("query-plans", "Read query plans and pick indexes for slow database queries."),
    make_skill("grafana-dashboards", "Build Grafana dashboards for latency and error rates."),
    make_skill("release-notes", "Write release notes and changelog entries from commits."),
)


@CI_SETTINGS
@given(text=TEXT)
def test_a_message_split_once_gives_the_terms_phrases_words_and_compounds_of_its_text(text: str) -> None:
    split = split_text(text)
    assert split.cjk_runs == CJK_RUN.findall(normalize(text))
    assert split.words == words(text) and split.compounds == compounds(text)
    assert split_terms(split) == terms(text)
    assert word_phrases(split.words) == phrases(text)


def test_the_first_field_table_names_the_first_field_of_every_set_of_fields() -> None:
    assert [FIRST_FIELD[bits] for bits in range(1, 1 << len(FIELDS))] == [
        field_names(bits)[0] for bits in range(1, 1 << len(FIELDS))]


def assert_postings_agree_with_matches(index: RoutingIndex) -> None:
    """Every posting is the term's weight in its holder's matches, bit for bit, and every match is a posting."""
    held = 0
    for term, (skills, weights) in index.postings.items():
        assert list(skills) == sorted(set(skills))
        assert isinstance(skills, tuple) if len(skills) <= SHORT_POSTINGS else isinstance(skills, array)
        for skill, weight in zip(skills, weights, strict=True):
            match = index.features[skill].matches[term]
            assert match.weight.hex() == weight.hex() and match.fields
            held += 1
    assert held == sum(len(f.matches) for f in index.features)


def test_postings_and_each_skills_matches_hold_the_same_weights() -> None:
    assert_postings_agree_with_matches(build_index(SKILLS))


@pytest.mark.shared_corpus
def test_postings_and_each_skills_matches_hold_the_same_weights_over_the_corpus() -> None:
    assert_postings_agree_with_matches(build_index(load_catalog(corpus_roots()).skills))


def test_ties_in_score_are_broken_by_name_then_location_as_written() -> None:
    twins = (make_skill("b-skill", "Tune slow database queries.", "/z/SKILL.md"),
             make_skill("b-skill", "Tune slow database queries.", "/a/SKILL.md"),
             make_skill("a-skill", "Tune slow database queries."))
    index = build_index(twins)
    order = sorted(range(len(twins)), key=lambda i: (twins[i].name, twins[i].location))
    assert [index.name_order[i] for i in order] == [0, 1, 2]
    ranked = SkillRouter(twins).search("tune slow database queries")
    assert [(c.skill.name, c.skill.location) for c in ranked] == sorted((s.name, s.location) for s in twins)


def test_a_candidates_reasons_are_the_same_whenever_and_however_they_are_read() -> None:
    router = SkillRouter(SKILLS)
    text = "speed up my slow database queries with better indexes"
    first, second = router.route(text), router.route(text)
    for candidate in second.candidates:  # read everything now, in reverse
        assert candidate.reasons
    for a, b in zip(reversed(first.candidates), reversed(second.candidates), strict=True):
        assert a.reasons == b.reasons and a == b and hash(a) == hash(b)
        plain = RouteCandidate(a.skill, a.score, a.confidence, a.reasons)
        assert plain == a and repr(plain) == repr(a)
    fresh = router.route(text).candidates
    assert [pickle.loads(pickle.dumps(c)) for c in fresh] == list(first.candidates)
    assert [copy.deepcopy(c) for c in router.route(text).candidates] == list(first.candidates)
    with pytest.raises(AttributeError):
        _ = fresh[0].no_such_field
