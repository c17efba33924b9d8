"""The routing index: built once per catalog, read by every route.

What lives here: per-skill field terms (name, folder, tags, description with
when_to_use, what other skills' descriptions send here, body headings, the
body's opening lines, its "When to use" section and the rest of its prose)
folded into an inverted index whose postings carry a precomputed
field-weighted BM25 weight (BM25F), plus the small per-skill features the
scorer explains itself with. Routing a message then costs the postings of its
terms, never a rescan of the catalog.

What it must not know: queries, thresholds or how a decision is presented.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping, NamedTuple, Sequence

from proxy.core.routing_fields import BodyText, read_body_text, split_redirects
from proxy.core.skill import Skill
from proxy.core.text_tokens import normalize, phrases, terms

FIELD_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        "name": 3.0, "folder": 2.0, "tags": 2.0, "description": 1.0, "headings": 0.35, "referred": 1.0,
        "opening": 0.5, "use_when": 0.5, "body": 0.3,
    }
)
_LENGTH_B: Mapping[str, float] = MappingProxyType(
    {
        "name": 0.3, "folder": 0.3, "tags": 0.3, "description": 0.6, "headings": 0.6, "referred": 0.5,
        "opening": 0.6, "use_when": 0.6, "body": 0.9,
    }
)
K1 = 1.2
# Postings lighter than this are dropped: a common word met once deep in a body is noise
# (measured: dropping them ranks better), and every posting costs time on every route.
MIN_WEIGHT = 0.7
# A term held by many skills keeps only its strongest holders (a share of the catalog, at
# least MIN_POSTINGS): a word in a third of all skills says little about the rest of them.
MAX_POSTINGS_SHARE = 0.15
MIN_POSTINGS = 40
# IDF as if the catalog had at least this many skills, so scores (and thresholds) mean
# the same for a 5-skill catalog as for a 400-skill one.
MIN_DOCUMENTS = 300
DISTINCTIVE_SHARE = 0.8  # a one-word name is fully distinctive when its idf reaches this share of the max
# Words that make a name but say nothing about the task ("neo4j-cypher-skill").
NAME_FILLER = frozenset({"skill", "skills", "pattern", "patterns", "guide", "tool", "tools"})
_EXCLUSION = re.compile(
    r"(?:\bnot for\b|\bdo not use\b|\bdon't use\b|\bdoes not (?:cover|handle|do)\b|\bnot intended for\b)"
    r"[^.;\n]*",
    re.IGNORECASE,
)


class Posting(NamedTuple):
    """One skill holding one term: its BM25F weight and the fields it came from."""

    skill: int
    weight: float
    fields: tuple[str, ...]


class Match(NamedTuple):
    """What one term is worth to one skill, and where the skill has it."""

    weight: float
    fields: tuple[str, ...]


@dataclass(frozen=True)
class SkillFeatures:
    """What the scorer needs about one skill beyond the postings."""

    name_norm: str
    name_terms: frozenset[str]  # informative name terms (filler words removed)
    distinctive: float  # 0-1: how rare the name's words are (an exact mention of `image` says less)
    excluded: frozenset[str]  # terms of "not for …" clauses and phrases of "When not to use" sections
    matches: Mapping[str, Match]  # term → its weight and fields, for this skill's reasons


@dataclass(frozen=True)
class RoutingIndex:
    skills: tuple[Skill, ...]
    features: tuple[SkillFeatures, ...]
    postings: Mapping[str, tuple[tuple[int, ...], tuple[float, ...]]]  # term → (skills, their BM25F weights)
    idf: Mapping[str, float]
    by_name: Mapping[str, tuple[int, ...]]  # normalised name and folder name → skills
    name_heads: frozenset[str]  # first words of hyphenated names (`gh` of `gh-fix-ci`)
    fuzzy_vocab: Mapping[int, tuple[str, ...]]  # word length → name/folder/tag terms a typo of it could be
    typo_cache: dict[str, str | None] = dataclass_field(default_factory=dict, compare=False, repr=False)  # filled by routing

    def lookup(self, term: str) -> tuple[Posting, ...]:
        """Every skill holding `term`, with its weight and fields."""
        skills, weights = self.postings.get(term, ((), ()))
        return tuple(Posting(i, w, self.features[i].matches[term].fields) for i, w in zip(skills, weights))

    def knows(self, term: str) -> bool:
        return term in self.postings

    def typo_candidates(self, term: str) -> tuple[str, ...]:
        return self.fuzzy_vocab.get(len(term), ())


def split_exclusions(description: str) -> tuple[str, str]:
    """(positive text, "not for …" clauses) of a description."""
    excluded = " ".join(m.group(0) for m in _EXCLUSION.finditer(description))
    return _EXCLUSION.sub(" ", description), excluded


def _field_terms(text: str) -> list[str]:
    return terms(text) + phrases(text)


def skill_fields(skill: Skill, body: BodyText = BodyText(), referred: str = "") -> dict[str, list[str]]:
    """The terms of each routing field of one skill (`referred`: what other skills send here)."""
    positive, _ = split_exclusions(split_redirects(skill.routing_description)[0])
    fields = {
        "referred": _field_terms(referred),
        "name": _field_terms(skill.name),
        "tags": [t for tag in skill.tags for t in _field_terms(tag)],
        "description": _field_terms(positive),
        "headings": [t for h in skill.headings for t in _field_terms(h)],
        "opening": _field_terms(body.opening),
        "use_when": _field_terms(body.use_when),
        "body": terms(body.prose),
    }
    folder = _field_terms(skill.folder_name)
    if set(folder) != set(fields["name"]):
        fields["folder"] = folder
    return fields


def _features(skill: Skill, body: BodyText, matches: Mapping[str, Match], idf: Mapping[str, float], max_idf: float) -> SkillFeatures:
    name_terms = frozenset(terms(skill.name)) - NAME_FILLER
    _, excluded = split_exclusions(skill.routing_description)
    rarest = max((idf.get(t, max_idf) for t in name_terms), default=0.0)
    distinctive = 1.0 if len(name_terms) > 1 else min(1.0, rarest / (DISTINCTIVE_SHARE * max_idf))
    # Whole phrases only from a body's "When not to use": its single words are often the skill's own topic.
    avoid = frozenset(terms(excluded)) | frozenset(phrases(body.avoid_when))
    return SkillFeatures(normalize(skill.name), name_terms, distinctive, avoid, matches)


def _names(skills: Sequence[Skill]) -> Mapping[str, tuple[int, ...]]:
    found: dict[str, list[int]] = {}
    for i, skill in enumerate(skills):
        for name in {normalize(skill.name), normalize(skill.folder_name)}:
            found.setdefault(name.replace("_", "-").replace(" ", "-"), []).append(i)
    return {k: tuple(v) for k, v in found.items()}


def _referrals(skills: Sequence[Skill], names: Mapping[str, tuple[int, ...]]) -> dict[int, str]:
    """skill → the topics other skills' descriptions send to it ("for X, see <skill>")."""
    found: dict[int, list[str]] = {}
    for i, skill in enumerate(skills):
        for redirect in split_redirects(skill.routing_description)[1]:
            for j in names.get(normalize(redirect.target), ()):
                if j != i:
                    found.setdefault(j, []).append(redirect.topic)
    return {j: ". ".join(topics) for j, topics in found.items()}


def _average_lengths(all_fields: Sequence[dict[str, list[str]]]) -> dict[str, float]:
    totals: Counter[str] = Counter()
    for fields in all_fields:
        for field, words in fields.items():
            totals[field] += len(words)
    n = max(len(all_fields), 1)
    return {field: max(totals[field] / n, 1.0) for field in FIELD_WEIGHTS}


_FIELD_BITS = {name: 1 << n for n, name in enumerate(FIELD_WEIGHTS)}


def _pseudo_tf(fields: dict[str, list[str]], avg: dict[str, float]) -> tuple[dict[str, float], dict[str, int]]:
    """BM25F: length-normalised, field-weighted term frequency per term, and (as bits) where each was found."""
    tfs: dict[str, float] = {}
    where: dict[str, int] = {}
    for field, words in fields.items():
        b, bit = _LENGTH_B[field], _FIELD_BITS[field]
        scale = FIELD_WEIGHTS[field] / (1 - b + b * len(words) / avg[field])
        for term, count in Counter(words).items():
            tfs[term] = tfs.get(term, 0.0) + scale * count
            where[term] = where.get(term, 0) | bit
    return tfs, where


@lru_cache(maxsize=1024)
def _field_names(bits: int) -> tuple[str, ...]:
    """The fields of a bit set, in FIELD_WEIGHTS order (name first, body last)."""
    return tuple(name for name, bit in _FIELD_BITS.items() if bits & bit)


def _by_length(vocab: Sequence[str], spread: float = 1.4) -> Mapping[int, tuple[str, ...]]:
    """For each word length, the vocabulary whose lengths allow a close fuzzy ratio."""
    longest = max((len(v) for v in vocab), default=0)
    return MappingProxyType(
        {n: tuple(v for v in vocab if n / spread <= len(v) <= n * spread) for n in range(1, int(longest * spread) + 1)}
    )


Postings = dict[str, tuple[tuple[int, ...], tuple[float, ...]]]


def _weigh(per_skill: Sequence[tuple[dict[str, float], dict[str, int]]], idf: Mapping[str, float]) -> tuple[list[dict[str, Match]], Postings]:
    """Per skill, term → BM25F weight and fields, and the postings of every term. Light matches
    are dropped, and a common term keeps only the skills that hold it most strongly."""
    found: list[dict[str, Match]] = []
    holders: dict[str, list[int]] = {}
    weights: dict[str, list[float]] = {}
    for i, (tfs, where) in enumerate(per_skill):
        kept: dict[str, Match] = {}
        for term, tf in tfs.items():
            weight = idf[term] * tf * (K1 + 1) / (tf + K1)
            if weight >= MIN_WEIGHT:
                kept[term] = Match(weight, _field_names(where[term]))
                holders.setdefault(term, []).append(i)
                weights.setdefault(term, []).append(weight)
        found.append(kept)
    cap = max(MIN_POSTINGS, int(len(per_skill) * MAX_POSTINGS_SHARE))
    postings: Postings = {}
    for term, skills in holders.items():
        ws = weights[term]
        if len(skills) > cap:
            best = sorted(range(len(skills)), key=lambda k: (-ws[k], skills[k]))[:cap]
            for k in set(range(len(skills))) - set(best):
                del found[skills[k]][term]
            best.sort()
            skills, ws = [skills[k] for k in best], [ws[k] for k in best]
        postings[term] = (tuple(skills), tuple(ws))
    return found, postings


def build_index(skills: Sequence[Skill]) -> RoutingIndex:
    """Index the model-invocable skills of a catalog (others are never routed)."""
    routable = tuple(s for s in skills if s.model_invocable)
    names = _names(routable)
    referred = _referrals(routable, names)
    bodies = [read_body_text(s.skill_file) for s in routable]
    all_fields = [skill_fields(s, b, referred.get(i, "")) for i, (s, b) in enumerate(zip(routable, bodies))]
    avg = _average_lengths(all_fields)
    per_skill = [_pseudo_tf(f, avg) for f in all_fields]
    df = Counter(term for tfs, _ in per_skill for term in tfs)
    n = max(len(routable), MIN_DOCUMENTS)
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    matches, postings = _weigh(per_skill, idf)
    vocab = sorted({t for f in all_fields for k in ("name", "folder", "tags") for t in f.get(k, ()) if len(t) >= 4 and " " not in t})
    max_idf = math.log(1 + (n + 0.5) / 1.5)
    return RoutingIndex(
        skills=routable,
        features=tuple(_features(s, b, m, idf, max_idf) for s, b, m in zip(routable, bodies, matches)),
        postings=postings,
        idf=idf,
        by_name=names,
        name_heads=frozenset(name.split("-", 1)[0] for name in names if "-" in name),
        fuzzy_vocab=_by_length(vocab),
    )
