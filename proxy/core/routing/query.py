"""From a user message to weighted query terms, ready to look up in the index.

What lives here: the length cap, direct terms, the multilingual lexicon bridge
(数据库 → database), loanwords written in Katakana or Hangul heard as the catalog's words
(쿠버네티스 → kubernetes, see `transliteration`), international words of languages without a
table spelt the English way (`dokumentace` → documentation, kept when the index holds the
spelling) and typo repair against the index vocabulary (rapidfuzz, accents folded).
Each term remembers how it was found, so the router can explain itself.

What it must not know: scores, thresholds or selection.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz import fuzz, process

from proxy.core.routing.cognates import english_spellings
from proxy.core.routing.lexicon import LEXICON, Lexicon, fold_accents, may_be_turkish
from proxy.core.routing.term_index import PostingList, RoutingIndex
from proxy.core.routing.tokens import (
    FOREIGN_STOPWORDS,
    STOPWORDS,
    SplitText,
    phrases,
    split_terms,
    split_text,
    stem,
    terms,
    word_phrases,
)
from proxy.core.routing.transliteration import LOANWORD_SCRIPTS, find_loanwords

HEAD_CHARS = 4000
TAIL_CHARS = 1000
LEXICON_WEIGHT = 0.9
CJK_LEXICON_WEIGHT = 1.2  # CJK text reaches English skills only through the lexicon
FUZZY_WEIGHT = 0.75
COGNATE_WEIGHT = 0.75
FUZZY_CUTOFF = 84.0
# A word of five letters or fewer one letter away from a catalog word is as often another word
# ("lunch" is not a typo of "launch") as a typo of it.
FUZZY_MIN_LETTERS = 6
PHRASE_WEIGHT = 0.6
MAX_FUZZY = 8  # typo repairs tried per message (the first unknown words)
MAX_COGNATES = 8  # English spellings tried per message (the first unknown words)
COGNATE_MIN_LETTERS = 5
TYPO_CACHE_SIZE = 4096  # typo repairs remembered per index (a repair only depends on the index)
LOANWORD_WEIGHT = CJK_LEXICON_WEIGHT  # a loanword heard as a catalog word weighs what a listed CJK word does
LOANWORD_CACHE_SIZE = 4096  # CJK runs whose loanwords are remembered per index
_UNSEEN = object()
_LEXICON_VIA = "lexicon:"


class QueryTerm(NamedTuple):
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


@lru_cache(maxsize=1 << 14)
def _expand(english: str, weight: float, key: str) -> tuple[QueryTerm, ...]:
    via = f"{_LEXICON_VIA}{key}"
    found = [QueryTerm(t, weight, via) for t in terms(english)]
    return tuple(found + [QueryTerm(p, weight * PHRASE_WEIGHT, via) for p in phrases(english)])


@lru_cache(maxsize=1)
def warm_lexicon() -> None:
    """Expand every entry of the default lexicon once (off the request path: the router calls
    this when it is built), so a message's first use of an entry costs a cache hit."""
    for key, english in LEXICON.words.items():
        _expand(english, LEXICON_WEIGHT, key)
    for key, english in LEXICON.cjk.items():
        _expand(english, CJK_LEXICON_WEIGHT, key)


# Per `turkish` flag: what the default lexicon gives each word met so far on its own (`()` for most
# words, and for function words), read with one dict lookup per word of a message.
_DEFAULT_WORD_TERMS: tuple[dict[str, tuple[QueryTerm, ...]], dict[str, tuple[QueryTerm, ...]]] = ({}, {})
WORD_TERMS_CACHE_SIZE = 1 << 16


def _default_word_terms(word: str, turkish: bool) -> tuple[QueryTerm, ...]:
    """The terms the default lexicon gives a word on its own (none for most words, and none for a
    function word: Indonesian dalam is not the Turkish dal, Polish też not the Turkish tez)."""
    english = None if word in FOREIGN_STOPWORDS else LEXICON.lookup_word(word, turkish)
    found = _expand(english, LEXICON_WEIGHT, word) if english else ()
    cache = _DEFAULT_WORD_TERMS[turkish]
    if len(cache) >= WORD_TERMS_CACHE_SIZE:
        cache.clear()
    cache[word] = found
    return found


def _lexicon_terms(split: SplitText, lexicon: Lexicon) -> list[QueryTerm]:
    out: list[QueryTerm] = []
    for run in split.cjk_runs:
        for key, english in lexicon.lookup_cjk(run):
            out.extend(_expand(english, CJK_LEXICON_WEIGHT, key))
    plain, heads, pairs, turkish_firsts = split.words, lexicon.phrase_words, lexicon.phrase_pairs, \
        lexicon.turkish_firsts
    turkish = may_be_turkish(plain)
    known = _DEFAULT_WORD_TERMS[turkish] if lexicon is LEXICON else None
    last = len(plain) - 1
    for i, word in enumerate(plain):
        # only a listed head followed by its phrase's second word (or a Turkish phrase's first word) starts a
        # phrase: the test `lookup_phrase` makes first, made here for the half of a message's words that are heads
        hit = lexicon.lookup_phrase(plain, i) if word in heads and i < last and (
            f"{word} {plain[i + 1]}" in pairs or fold_accents(word) in turkish_firsts) else None
        if hit is not None:
            out.extend(_expand(hit[1], LEXICON_WEIGHT, hit[0]))
            continue
        if known is not None:
            found = known.get(word)
            if found is None:
                found = _default_word_terms(word, turkish)
            if found:
                out.extend(found)
            continue
        if word in FOREIGN_STOPWORDS:  # a function word is never read as a listed word's form
            continue
        word_english = lexicon.lookup_word(word, turkish)
        if word_english:
            out.extend(_expand(word_english, LEXICON_WEIGHT, word))
    return out


def _cognate_terms(words: list[str], postings: Mapping[str, PostingList], read: set[str]) -> list[QueryTerm]:
    """For the first unknown words, those the lexicon did not read (`read`) first, the English spelling of
    each the index holds, if any."""
    out: list[QueryTerm] = []
    tried = 0
    for word in sorted(words, key=read.__contains__):
        if len(word) < COGNATE_MIN_LETTERS or word in STOPWORDS or word in FOREIGN_STOPWORDS or stem(word) in postings:
            continue
        tried += 1
        for spelling in english_spellings(fold_accents(word)):
            term = stem(spelling)
            if term in postings:
                out.append(QueryTerm(term, COGNATE_WEIGHT, f"cognate:{word}"))
                break
        if tried >= MAX_COGNATES:
            break
    return out


def _fuzzy_term(term: str, index: RoutingIndex) -> QueryTerm | None:
    folded = fold_accents(term)
    if len(folded) < FUZZY_MIN_LETTERS or not folded.isascii() or not folded.isalpha():
        return None
    cache = index.typo_cache
    seen = cache.get(term, _UNSEEN)  # one read: safe while another thread clears the cache
    if seen is _UNSEEN:
        hit = process.extractOne(folded, index.typo_candidates(folded), scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
        repaired = None if hit is None else str(hit[0])
        if len(cache) >= TYPO_CACHE_SIZE:
            cache.clear()
        cache[term] = repaired
    else:
        repaired = seen if isinstance(seen, str) else None
    return None if repaired is None else QueryTerm(repaired, FUZZY_WEIGHT, f"fuzzy:{term}")


def _loanword_terms(split: SplitText, index: RoutingIndex) -> list[QueryTerm]:
    """The catalog terms the Katakana and Hangul loanwords of a message sound like."""
    out: list[QueryTerm] = []
    cache = index.loanword_cache
    for run in split.cjk_runs:
        found = cache.get(run)
        if found is None:
            if not LOANWORD_SCRIPTS.search(run):
                continue
            found = tuple(find_loanwords(run, index.loanwords))
            if len(cache) >= LOANWORD_CACHE_SIZE:
                cache.clear()
            cache[run] = found
        out.extend(QueryTerm(term, LOANWORD_WEIGHT, f"translit:{spelling}") for spelling, term in found)
    return out


def query_terms(text: str, index: RoutingIndex, lexicon: Lexicon = LEXICON) -> tuple[QueryTerm, ...]:
    """Every distinct term of the (capped) message, direct ones first."""
    return split_query_terms(split_text(cap_text(text)), index, lexicon)


def split_query_terms(split: SplitText, index: RoutingIndex, lexicon: Lexicon = LEXICON) -> tuple[QueryTerm, ...]:
    """`query_terms` of a message already capped and split (`split_text`).

    A written term keeps its first occurrence, and so does a phrase (a phrase has a space, a
    written term none, so neither replaces the other); a lexicon term replaces a lighter one,
    and a loanword term a lighter one again (so a listed CJK word keeps its lexicon reason).
    """
    found: dict[str, QueryTerm] = {}
    for term in split_terms(split):
        if term not in found:
            found[term] = QueryTerm(term, 1.0)
    for phrase in word_phrases(split.words):
        if phrase not in found:
            found[phrase] = QueryTerm(phrase, PHRASE_WEIGHT, "phrase")
    vias: set[str] = set()
    for lexicon_term in _lexicon_terms(split, lexicon):
        _add(found, lexicon_term)
        vias.add(lexicon_term.via)
    # The words the lexicon read are tried last for international spellings and typos, so a message full
    # of them (a Spanish one) still spends those budgets on the words nothing else read (transiciones).
    read = {word for via in vias for word in via[len(_LEXICON_VIA):].split(" ")}
    if split.cjk_runs:
        for loanword in _loanword_terms(split, index):
            _add(found, loanword)
    postings = index.postings
    for cognate in _cognate_terms(split.words, postings, read):
        _add(found, cognate)
    read_terms = {stem(word) for word in read}
    unknown = sorted((t.term for t in found.values() if not t.via and t.term not in postings),
                     key=read_terms.__contains__)
    for unknown_term in unknown[:MAX_FUZZY]:
        repaired = _fuzzy_term(unknown_term, index)
        if repaired is not None:
            _add(found, repaired)
    return tuple(found.values())
