"""The routing index: built once per catalog, read by every route.

What lives here: per-skill field terms (name, folder, tags, description with
when_to_use, body headings) folded into an inverted index whose postings carry
a precomputed field-weighted BM25 weight (BM25F), plus the small per-skill
features the scorer explains itself with. Routing a message then costs the
postings of its terms, never a rescan of the catalog.

What it must not know: queries, thresholds or how a decision is presented.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Sequence

from proxy.core.skill import Skill
from proxy.core.text_tokens import normalize, phrases, terms

FIELD_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {"name": 3.0, "folder": 2.0, "tags": 2.0, "description": 1.0, "headings": 0.35}
)
_LENGTH_B: Mapping[str, float] = MappingProxyType(
    {"name": 0.3, "folder": 0.3, "tags": 0.3, "description": 0.6, "headings": 0.6}
)
K1 = 1.2
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


@dataclass(frozen=True)
class Posting:
    """One skill holding one term: its BM25F weight and the fields it came from."""

    skill: int
    weight: float
    fields: tuple[str, ...]


@dataclass(frozen=True)
class SkillFeatures:
    """What the scorer needs about one skill beyond the postings."""

    name_norm: str
    name_terms: frozenset[str]  # informative name terms (filler words removed)
    distinctive: float  # 0-1: how rare the name's words are (an exact mention of `image` says less)
    excluded: frozenset[str]  # terms of "not for …" clauses in the description


@dataclass(frozen=True)
class RoutingIndex:
    skills: tuple[Skill, ...]
    features: tuple[SkillFeatures, ...]
    postings: Mapping[str, tuple[Posting, ...]]
    weights: Mapping[str, tuple[tuple[int, float], ...]]  # the postings as (skill, weight), for the hot loop
    idf: Mapping[str, float]
    by_name: Mapping[str, tuple[int, ...]]  # normalised name and folder name → skills
    fuzzy_vocab: Mapping[int, tuple[str, ...]]  # word length → name/folder/tag terms a typo of it could be

    def lookup(self, term: str) -> tuple[Posting, ...]:
        return self.postings.get(term, ())

    def typo_candidates(self, term: str) -> tuple[str, ...]:
        return self.fuzzy_vocab.get(len(term), ())


def split_exclusions(description: str) -> tuple[str, str]:
    """(positive text, "not for …" clauses) of a description."""
    excluded = " ".join(m.group(0) for m in _EXCLUSION.finditer(description))
    return _EXCLUSION.sub(" ", description), excluded


def _field_terms(text: str) -> list[str]:
    return terms(text) + phrases(text)


def skill_fields(skill: Skill) -> dict[str, list[str]]:
    """The terms of each routing field of one skill."""
    positive, _ = split_exclusions(skill.routing_description)
    fields = {
        "name": _field_terms(skill.name),
        "tags": [t for tag in skill.tags for t in _field_terms(tag)],
        "description": _field_terms(positive),
        "headings": [t for h in skill.headings for t in _field_terms(h)],
    }
    folder = _field_terms(skill.folder_name)
    if set(folder) != set(fields["name"]):
        fields["folder"] = folder
    return fields


def _features(skill: Skill, idf: Mapping[str, float], max_idf: float) -> SkillFeatures:
    name_terms = frozenset(terms(skill.name)) - NAME_FILLER
    _, excluded = split_exclusions(skill.routing_description)
    rarest = max((idf.get(t, max_idf) for t in name_terms), default=0.0)
    distinctive = 1.0 if len(name_terms) > 1 else min(1.0, rarest / (DISTINCTIVE_SHARE * max_idf))
    return SkillFeatures(normalize(skill.name), name_terms, distinctive, frozenset(terms(excluded)))


def _names(skills: Sequence[Skill]) -> Mapping[str, tuple[int, ...]]:
    found: dict[str, list[int]] = {}
    for i, skill in enumerate(skills):
        for name in {normalize(skill.name), normalize(skill.folder_name)}:
            found.setdefault(name.replace("_", "-").replace(" ", "-"), []).append(i)
    return MappingProxyType({k: tuple(v) for k, v in found.items()})


def _average_lengths(all_fields: Sequence[dict[str, list[str]]]) -> dict[str, float]:
    totals: Counter[str] = Counter()
    for fields in all_fields:
        for field, words in fields.items():
            totals[field] += len(words)
    n = max(len(all_fields), 1)
    return {field: max(totals[field] / n, 1.0) for field in FIELD_WEIGHTS}


def _pseudo_tf(fields: dict[str, list[str]], avg: dict[str, float]) -> dict[str, tuple[float, list[str]]]:
    """BM25F: length-normalised, field-weighted term frequency per term."""
    out: dict[str, tuple[float, list[str]]] = {}
    for field, words in fields.items():
        b = _LENGTH_B[field]
        norm = 1 - b + b * len(words) / avg[field]
        for term, count in Counter(words).items():
            tf, where = out.get(term, (0.0, []))
            out[term] = (tf + FIELD_WEIGHTS[field] * count / norm, where + [field])
    return out


def _by_length(vocab: Sequence[str], spread: float = 1.4) -> Mapping[int, tuple[str, ...]]:
    """For each word length, the vocabulary whose lengths allow a close fuzzy ratio."""
    longest = max((len(v) for v in vocab), default=0)
    return MappingProxyType(
        {n: tuple(v for v in vocab if n / spread <= len(v) <= n * spread) for n in range(1, int(longest * spread) + 1)}
    )


def build_index(skills: Sequence[Skill]) -> RoutingIndex:
    """Index the model-invocable skills of a catalog (others are never routed)."""
    routable = tuple(s for s in skills if s.model_invocable)
    all_fields = [skill_fields(s) for s in routable]
    avg = _average_lengths(all_fields)
    per_skill = [_pseudo_tf(f, avg) for f in all_fields]
    df = Counter(term for tfs in per_skill for term in tfs)
    n = max(len(routable), MIN_DOCUMENTS)
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    postings: dict[str, list[Posting]] = {}
    for i, tfs in enumerate(per_skill):
        for term, (tf, where) in tfs.items():
            weight = idf[term] * tf * (K1 + 1) / (tf + K1)
            postings.setdefault(term, []).append(Posting(i, weight, tuple(where)))
    vocab = sorted({t for f in all_fields for k in ("name", "folder", "tags") for t in f.get(k, ()) if len(t) >= 4 and " " not in t})
    max_idf = math.log(1 + (n + 0.5) / 1.5)
    return RoutingIndex(
        skills=routable,
        features=tuple(_features(s, idf, max_idf) for s in routable),
        postings=MappingProxyType({t: tuple(p) for t, p in postings.items()}),
        weights=MappingProxyType({t: tuple((x.skill, x.weight) for x in p) for t, p in postings.items()}),
        idf=MappingProxyType(idf),
        by_name=_names(routable),
        fuzzy_vocab=_by_length(vocab),
    )
