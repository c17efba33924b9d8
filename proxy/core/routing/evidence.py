"""The evidence behind a route: raw BM25F sums, the shortlist, and why each skill matched.

What lives here: the hot loop that sums the postings of a message's terms per
skill, the shortlist of skills worth scoring in full, exact name mentions, and
per shortlisted skill the matched terms (for the breadth rule and the readable
reasons).

What it must not know: thresholds, confidences or selection.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from proxy.core.routing.lexicon import LEXICON
from proxy.core.routing.query import QueryTerm
from proxy.core.routing.term_index import RoutingIndex, SkillMatches
from proxy.core.routing.terms import FIRST_FIELD
from proxy.core.routing.tokens import SplitText

_FIELD_LABELS = {
    "name": "lexical:name_token",
    "folder": "path:directory_token",
    "tags": "tag",
    "description": "frontmatter:description_token",
    "referred": "catalog:referred_token",
    "headings": "body:heading_token",
    "opening": "body:opening_token",
    "use_when": "body:when_to_use_token",
    "body": "body:text_token",
}


class Evidence(NamedTuple):
    """What one skill matched: its exact raw sum, how many distinct message words, which terms."""

    raw: float
    breadth: int
    terms: tuple[str, ...]  # matched query terms, in message order
    weights: tuple[float, ...]  # each term's query weight times its weight for the skill (summed: `raw`)

    def reasons(self, query: Query, matches: SkillMatches) -> list[str]:
        """Readable reasons, strongest first (ties in message order)."""
        terms, via, where, scene = self.terms, query.via, matches.where, query.scene
        if len(terms) > 1:  # stable, like a sort on -w
            strongest: Sequence[int] = sorted(range(len(terms)), key=self.weights.__getitem__, reverse=True)
        else:
            strongest = range(len(terms))
        return list(dict.fromkeys([reason(terms[k], via[terms[k]], FIRST_FIELD[where[terms[k]]], terms[k] in scene)
                                   for k in strongest]))


class Query(NamedTuple):
    """A message's terms, keyed for the per-skill pass."""

    weight: dict[str, float]  # in message order
    via: dict[str, str]  # how each term was found
    source: dict[str, str | None]  # the word of the message each term stands for
    scene: frozenset[str] = frozenset()  # terms met only in the scene the message sets, not in what it asks

    @classmethod
    def of(cls, terms: Sequence[QueryTerm], scene: frozenset[str] = frozenset()) -> Query:
        by_term = {t.term: t for t in terms}
        return cls({t: q.weight for t, q in by_term.items()}, {t: q.via for t, q in by_term.items()},
                   {t: _source(q) for t, q in by_term.items()}, scene)


@lru_cache(maxsize=1 << 14)
def reason(term: str, via: str, field: str, scene: bool = False) -> str:
    """`frontmatter:description_token=query (lexicon:abfrage)` and the like; ` [scene]` when the
    term was met only in the scene the message sets, not in what it asks."""
    label = f"{_FIELD_LABELS[field]}:{term}" if field == "tags" else f"{_FIELD_LABELS[field]}={term}"
    if via.startswith("fuzzy:"):
        label = f"fuzzy:{via[6:]}~{term} ({label})"
    elif via:
        label = f"{label} ({via})"
    return f"{label} [scene]" if scene else label


def raw_scores(terms: Sequence[QueryTerm], index: RoutingIndex, longest: int) -> dict[int, float]:
    """skill → summed evidence, from the postings of the query terms only.

    Terms held by more than `longest` skills are left out: they weigh little and cost most.
    This sum only picks the shortlist; `evidence` then counts every term for those skills.
    """
    postings = index.postings
    acc: dict[int, float] = {}
    get = acc.get
    for term in terms:
        found = postings.get(term.term)
        if found is None or len(found[0]) > longest:
            continue
        weight = term.weight
        if weight == 1.0:  # a written term (most are): 1.0 * w is w
            for skill, posting_weight in zip(*found):
                acc[skill] = get(skill, 0.0) + posting_weight
        else:
            for skill, posting_weight in zip(*found):
                acc[skill] = get(skill, 0.0) + weight * posting_weight
    return acc


def shortlist(raw: dict[int, float], bonus: dict[int, float], size: int) -> list[int]:
    """The skills worth scoring in full: the best raw evidence, plus every named skill."""
    # heapq.nlargest's own equivalent, ties in order: sorting in C beats its heap in Python here
    best = sorted(raw, key=raw.__getitem__, reverse=True)[:size] if len(raw) > size else list(raw)
    return best + [i for i in bonus if i not in best]


def name_mentions(split: SplitText, index: RoutingIndex, bonus: float) -> dict[int, float]:
    """skill → exact-name bonus, for names written in the (split) message (`gh-fix-ci`, `gh fix ci`)."""
    plain = split.words
    written = set(split.compounds)
    heads = index.name_heads
    for i, word in enumerate(plain):
        if word in heads:
            written.update("-".join(plain[i : i + size]) for size in range(2, min(5, len(plain) - i + 1)))
    found: dict[int, float] = {}
    for name in written:
        for i in index.by_name.get(name, ()):
            found[i] = bonus * index.features[i].distinctive
    return found


def _source(term: QueryTerm) -> str | None:
    """The word of the message a term stands for (phrases stand for none of their own)."""
    if term.via == "phrase":
        return None
    return term.via.split(":", 1)[1] if ":" in term.via else term.term


def _breadth(words: set[str]) -> int:
    """How many words of the message `words` stand for: a phrase another language's table lists is
    the words it is written with ("rencana pemasaran" is two, as "marketing plan" is written), so a
    language that names a thing with a phrase is not weaker for it. An English table's phrase (a
    shorthand or an idiom, "soc 2") stays one word, as before."""
    english = LEXICON.english_only
    return len({part for word in words
                for part in (word.split(" ") if " " in word and word not in english else (word,))})


def evidence(chosen: Sequence[int], query: Query, index: RoutingIndex) -> Iterator[tuple[int, Evidence]]:
    """(skill, what it matched) for each shortlisted skill in turn, every term counted."""
    weight, source, features = query.weight, query.source, index.features
    for i in chosen:
        matches = features[i].matches
        weights = matches.weights
        common = [t for t in weight if t in weights]  # in message order
        products = [weight[t] * weights[t] for t in common]
        words = {word for t in common if (word := source[t]) is not None}
        breadth = _breadth(words) if any(" " in word for word in words) else len(words)
        yield i, Evidence(sum(products), breadth, tuple(common), tuple(products))
