"""Patterns searched only in a text that holds one of their trigger words.

A rule of the router that reads many phrases in many languages ("was hältst du von", "o que vc
acha", "sence", "你觉得") would cost a scan of one long alternation per message. Instead each
pattern is listed with the words it cannot match without, and searched only in a text that holds
one of them: most messages cost one set intersection. A trigger written in CJK script (Chinese,
Japanese, Korean) is tested as a substring, since those texts are not split into words.

Pure and deterministic.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from proxy.core.routing.tokens import CJK_RUN, holds_cjk, plain_words

# (trigger words, pattern): the pattern is searched when the text holds any of the words.
PatternTable = tuple[tuple[tuple[str, ...], str], ...]


class TriggeredPatterns(NamedTuple):
    """Patterns by the trigger they need: a word of the text, or a CJK string in it."""

    by_word: dict[str, re.Pattern[str]]
    by_cjk: tuple[tuple[str, re.Pattern[str]], ...]
    words: frozenset[str]  # by_word's keys, for a set operation that walks the smaller side


def triggered(table: PatternTable) -> TriggeredPatterns:
    """Compile a table: one pattern per trigger, the alternation of every pattern it triggers."""
    found: dict[str, list[str]] = {}
    for triggers, pattern in table:
        for trigger in triggers:
            if not CJK_RUN.search(trigger) and plain_words(trigger) != {trigger}:  # "qu'est-ce" is no word:
                raise ValueError(f"trigger {trigger!r} is not one word of a text")  # it would never trigger
            found.setdefault(trigger, []).append(pattern)
    compiled = {trigger: re.compile("|".join(patterns)) for trigger, patterns in found.items()}
    by_word = {t: p for t, p in compiled.items() if not CJK_RUN.search(t)}
    return TriggeredPatterns(by_word, tuple((t, p) for t, p in compiled.items() if CJK_RUN.search(t)),
                             frozenset(by_word))


def first_match(patterns: TriggeredPatterns, text: str, words: frozenset[str] | None = None) -> re.Match[str] | None:
    """The earliest match in `text` (normalised) of the patterns its words or CJK strings trigger."""
    by_word = patterns.by_word
    found = [match for word in (plain_words(text) if words is None else words) & patterns.words
             if (match := by_word[word].search(text)) is not None]
    if patterns.by_cjk and holds_cjk(text):
        found += [match for trigger, pattern in patterns.by_cjk
                  if trigger in text and (match := pattern.search(text)) is not None]
    return min(found, key=lambda m: (m.start(), -m.end())) if found else None


def holds_a_trigger(patterns: TriggeredPatterns, text: str) -> bool:
    """`text` holds a word or CJK string that triggers one of the patterns (a set test, mostly)."""
    if not plain_words(text).isdisjoint(patterns.words):
        return True
    return bool(patterns.by_cjk) and holds_cjk(text) and any(
        trigger in text for trigger, _ in patterns.by_cjk)
