"""A curated bridge from other languages (and English shorthand) to English terms.

Skills are described in English, users write in their own words. The tables in
this package map general software, science and business vocabulary (数据库 →
database, Abfrage → query, k8s → kubernetes) to English words, which the router
then tokenises like any other text. Data only: no skill names, no eval text.

The tables ship as package data, one text file per language in `data/` (`en.txt`, `de.txt`,
...), one mapping a line: `key, key2 = english words`; `#` starts a comment line. They are
read once, when this module is imported.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType

from proxy.core.routing.tokens import CJK_RUN, normalize

# Inflection endings tried, longest first, when a Latin-script word is not listed (German,
# Spanish, French and English plurals, participles and conjugated verb forms).
_ENDINGS = tuple(sorted(set(
    "ungen ierten ierte iert ieren ern en es er e n s x t te ten st "
    "aciones iciones ciones iones ación ción ando iendo ados adas ado ada amos emos imos aron ieron o a as os an "
    "ations ation tion ons ez ent ant ais ait ée ées és é ir re".split()
), key=lambda e: (-len(e), e)))
# Infinitive endings: a listed verb (`optimizar`, `optimiser`, `optimieren`) also answers
# for its other forms (`optimizamos`, `optimisé`, `optimiert`) through its stem.
_INFINITIVES = ("ieren", "ar", "er", "ir", "re", "en")
_STEM_MIN = 4
# Russian inflection endings (noun and adjective cases, verb persons, past tenses, infinitives and
# imperatives), tried when a Cyrillic word is not listed: every listed Russian word is also stored by
# its stem (the word less its longest ending), so `базы`, `оптимизации`, `исправьте` find `база`,
# `оптимизация`, `исправь`.
RUSSIAN_ENDINGS = tuple(sorted(set(
    "а я о е ё ы и у ю ь й "
    "ом ем ём ой ей ою ею ам ям ах ях ами ями ов ев ёв ий ый ая яя ое ее ые ие ую юю "
    "ого его ому ему ым им ых их ыми ими ия ии ию ией ием иям иями иях ья ье ьи ью ьё ьев ьям ьях "
    "ть ся сь ться тся ет ёт ют ут ит ат ят ешь ишь ете ите йте ьте ал ала ало али ил ила ило или "
    "ел ела ело ели ул ула ули ать ять ить еть уть ти "
    "ение ения ению ением ении ений ениям ениями ениях ание ания анию анием ании аний аниям аниях "
    "ость ости остью остей ностью".split()
), key=lambda e: (-len(e), e)))
_INFLECTED_LANGUAGES = frozenset({"ru"})  # languages whose every listed word answers through its stem
# The data files, in the order their tables are merged (a key listed twice gets both English
# texts, in this order).
LANGUAGES = ("en", "es", "de", "fr", "ja", "zh", "ko", "ru")
# Languages whose listed verbs also answer for their conjugated forms through their stems.
_STEMMED_LANGUAGES = frozenset({"es", "de", "fr"})


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
    phrase_words: Mapping[str, int] = field(default_factory=dict)  # first word of a listed phrase → most words it has
    stems: Mapping[str, str] = field(default_factory=dict)  # stems of es/fr/de verbs and ru words, accents folded

    def lookup_phrase(self, words: Sequence[str], start: int) -> tuple[str, str] | None:
        """(key, english) for the longest listed phrase of 2+ words starting at `start`."""
        longest = self.phrase_words.get(words[start], 0)
        for size in range(min(longest, len(words) - start), 1, -1):
            key = " ".join(words[start : start + size])
            english = self.words.get(key)
            if english is not None:
                return key, english
        return None

    def lookup_word(self, word: str) -> str | None:
        """The English for a Latin or Cyrillic word: as written, without accents, as a listed stem,
        then without an inflection ending (against listed words, then against listed stems)."""
        hit = self.words.get(word)
        if hit is not None:
            return hit
        folded = fold_accents(word)
        hit = self.words.get(folded)
        if hit is not None or len(folded) < 5:
            return hit
        hit = self.stems.get(folded)  # a form with no ending (таблиц, of таблица)
        if hit is not None:
            return hit
        for table in (self.words, self.stems):
            for size in range(min(_LONGEST_ENDING, len(folded) - _STEM_MIN), 0, -1):
                if folded[-size:] in _FOLDED_ENDINGS:
                    hit = table.get(folded[:-size])
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


def fold_accents(word: str) -> str:
    """`migración` → `migracion`, `déploiement` → `deploiement` (users often drop accents)."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


_FOLDED_ENDINGS = frozenset(fold_accents(e) for e in _ENDINGS + RUSSIAN_ENDINGS)
_FOLDED_RUSSIAN_ENDINGS = tuple(sorted({fold_accents(e) for e in RUSSIAN_ENDINGS}, key=lambda e: (-len(e), e)))
_LONGEST_ENDING = max(len(e) for e in _FOLDED_ENDINGS)


def _verb_stems(table: Mapping[str, str]) -> dict[str, str]:
    stems: dict[str, str] = {}
    for key, english in table.items():
        if " " in key:
            continue
        for ending in _INFINITIVES:
            if key.endswith(ending) and len(key) - len(ending) >= _STEM_MIN + 1:
                stems.setdefault(key[: -len(ending)], english)
                break
    return stems


def _word_stems(table: Mapping[str, str]) -> dict[str, str]:
    """Each listed word (accents folded) less its longest Russian ending, when 4+ letters remain."""
    stems: dict[str, str] = {}
    for key, english in table.items():
        if " " in key:
            continue
        for ending in _FOLDED_RUSSIAN_ENDINGS:
            if key.endswith(ending) and len(key) - len(ending) >= _STEM_MIN:
                stems.setdefault(key[: -len(ending)], english)
                break
    return stems


def read_entries(language: str) -> str:
    """The text of one language's data file, shipped inside the package."""
    return (resources.files(__name__) / "data" / f"{language}.txt").read_text(encoding="utf-8")


def build_lexicon() -> Lexicon:
    words: dict[str, str] = {}
    cjk: dict[str, str] = {}
    stems: dict[str, str] = {}
    for language in LANGUAGES:
        table = parse_entries(read_entries(language))
        for key, english in table.items():
            target = cjk if CJK_RUN.fullmatch(key) else words
            target[key] = f"{target[key]} {english}" if key in target else english
            folded = fold_accents(key)
            if target is words and folded != key:
                words.setdefault(folded, english)
        if language in _STEMMED_LANGUAGES:
            for stem, english in _verb_stems({fold_accents(k): e for k, e in table.items()}).items():
                stems.setdefault(stem, english)
        if language in _INFLECTED_LANGUAGES:
            for stem, english in _word_stems({fold_accents(k): e for k, e in table.items()}).items():
                stems.setdefault(stem, english)
    longest = max((len(k) for k in cjk), default=1)
    heads: dict[str, int] = {}
    for key in words:
        parts = key.split(" ")
        if len(parts) > 1:
            heads[parts[0]] = max(heads.get(parts[0], 0), len(parts))
    return Lexicon(MappingProxyType(words), MappingProxyType(cjk), longest, MappingProxyType(heads),
                   MappingProxyType(stems))


LEXICON = build_lexicon()
