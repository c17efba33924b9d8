"""Two kinds of word met in one sentence, in any order and at any distance.

A person addressed and a verb of opinion ("а ты что больше любишь, вим или емакс?"), a close person
and a verb of telling ("mamie jak to wytłumaczyć?"): the phrase rules of `opinion_asks` and
`personal_asks` list word orders, and each language has orders no list holds. A pair of word sets
per language reads the two words alone, so both are of the same language.

Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class WordPairs(NamedTuple):
    """Pairs of word sets, one pair a language."""

    pairs: tuple[tuple[frozenset[str], frozenset[str]], ...]
    firsts: frozenset[str]  # every first set's words: a sentence that holds none holds no pair (one set test)


def word_pairs(table: Iterable[tuple[str, str]]) -> WordPairs:
    """Pairs from (first words, second words), each a space-separated string."""
    pairs = tuple((frozenset(first.split()), frozenset(second.split())) for first, second in table)
    return WordPairs(pairs, frozenset().union(*(first for first, _ in pairs)))


def pair_in(pairs: WordPairs, words: frozenset[str]) -> tuple[str, str] | None:
    """(first word, second word) of the first pair whose two sets `words` both meet (of several words in
    a set, the alphabetically first), or None."""
    if pairs.firsts.isdisjoint(words):
        return None
    for firsts, seconds in pairs.pairs:
        if not firsts.isdisjoint(words) and not seconds.isdisjoint(words):
            return min(firsts & words), min(seconds & words)
    return None
