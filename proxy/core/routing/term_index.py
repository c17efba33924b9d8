"""The routing index: built once per catalog, read by every route.

What lives here: per-skill field terms (name, folder, tags, description with
when_to_use, what other skills' descriptions send here, body headings, the
body's opening lines, its "When to use" section and the rest of its prose)
folded into an inverted index whose postings carry a precomputed
field-weighted BM25 weight (BM25F), plus the small per-skill features the
scorer explains itself with. Routing a message then costs the postings of its
terms, never a rescan of the catalog.

A rebuild after a reload re-analyses only the skills that changed: each
skill's counted field terms come from `routing_terms` (kept by the skill's
content); what is redone here for every skill is the global part (field
lengths, document frequencies, BM25F weights, the postings), summed in the
same order as from scratch, so every weight is bit-identical.

What it must not know: queries, thresholds or how a decision is presented.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterator, KeysView, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

from proxy.core.catalog.skill import Skill
from proxy.core.routing.fields import split_redirects
from proxy.core.routing.loanwords import catalog_loanwords
from proxy.core.routing.terms import FIELD_BITS, FieldCounts, SkillTerms, field_names, referred_counts, skill_terms
from proxy.core.routing.tokens import normalize
from proxy.core.routing.transliteration import LoanwordTable

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


# A term's postings: the skills holding it (ascending) and their weights. Held by many
# skills, they are machine ints and doubles side by side: summing them reads two arrays in
# order rather than an int and a float object per posting scattered over the heap (routing
# is bound by those memory reads), and they take less memory; a double holds a float
# exactly. Held by a few (most terms), two tuples are smaller than two arrays (whose headers
# outweigh them up to about 20 holders), and their floats are the skills' own.
PostingList = tuple[Sequence[int], Sequence[float]]
SHORT_POSTINGS = 16


class Posting(NamedTuple):
    """One skill holding one term: its BM25F weight and the fields it came from."""

    skill: int
    weight: float
    fields: tuple[str, ...]


class Match(NamedTuple):
    """What one term is worth to one skill, and where the skill has it."""

    weight: float
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SkillFeatures:
    """What the scorer needs about one skill beyond the postings."""

    name_norm: str
    name_terms: frozenset[str]  # informative name terms (filler words removed)
    distinctive: float  # 0-1: how rare the name's words are (an exact mention of `image` says less)
    excluded: frozenset[str]  # terms of "not for …" clauses and phrases of "When not to use" sections
    matches: SkillMatches  # term → its weight and fields, for this skill's reasons


@dataclass(frozen=True)
class RoutingIndex:
    skills: tuple[Skill, ...]
    features: tuple[SkillFeatures, ...]
    postings: Mapping[str, PostingList]  # term → (skills, their BM25F weights)
    idf: Mapping[str, float]
    by_name: Mapping[str, tuple[int, ...]]  # normalised name and folder name → skills
    name_heads: frozenset[str]  # first words of hyphenated names (`gh` of `gh-fix-ci`)
    fuzzy_vocab: Mapping[int, tuple[str, ...]]  # word length → name/folder/tag terms a typo of it could be
    # skill → its place in (name, location) order, equal for equal pairs: the tie-break of a ranking
    name_order: Sequence[int]
    # Filled by routing.
    typo_cache: dict[str, str | None] = dataclass_field(default_factory=dict, compare=False, repr=False)
    # CJK run → (spelling, term) of the loanwords found in it
    loanword_cache: dict[str, tuple[tuple[str, str], ...]] = dataclass_field(default_factory=dict, compare=False,
                                                                               repr=False)

    def lookup(self, term: str) -> tuple[Posting, ...]:
        """Every skill holding `term`, with its weight and fields."""
        skills, weights = self.postings.get(term, ((), ()))
        return tuple(Posting(i, w, self.features[i].matches[term].fields) for i, w in zip(skills, weights))

    def knows(self, term: str) -> bool:
        return term in self.postings

    def typo_candidates(self, term: str) -> tuple[str, ...]:
        return self.fuzzy_vocab.get(len(term), ())

    @cached_property
    def loanwords(self) -> LoanwordTable:
        """The catalog's words by how they sound, for loanwords written in Katakana or Hangul.

        Made the first time a message has such a run (most catalogs never need it)."""
        return catalog_loanwords(self.skills, self.postings)


def _features(skill: Skill, analysed: SkillTerms, matches: SkillMatches, idf: Mapping[str, float],
              max_idf: float) -> SkillFeatures:
    name_terms = analysed.name_terms
    rarest = max((idf.get(t, max_idf) for t in name_terms), default=0.0)
    distinctive = 1.0 if len(name_terms) > 1 else min(1.0, rarest / (DISTINCTIVE_SHARE * max_idf))
    return SkillFeatures(normalize(skill.name), name_terms, distinctive, analysed.avoid, matches)


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


def _average_lengths(all_fields: Sequence[Sequence[FieldCounts]]) -> dict[str, float]:
    totals: Counter[str] = Counter()
    for fields in all_fields:
        for field in fields:
            totals[field.field] += field.length
    n = max(len(all_fields), 1)
    return {field: max(totals[field] / n, 1.0) for field in FIELD_WEIGHTS}


def _pseudo_tf(analysed: SkillTerms, referred: FieldCounts | None,
               avg: dict[str, float]) -> tuple[dict[str, float], Mapping[str, int]]:
    """BM25F: length-normalised, field-weighted term frequency per term, and (as bits) where each was found.

    A term's frequency is summed over its fields in field order, whichever way it is computed."""
    if referred is not None:
        return _plain_pseudo_tf((referred, *analysed.fields), avg)
    tfs: dict[str, float] = {}
    for field in analysed.fields:
        scale = _scale(field, avg)
        tfs.update(zip(field.fresh, map(scale.__mul__, field.fresh_counts)))
        for term, count in field.again:
            tfs[term] += scale * count
    return tfs, analysed.where


def _plain_pseudo_tf(fields: Sequence[FieldCounts], avg: dict[str, float]) -> tuple[dict[str, float], dict[str, int]]:
    """`_pseudo_tf` term by term: for a skill other skills send to, whose "referred" field comes
    first (so the cached split into fresh and repeated terms does not hold)."""
    tfs: dict[str, float] = {}
    where: dict[str, int] = {}
    for field in fields:
        scale, bit = _scale(field, avg), FIELD_BITS[field.field]
        for term, count in field.counts:
            tfs[term] = tfs.get(term, 0.0) + scale * count
            where[term] = where.get(term, 0) | bit
    return tfs, where


def _scale(field: FieldCounts, avg: dict[str, float]) -> float:
    b = _LENGTH_B[field.field]
    return FIELD_WEIGHTS[field.field] / (1 - b + b * field.length / avg[field.field])


def _by_length(vocab: Sequence[str], spread: float = 1.4) -> Mapping[int, tuple[str, ...]]:
    """For each word length, the vocabulary whose lengths allow a close fuzzy ratio."""
    longest = max((len(v) for v in vocab), default=0)
    return MappingProxyType(
        {n: tuple(v for v in vocab if n / spread <= len(v) <= n * spread) for n in range(1, int(longest * spread) + 1)}
    )


Postings = dict[str, PostingList]


class SkillMatches(Mapping[str, Match]):
    """One skill's term → `Match`, each made when asked for: a build would otherwise make one
    object per skill and term (100,000 at 400 skills), and routing only ever reads those of the
    few shortlisted skills. The scorer reads `weights` and `where` directly."""

    __slots__ = ("weights", "where")

    def __init__(self, weights: dict[str, float], where: Mapping[str, int]) -> None:
        self.weights: Mapping[str, float] = weights  # term → BM25F weight
        self.where = where  # term → field bits (`terms.FIELD_BITS`); shared with the skill's analysis

    def __getitem__(self, term: str) -> Match:
        return Match(self.weights[term], field_names(self.where[term]))

    def __iter__(self) -> Iterator[str]:
        return iter(self.weights)

    def __len__(self) -> int:
        return len(self.weights)

    def __contains__(self, term: object) -> bool:
        return term in self.weights

    def keys(self) -> KeysView[str]:
        return self.weights.keys()


def _weigh(per_skill: Sequence[tuple[dict[str, float], Mapping[str, int]]],
           idf: Mapping[str, float]) -> tuple[list[SkillMatches], Postings]:
    """Per skill, term → BM25F weight and fields, and the postings of every term. Light matches
    are dropped, and a common term keeps only the skills that hold it most strongly."""
    kept: list[dict[str, float]] = []
    holders: defaultdict[str, list[int]] = defaultdict(list)
    weights: defaultdict[str, list[float]] = defaultdict(list)
    k1_plus_1 = K1 + 1
    for i, (tfs, _) in enumerate(per_skill):
        strong = {t: w for t, tf in tfs.items() if (w := idf[t] * tf * k1_plus_1 / (tf + K1)) >= MIN_WEIGHT}
        for term, weight in strong.items():
            holders[term].append(i)
            weights[term].append(weight)
        kept.append(strong)
    cap = max(MIN_POSTINGS, int(len(per_skill) * MAX_POSTINGS_SHARE))
    postings = {term: _capped(term, skills, weights[term], cap, kept) if len(skills) > cap
                else _posting_list(skills, weights[term]) for term, skills in holders.items()}
    return [SkillMatches(strong, where) for strong, (_, where) in zip(kept, per_skill)], postings


def _capped(term: str, skills: list[int], weights: list[float], cap: int,
            kept: list[dict[str, float]]) -> PostingList:
    """The postings of a term held by more than `cap` skills: the strongest only (the others forget it)."""
    best = sorted(range(len(skills)), key=lambda k: (-weights[k], skills[k]))
    for k in best[cap:]:
        del kept[skills[k]][term]
    chosen = sorted(best[:cap])
    return _posting_list([skills[k] for k in chosen], [weights[k] for k in chosen])


def _posting_list(skills: list[int], weights: list[float]) -> PostingList:
    if len(skills) <= SHORT_POSTINGS:
        return tuple(skills), tuple(weights)
    return array("i", skills), array("d", weights)


def _document_frequencies(per_skill: Sequence[tuple[dict[str, float], Mapping[str, int]]]) -> Counter[str]:
    df: Counter[str] = Counter()
    for tfs, _ in per_skill:
        df.update(tfs.keys())
    return df


def _idf(df: Mapping[str, int], n: int) -> dict[str, float]:
    """BM25's idf of every term; computed once per distinct document frequency."""
    by_df = {d: math.log(1 + (n - d + 0.5) / (d + 0.5)) for d in set(df.values())}
    return {t: by_df[d] for t, d in df.items()}


def build_index(skills: Sequence[Skill]) -> RoutingIndex:
    """Index the model-invocable skills of a catalog (others are never routed).

    Each skill's terms come from `skill_terms` (analysed once per content); what is
    done here for every skill on every build is summing and weighing them.
    """
    routable = tuple(s for s in skills if s.model_invocable)
    names = _names(routable)
    referred = _referrals(routable, names)
    analysed = [skill_terms(s) for s in routable]
    referred_fields = [referred_counts(referred[i]) if i in referred else None for i in range(len(routable))]
    avg = _average_lengths([(r, *a.fields) if r else a.fields for a, r in zip(analysed, referred_fields)])
    per_skill = [_pseudo_tf(a, r, avg) for a, r in zip(analysed, referred_fields)]
    n = max(len(routable), MIN_DOCUMENTS)
    idf = _idf(_document_frequencies(per_skill), n)
    matches, postings = _weigh(per_skill, idf)
    vocab = sorted({t for a in analysed for t in a.typo_vocab})
    max_idf = math.log(1 + (n + 0.5) / 1.5)
    return RoutingIndex(
        skills=routable,
        features=tuple(_features(s, a, m, idf, max_idf) for s, a, m in zip(routable, analysed, matches)),
        postings=postings,
        idf=idf,
        by_name=names,
        name_heads=frozenset(name.split("-", 1)[0] for name in names if "-" in name),
        fuzzy_vocab=_by_length(vocab),
        name_order=_name_order(routable),
    )


def _name_order(skills: Sequence[Skill]) -> array[int]:
    order = array("i", bytes(4 * len(skills)))
    place, previous = -1, None
    for i in sorted(range(len(skills)), key=lambda i: (skills[i].name, skills[i].location)):
        key = (skills[i].name, skills[i].location)
        if key != previous:
            place, previous = place + 1, key
        order[i] = place
    return order

