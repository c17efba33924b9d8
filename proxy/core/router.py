"""Deterministic, explainable skill routing (behaviour.md §4).

What lives here: scoring every routable skill against a message through the
routing index, turning raw evidence into a 0-100 score with a confidence and
readable reasons, and the selection rule (every `high`, plus `medium` within 25
points of the top, at most 3; ties by name).

What it must not know: HTTP, logging, how a decision is injected into a request.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Literal, Sequence

from proxy.core.route_query import QueryTerm, cap_text, query_terms
from proxy.core.routing_index import RoutingIndex, build_index
from proxy.core.skill import Skill
from proxy.core.text_tokens import compounds, words

Confidence = Literal["high", "medium", "low"]

HIGH = 70
MEDIUM = 35
MEDIUM_WINDOW = 25
MAX_SELECTED = 3
CANDIDATES = 10
SHORTLIST_SLACK = 10  # extra skills fully scored beyond the candidates, so bonuses can reorder
# Raw BM25F evidence → 0-100: score = 100 * (1 - exp(-raw / SCALE)).
SCALE = 22.0
EXACT_NAME_BONUS = 35
NAME_COVERAGE_BONUS = 20
EXCLUSION_PENALTY = 0.5  # share of a term's weight taken away when a "not for" clause names it


@dataclass(frozen=True)
class RouteCandidate:
    skill: Skill
    score: int
    confidence: Confidence
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class RouteDecision:
    selected: tuple[RouteCandidate, ...]  # what gets injected
    candidates: tuple[RouteCandidate, ...]  # top 10 ranked (selected included), for diagnostics
    query_terms: tuple[str, ...]

    @property
    def best_rejected(self) -> RouteCandidate | None:
        chosen = {id(c) for c in self.selected}
        return next((c for c in self.candidates if id(c) not in chosen), None)


def _order(c: RouteCandidate) -> tuple[int, str, str]:
    return (-c.score, c.skill.name, c.skill.location)


def confidence_for(score: int) -> Confidence:
    if score >= HIGH:
        return "high"
    return "medium" if score >= MEDIUM else "low"


def _reason(term: QueryTerm, fields: tuple[str, ...]) -> str:
    label = {
        "name": f"lexical:name_token={term.term}",
        "folder": f"path:directory_token={term.term}",
        "tags": f"tag:{term.term}",
        "description": f"frontmatter:description_token={term.term}",
        "headings": f"body:heading_token={term.term}",
    }[fields[0]]
    if term.via.startswith("fuzzy:"):
        return f"fuzzy:{term.via[6:]}~{term.term} ({label})"
    return f"{label} ({term.via})" if term.via else label


def _raw_scores(terms: Sequence[QueryTerm], index: RoutingIndex) -> dict[int, float]:
    """skill → summed evidence, from the postings of the query terms only."""
    raw: dict[int, float] = {}
    get = raw.get
    for term in terms:
        weight = term.weight
        for skill, posting_weight in index.weights.get(term.term, ()):
            raw[skill] = get(skill, 0.0) + weight * posting_weight
    return raw


def _shortlist(raw: dict[int, float], bonus: dict[int, float], size: int) -> list[int]:
    """The skills worth scoring in full: best raw evidence, name mentions counted in."""
    boosted = {**raw, **{i: raw.get(i, 0.0) + b * SCALE / 30 for i, b in bonus.items()}} if bonus else raw
    return heapq.nlargest(size, boosted, key=boosted.__getitem__)


def _name_mentions(text: str, index: RoutingIndex) -> dict[int, float]:
    """skill → exact-name bonus, for names written in the message (`gh-fix-ci`, `gh fix ci`)."""
    plain = words(text)
    written = set(compounds(text))
    for size in range(2, 5):
        written.update("-".join(plain[i : i + size]) for i in range(len(plain) - size + 1))
    bonus: dict[int, float] = {}
    for name in written:
        for i in index.by_name.get(name, ()):
            bonus[i] = EXACT_NAME_BONUS * index.features[i].distinctive
    return bonus


def _explain(chosen: Sequence[int], terms: Sequence[QueryTerm], index: RoutingIndex) -> dict[int, list[str]]:
    """skill → its reasons, strongest first, in one pass over the query's postings."""
    found: dict[int, list[tuple[float, str]]] = {i: [] for i in chosen}
    for term in terms:
        for posting in index.lookup(term.term):
            if posting.skill in found:
                found[posting.skill].append((term.weight * posting.weight, _reason(term, posting.fields)))
    return {i: [r for _, r in sorted(hits, key=lambda h: -h[0])] for i, hits in found.items()}


@dataclass(frozen=True)
class _Query:
    terms: tuple[QueryTerm, ...]
    term_set: frozenset[str]
    raw: dict[int, float]
    bonus: dict[int, float]


def _candidate(i: int, q: _Query, index: RoutingIndex, reasons: list[str]) -> RouteCandidate:
    skill, features = index.skills[i], index.features[i]
    raw = q.raw[i]
    bonus = q.bonus.get(i, 0.0)
    if bonus:
        reasons.insert(0, f"exact:name={skill.name}")
    elif len(features.name_terms) > 1 and features.name_terms <= q.term_set:
        bonus = NAME_COVERAGE_BONUS
        reasons.insert(0, f"lexical:name_all_tokens={skill.name}")
    excluded = sorted(features.excluded & q.term_set)
    if excluded:
        raw *= 1 - EXCLUSION_PENALTY * min(1.0, len(excluded) / 3)
        reasons.append(f"penalty:description_excludes={','.join(excluded)}")
    score = min(100, round(100 * (1 - math.exp(-raw / SCALE)) + bonus))
    return RouteCandidate(skill, score, confidence_for(score), tuple(dict.fromkeys(reasons)))


def select(ranked: Sequence[RouteCandidate], max_selected: int = MAX_SELECTED) -> tuple[RouteCandidate, ...]:
    """Every `high`, plus `medium` within 25 points of the top; at most `max_selected` (≤ 3)."""
    cap = max(0, min(max_selected, MAX_SELECTED))
    if not ranked or cap == 0:
        return ()
    top = ranked[0].score
    chosen = [c for c in ranked if c.score >= HIGH or (c.score >= MEDIUM and top - c.score <= MEDIUM_WINDOW)]
    return tuple(chosen[:cap])


class SkillRouter:
    """Ranks the model-invocable skills of one catalog against messages."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        self._index = build_index(skills)

    @property
    def index(self) -> RoutingIndex:
        return self._index

    def _rank(self, text: str, limit: int) -> tuple[tuple[RouteCandidate, ...], tuple[QueryTerm, ...]]:
        index, capped = self._index, cap_text(text)
        terms = query_terms(capped, index)
        raw = _raw_scores(terms, index)
        if not raw:
            return (), terms
        q = _Query(terms, frozenset(t.term for t in terms), raw, _name_mentions(capped, index))
        shortlist = _shortlist(raw, q.bonus, limit + SHORTLIST_SLACK)
        reasons = _explain(shortlist, terms, index)
        ranked = sorted((_candidate(i, q, index, reasons[i]) for i in shortlist), key=_order)
        return tuple(ranked[:limit]), terms

    def route(self, text: str, max_selected: int = MAX_SELECTED) -> RouteDecision:
        candidates, terms = self._rank(text, CANDIDATES)
        return RouteDecision(select(candidates, max_selected), candidates, tuple(t.term for t in terms))

    def search(self, query: str, limit: int = 10) -> tuple[RouteCandidate, ...]:
        """Ranking only, no thresholds (for a `list_skills` tool)."""
        ranked, _ = self._rank(query, max(0, limit))
        return ranked
