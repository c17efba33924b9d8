"""From a user message to weighted query terms, ready to look up in the index.

What lives here: the length cap, direct terms, the multilingual lexicon bridge
(数据库 → database) and typo repair against the index vocabulary (rapidfuzz).
Each term remembers how it was found, so the router can explain itself.

What it must not know: scores, thresholds or selection.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, process

from proxy.core.lexicon import LEXICON, Lexicon
from proxy.core.routing_index import RoutingIndex
from proxy.core.text_tokens import CJK_RUN, normalize, phrases, terms, tokens, words

HEAD_CHARS = 4000
TAIL_CHARS = 1000
LEXICON_WEIGHT = 0.9
FUZZY_WEIGHT = 0.75
FUZZY_CUTOFF = 84.0
PHRASE_WEIGHT = 0.6
MAX_FUZZY = 8  # typo repairs tried per message (the first unknown words)
_MAX_PHRASE = 3


@dataclass(frozen=True)
class QueryTerm:
    """A term to look up; `via` says how it was found (`""` = written as is)."""

    term: str
    weight: float
    via: str = ""


def cap_text(text: str) -> str:
    """Only the first 4,000 and the last 1,000 characters of a long message count."""
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    return f"{text[:HEAD_CHARS]}\n{text[-TAIL_CHARS:]}"


def _add(found: dict[str, QueryTerm], term: QueryTerm) -> None:
    current = found.get(term.term)
    if current is None or term.weight > current.weight:
        found[term.term] = term


def _expand(english: str, weight: float, key: str) -> list[QueryTerm]:
    via = f"lexicon:{key}"
    found = [QueryTerm(t, weight, via) for t in terms(english)]
    return found + [QueryTerm(p, weight * PHRASE_WEIGHT, via) for p in phrases(english)]


def _lexicon_terms(text: str, lexicon: Lexicon) -> list[QueryTerm]:
    out: list[QueryTerm] = []
    for run in CJK_RUN.findall(normalize(text)):
        for key, english in lexicon.lookup_cjk(run):
            out.extend(_expand(english, 1.0, key))
    plain = words(text)
    for i in range(len(plain)):
        for size in range(min(_MAX_PHRASE, len(plain) - i), 0, -1):
            key = " ".join(plain[i : i + size])
            english = lexicon.lookup_word(key) if size == 1 else lexicon.words.get(key)
            if english:
                out.extend(_expand(english, LEXICON_WEIGHT, key))
                break
    return out


def _fuzzy_term(term: str, index: RoutingIndex) -> QueryTerm | None:
    if len(term) < 5 or not term.isascii() or not term.isalpha():
        return None
    hit = process.extractOne(term, index.typo_candidates(term), scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
    if hit is None:
        return None
    return QueryTerm(hit[0], FUZZY_WEIGHT, f"fuzzy:{term}")


def query_terms(text: str, index: RoutingIndex, lexicon: Lexicon = LEXICON) -> tuple[QueryTerm, ...]:
    """Every distinct term of the (capped) message, direct ones first."""
    text = cap_text(text)
    found: dict[str, QueryTerm] = {}
    for token in tokens(text):
        _add(found, QueryTerm(token.term, 1.0))
    for phrase in phrases(text):
        _add(found, QueryTerm(phrase, PHRASE_WEIGHT, "phrase"))
    for term in _lexicon_terms(text, lexicon):
        _add(found, term)
    unknown = [t.term for t in found.values() if not t.via and t.term not in index.postings]
    for term in unknown[:MAX_FUZZY]:
        repaired = _fuzzy_term(term, index)
        if repaired is not None:
            _add(found, repaired)
    return tuple(found.values())
