"""A faithful Python port of the keyword router of the TypeScript skills plugin skillproxy started from.

Benchmark baseline only, not part of the product. Same normalisation, tokens,
weights, thresholds and selection rule as the TypeScript; two unavoidable
choices: `displayPath` is the skill folder relative to its root's parent
(e.g. `kdense/astropy`), and JS `localeCompare` is approximated by casefold order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from proxy.core.catalog.skill import Skill

HIGH_CONFIDENCE_THRESHOLD = 70
MEDIUM_CONFIDENCE_THRESHOLD = 35
GENERIC_TERMS = frozenset(
    "use using make create update fix help please task work file thing stuff this that with from into your "
    "query".split()
)
_NON_TOKEN = re.compile(r"[^a-z0-9._-]+")
_SPLIT = re.compile(r"[\s._/-]+")
_GENERIC_DESCRIPTION = re.compile(r"^(use this skill|no description available)", re.IGNORECASE)


@dataclass(frozen=True)
class SeedCandidate:
    skill: Skill
    score: int
    confidence: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class SeedDecision:
    selected: tuple[SeedCandidate, ...]
    candidates: tuple[SeedCandidate, ...]


def normalize(value: str) -> str:
    return _NON_TOKEN.sub(" ", value.lower()).strip()


def tokenize(value: str) -> list[str]:
    tokens = [t.strip() for t in _SPLIT.split(normalize(value))]
    return list(dict.fromkeys(t for t in tokens if len(t) >= 2 and t not in GENERIC_TERMS))


def display_path(skill: Skill) -> str:
    return f"{skill.folder.parent.name}/{skill.folder.name}"


def confidence_for_score(score: int) -> str:
    if score >= HIGH_CONFIDENCE_THRESHOLD:
        return "high"
    return "medium" if score >= MEDIUM_CONFIDENCE_THRESHOLD else "low"


@dataclass(frozen=True)
class SkillView:
    """The skill-side values the TS recomputes per query, computed once (same results, faster)."""

    skill: Skill
    name_norm: str
    base_norm: str
    description_norm: str
    path_norm: str
    tag_norms: tuple[str, ...]
    name_tokens: tuple[str, ...]
    base_tokens: tuple[str, ...]
    description_tokens: tuple[str, ...]
    generic: bool


def view(skill: Skill) -> SkillView:
    desc_tokens = tuple(tokenize(skill.description))
    return SkillView(
        skill,
        normalize(skill.name),
        normalize(skill.folder_name),
        normalize(skill.description),
        normalize(display_path(skill)),
        tuple(normalize(t) for t in skill.tags),
        tuple(tokenize(skill.name)),
        tuple(tokenize(skill.folder_name)),
        desc_tokens,
        len(desc_tokens) <= 3 or bool(_GENERIC_DESCRIPTION.match(skill.description)),
    )


def _phrase_score(v: SkillView, query_norm: str, reasons: list[str]) -> int:
    score = 0
    if query_norm and v.name_norm == query_norm:
        score += 100
        reasons.append(f"exact:name={v.skill.name}")
    if query_norm and v.base_norm == query_norm:
        score += 95
        reasons.append(f"exact:directory={v.skill.folder_name}")
    if query_norm and query_norm in v.name_norm and len(query_norm) >= 4:
        score += 60
        reasons.append("lexical:name_phrase")
    if query_norm and query_norm in v.description_norm and len(query_norm) >= 8:
        score += 45
        reasons.append("frontmatter:description_phrase")
    return score


def _token_score(v: SkillView, query_tokens: list[str], reasons: list[str]) -> int:
    score = 0
    rules = (
        (lambda t: t in v.tag_norms, 35, "tag:{}"),
        (lambda t: t in v.name_tokens, 20, "lexical:name_token={}"),
        (lambda t: t in v.base_tokens, 18, "path:directory_token={}"),
        (lambda t: t in v.description_tokens, 8, "frontmatter:description_token={}"),
        (lambda t: t in v.path_norm and len(t) >= 4, 4, "path:contains={}"),
    )
    for token in query_tokens:
        for test, points, label in rules:
            if test(token):
                score += points
                reasons.append(label.format(token))
    return score


def score_skill_for_query(skill: Skill | SkillView, query: str) -> SeedCandidate:
    v = skill if isinstance(skill, SkillView) else view(skill)
    reasons: list[str] = []
    score = _phrase_score(v, normalize(query), reasons)
    score += _token_score(v, tokenize(query), reasons)
    if v.generic:
        score -= 8
        reasons.append("penalty:generic_description")
    score = max(0, round(score))
    return SeedCandidate(v.skill, score, confidence_for_score(score), tuple(dict.fromkeys(reasons)))


def route_skills(query: str, skills: Sequence[Skill | SkillView], max_selected: int) -> SeedDecision:
    views = [s if isinstance(s, SkillView) else view(s) for s in skills]
    candidates = [score_skill_for_query(v, query) for v in views if v.skill.model_invocable]
    candidates.sort(key=lambda c: (-c.score, c.skill.name.casefold()))
    top = candidates[0].score if candidates else 0
    selected = [
        c
        for i, c in enumerate(candidates)
        if c.score >= HIGH_CONFIDENCE_THRESHOLD
        or (c.score >= MEDIUM_CONFIDENCE_THRESHOLD and i < max_selected and top - c.score <= 25)
    ][:max_selected]
    return SeedDecision(tuple(selected), tuple(candidates[:10]))


class SeedRouter:
    """The baseline scorer behind the same `route(text, max_selected)` shape as SkillRouter."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        self._views = tuple(view(s) for s in skills)

    def route(self, text: str, max_selected: int = 3) -> SeedDecision:
        return route_skills(text, self._views, max_selected)
