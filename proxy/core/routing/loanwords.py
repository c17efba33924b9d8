"""The catalog side of loanwords: which of a catalog's words a loanword may stand for.

What lives here: the English words of each skill's name, folder, tags,
description and headings (kept per skill, like its routing terms), the
catalog's vocabulary of those whose terms are indexed, and its table by sound
(`transliteration.loanword_table`), for Katakana and Hangul loanwords
(쿠버네티스, コンテナ) to be heard as the catalog's words.

What it must not know: queries, weights or scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from proxy.core.catalog.skill import Skill
from proxy.core.routing.tokens import stem, words
from proxy.core.routing.transliteration import LoanwordTable, loanword_table

CACHED_SKILLS = 4096  # as many as `terms` keeps analyses of
MIN_WORD = 4  # letters of a word a loanword may stand for (shorter ones need three consonants rarely)

Postings = Mapping[str, tuple[Sequence[int], Sequence[float]]]


@lru_cache(maxsize=CACHED_SKILLS)
def loanword_words(skill: Skill) -> frozenset[str]:
    """The English words of MIN_WORD+ letters of a skill's name, folder, tags, description and
    headings: the words a loanword may stand for (kept by the skill's value)."""
    found: set[str] = set()
    for text in (skill.name, skill.folder_name, *skill.tags, skill.routing_description, *skill.headings):
        found.update(w for w in words(text) if len(w) >= MIN_WORD and w.isascii() and w.isalpha())
    return frozenset(found)


def loanword_vocabulary(skills: Sequence[Skill], postings: Postings) -> dict[str, str]:
    """word → term of the skills' `loanword_words` whose terms are indexed, a plural also as
    its singular (`dashboards`, `dashboard`); the terms most skills hold first, then by word."""
    found: dict[str, str] = {}
    for word in frozenset().union(*map(loanword_words, skills)):
        term = stem(word)
        if term in postings:
            found[word] = term
            if word.endswith("s") and not word.endswith(("ss", "us", "is")):
                found.setdefault(word[:-1], term)
    return dict(sorted(found.items(), key=lambda item: (-len(postings[item[1]][0]), item[0])))


def catalog_loanwords(skills: Sequence[Skill], postings: Postings) -> LoanwordTable:
    """The catalog's words by how they sound (see `loanword_vocabulary`)."""
    return loanword_table(loanword_vocabulary(skills, postings))
