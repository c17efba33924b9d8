"""A curated bridge from other languages (and English shorthand) to English terms.

Skills are described in English, users write in their own words. The tables in
this package map general software, science and business vocabulary (数据库 →
database, Abfrage → query, k8s → kubernetes) to English words, which the router
then tokenises like any other text. Data only: no skill names, no eval text.

Each data module holds `ENTRIES`, one mapping a line: `key, key2 = english words`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from proxy.core.lexicon import de, en, es, fr, ja, zh
from proxy.core.text_tokens import CJK_RUN, normalize

# Inflection endings tried, longest first, when a Latin-script word is not listed.
_ENDINGS = ("ungen", "ciones", "iones", "ción", "tion", "ern", "en", "es", "er", "e", "n", "s", "x")


def parse_entries(text: str) -> dict[str, str]:
    """`a, b = english` lines → {a: english, b: english}; later lines add words."""
    table: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        keys, english = line.split("=", 1)
        for key in (normalize(k.strip()) for k in keys.split(",")):
            if key:
                table[key] = f"{table[key]} {english.strip()}" if key in table else english.strip()
    return table


@dataclass(frozen=True)
class Lexicon:
    words: Mapping[str, str]  # whole Latin-script words and short phrases
    cjk: Mapping[str, str]  # substrings of CJK runs
    max_cjk: int

    def lookup_word(self, word: str) -> str | None:
        """The English for a Latin-script word, trying a few inflection endings."""
        hit = self.words.get(word)
        if hit is not None or len(word) < 5:
            return hit
        for ending in _ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= 4:
                hit = self.words.get(word[: -len(ending)])
                if hit is not None:
                    return hit
        return None

    def lookup_cjk(self, run: str) -> list[tuple[str, str]]:
        """(key, english) for the longest listed substrings of a CJK run."""
        found: list[tuple[str, str]] = []
        i = 0
        while i < len(run):
            step = 1
            for size in range(min(self.max_cjk, len(run) - i), 0, -1):
                key = run[i : i + size]
                if key in self.cjk:
                    found.append((key, self.cjk[key]))
                    step = size
                    break
            i += step
        return found


def build_lexicon() -> Lexicon:
    words: dict[str, str] = {}
    cjk: dict[str, str] = {}
    for module in (en, es, de, fr, ja, zh):
        for key, english in parse_entries(module.ENTRIES).items():
            target = cjk if CJK_RUN.fullmatch(key) else words
            target[key] = f"{target[key]} {english}" if key in target else english
    longest = max((len(k) for k in cjk), default=1)
    return Lexicon(MappingProxyType(words), MappingProxyType(cjk), longest)


LEXICON = build_lexicon()
