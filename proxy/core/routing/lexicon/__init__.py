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
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import NamedTuple, Protocol

from proxy.core.routing.tokens import CJK_RUN, FOREIGN_STOPWORDS, STOPWORDS, normalize, words


# How the words of an inflecting Latin-script language find their listed form when they are not
# listed themselves, one entry a language: the word without one of its language's inflection
# `endings` (plurals, cases, participles, conjugated verbs), tried longest first, is looked up
# among that language's listed words, and among their stems: a listed word without one of its
# `citation` endings (infinitives, and noun endings that change in the plural or a case), so
# `optimizar` answers for `optimizamos` (stem `optimiz`) and `migrazione` for `migrazioni`.
# A language's endings only reach its own words, so an English word (`important`) does not meet
# the stem of another language's word (`importar`).
class Inflection(NamedTuple):
    endings: tuple[str, ...]
    citation: tuple[str, ...] = ()


_INFLECTIONS: dict[str, Inflection] = {
    "en": Inflection(("s", "es")),
    "de": Inflection(
        tuple("ungen ierten ierte iert ieren ern en es er e n s te ten".split()),
        ("ieren", "en"),
    ),
    "es": Inflection(
        tuple((
            "aciones iciones ciones iones ación ción ando iendo ados adas ado ada amos emos imos aron "
            "ieron o a as os es an en"
        ).split()),
        ("ar", "er", "ir"),
    ),
    "fr": Inflection(
        tuple("ations ation tion ons ez ent ant ais ait ée ées és é ir re er s x e".split()),
        ("er", "ir", "re"),
    ),
    "pt": Inflection(
        tuple((
            "ções ção ões ão ando endo indo ados adas ado ada idos idas ido ida amos emos imos aram "
            "eram iram ou ei am em ns is s es a o e"
        ).split()),
        ("ção", "ão", "ar", "er", "ir", "m", "l"),
    ),
    "it": Inflection(
        tuple("zioni zione iamo ando endo ato ata ati uto uta uti ito ita iti ano ono i e a o".split()),
        ("are", "ere", "ire", "e", "o", "a"),
    ),
    "pl": Inflection(
        tuple((
            "owania owanie owaniu owane owany owała ował ujemy ują uje uję ami ach ów om ego ej ych ymi "
            "ie y i ę ą u a o e em"
        ).split()),
        ("ować", "ać", "ić", "yć", "eć", "a", "o", "e", "y", "i"),  # -y, -i: adjectives (badawczy → badawczego)
    ),
    # Russian: noun and adjective cases, verb persons, past tenses, infinitives and imperatives. Every
    # listed word answers through its stem (the word less its longest ending), so `базы`,
    # `оптимизации`, `исправьте` find `база`, `оптимизация`, `исправь`.
    "ru": Inflection(*(2 * (tuple(sorted(set((
        "а я о е ё ы и у ю ь й "
        "ом ем ём ой ей ою ею ам ям ах ях ами ями ов ев ёв ий ый ая яя ое ее ые ие ую юю "
        "ого его ому ему ым им ых их ыми ими ия ии ию ией ием иям иями иях ья ье ьи ью ьё ьев ьям ьях "
        "ть ся сь ться тся ет ёт ют ут ит ат ят ешь ишь ете ите йте ьте ал ала ало али ил ила ило или "
        "ел ела ело ели ул ула ули ать ять ить еть уть ти "
        "ение ения ению ением ении ений ениям ениями ениях ание ания анию анием ании аний аниям аниях "
        "ость ости остью остей ностью"
    ).split()), key=lambda e: (-len(e), e))),))),
}
# Languages whose every listed word answers through its stem, so a form with no ending at all finds
# it too (`таблиц`, the genitive plural of `таблица`; Polish `metryk` of `metryka`).
_BARE_STEM_LANGUAGES = frozenset({"ru", "pl"})
_STEM_MIN = 4
# The data files, in the order their tables are merged (a key listed twice gets both English
# texts, in this order).
LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "pl", "tr", "id", "vi", "ru", "ja", "zh", "ko")

# Turkish stacks suffixes on a word (`veri tabanı` → `veritabanlarından`: plural, possessive,
# ablative), so its words are stripped suffix by suffix, up to _TURKISH_DEPTH of them, against the
# Turkish table alone. Spelt folded (ı → i, ü → u, ö → o, ş → s, ç → c, ğ → g), as words are
# compared. A stem may have softened its last consonant before a vowel (kaynak → kaynağı).
_TURKISH_SUFFIXES = frozenset((
    "ler lar i u yi yu si su ni nu in un nin nun e a ye ya ne na de da te ta nde nda den dan ten tan "
    "nden ndan le la yle yla ile ki im um imiz umuz iniz unuz m n miz muz niz nuz li lu siz suz "
    "mak mek ma me yor iyor uyor ir ur er ar di du ti tu mis mus acak ecek yacak yecek abilir ebilir "
    "yabilir yebilir yin yiniz sin sun iz uz lim dir dur tir tur "
    # modal, person and participle endings a request uses (düzeltmeliyim, seçebilir miyiz,
    # çalışan, gönderilecek, yapılmış), the passive, and nouns made of verbs and nouns
    "meli mali yim yum yiz yuz il ul n en an yen yan dik duk tik tuk digi dugu tigi tugu "
    "arak erek yarak yerek ip up yip yup ince unca mesi masi lik luk ca ce sel sal ebil abil yebil yabil r"
).split())
_TURKISH_SOFTENED = {"g": "k", "b": "p", "d": "t"}
# A verb stem ending in a vowel drops it before the present tense: hazırla-mak → hazırlıyor.
_TURKISH_PRESENT = ("iyor", "uyor")
_TURKISH_DEPTH = 4
_TURKISH_STEM_MIN = 3
_TURKISH_INFINITIVES = ("mak", "mek")
# A Turkish suffix chain fits many words of other languages (Spanish dónde is don+de, frozen;
# deporte is depo+r+te, a repository; French donné the same), so the Turkish table is searched by
# suffixes only in a message that may be Turkish: one with a Turkish letter or function word, or with
# too few function words of other languages to tell (a bare list of terms, a language with no table).
_TURKISH_LETTERS = frozenset("ığş")
_TURKISH_FUNCTION_WORDS = frozenset("""
ve ile bir için icin gibi çok cok daha ama veya nasıl nasil neden niye hangi bana beni benim sana senin bizim
bize olarak olan yok var lütfen lutfen şey sey tüm tum bütün butun kadar sonra önce şimdi simdi artık artik
değil degil gerek lazım lazim istiyorum mı mu mü misin musun miyim muyum mısın
""".split())
# Indonesian spells the international words it shares with Turkish alike (koordinat, sertifikasi,
# format) and adds suffixes too (koordinatnya), so its function words do not rule Turkish out.
_INDONESIAN_FUNCTION_WORDS = frozenset("""
yang dan dari untuk dengan pada dalam ini itu adalah akan sudah belum tidak bukan ada bisa dapat saya aku
kami kita kamu anda dia mereka tolong mohon agar supaya karena jika kalau atau juga saja hanya lebih sangat
bagaimana apakah kenapa mengapa sebuah seorang oleh sebagai bahwa tersebut lagi ingin mau perlu harus nya dong sih
""".split())
_OTHER_FUNCTION_WORDS = (STOPWORDS | FOREIGN_STOPWORDS) - _TURKISH_FUNCTION_WORDS - _INDONESIAN_FUNCTION_WORDS
_OTHER_LANGUAGE_MIN = 2  # distinct function words of other languages that rule Turkish out, with no Turkish sign


def may_be_turkish(plain: Sequence[str]) -> bool:
    """Whether a message of these plain words may be Turkish (see _TURKISH_FUNCTION_WORDS)."""
    if not _TURKISH_FUNCTION_WORDS.isdisjoint(plain):
        return True
    if len(_OTHER_FUNCTION_WORDS.intersection(plain)) < _OTHER_LANGUAGE_MIN:
        return True
    written = "".join(plain)
    return any(letter in written for letter in _TURKISH_LETTERS)

# Indonesian builds words with prefixes and suffixes around a root (`uji` → `pengujian`,
# `diuji`; `simpan` → `menyimpan`); a nasal prefix replaces the root's first letter (men+tulis →
# menulis), which is put back. Tried against the Indonesian table alone.
_INDONESIAN_PREFIXES = (
    ("memper", ""), ("diper", ""), ("meng", "k"), ("meny", "s"), ("peng", "k"), ("peny", "s"),
    ("mem", "p"), ("men", "t"), ("pem", "p"), ("pen", "t"), ("ber", ""), ("ter", ""), ("per", ""),
    ("me", ""), ("pe", ""), ("di", ""), ("ke", ""), ("se", ""),
)
_INDONESIAN_SUFFIXES = ("kannya", "annya", "kan", "an", "i", "nya", "lah", "kah", "pun")
_INDONESIAN_ROOT_MIN = 3
_INDONESIAN_NOUN = "an"  # the suffix that makes a noun of a root (simpan → simpanan, serang → serangan)
_INDONESIAN_NOT_VERBS = ("se", "ke")  # prefixes of adverbs and abstract nouns, not of a verb of the noun
# The same, by a word's first two letters and by its last letter: a word only tries what can fit.
_INDONESIAN_PREFIXES_BY_START = {
    start: tuple(p for p in _INDONESIAN_PREFIXES if p[0].startswith(start))
    for start in {prefix[:2] for prefix, _ in _INDONESIAN_PREFIXES}
}
_INDONESIAN_SUFFIXES_BY_LAST = {
    last: tuple(s for s in _INDONESIAN_SUFFIXES if s.endswith(last)) for last in {s[-1] for s in _INDONESIAN_SUFFIXES}
}


def parse_entries(text: str) -> dict[str, str]:
    """`a, b = english` lines → {a: english, b: english}; later lines add words.

    A Latin-script key is kept as the plain words a message is read as (`e-mail` → `e mail`),
    so a key written with a joiner is found like the words it is split into."""
    table: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        keys, english = line.split("=", 1)
        for key in (_key_form(k) for k in keys.split(",")):
            if key:
                table[key] = _joined(table.get(key), english.strip())
    return table


def _joined(current: str | None, english: str) -> str:
    """`current` with the words of `english` it lacks added (a key listed twice gets both)."""
    if current is None:
        return english
    have = set(current.split())
    return " ".join([current, *(w for w in english.split() if w not in have)])


def _key_form(key: str) -> str:
    key = normalize(key.strip())
    return key if CJK_RUN.search(key) else " ".join(words(key))


class FormFinder(Protocol):
    def find(self, folded: str) -> str | None:
        """The English of the listed word an inflected, accent-folded word is a form of."""
        ...


@dataclass(frozen=True)
class InflectedWords:
    """The listed single words of the inflecting languages (_INFLECTIONS) and their stems, folded,
    each reached only through its own language's endings: ending → the tables it leads to."""

    by_ending: Mapping[str, tuple[Mapping[str, str], ...]]
    longest: int
    bare_stems: tuple[Mapping[str, str], ...] = ()  # stems a word may be with no ending (_BARE_STEM_LANGUAGES)

    def find(self, folded: str) -> str | None:
        for table in self.bare_stems:
            hit = table.get(folded)
            if hit is not None:
                return hit
        for size in range(min(self.longest, len(folded) - _STEM_MIN), 0, -1):
            tables = self.by_ending.get(folded[-size:])
            if tables is not None:
                stem = folded[:-size]
                for table in tables:
                    hit = table.get(stem)
                    if hit is not None:
                        return hit
        return None


@dataclass(frozen=True)
class TurkishWords:
    """Turkish listed single words and verb stems, folded; found at the start of a word whose
    rest is a chain of Turkish suffixes, the longest listed start first."""

    words: Mapping[str, str]

    def find(self, folded: str) -> str | None:
        bare = self.words.get(folded)  # a verb stem alone is the imperative a request uses (doğrula, oluştur)
        if bare is not None:
            return bare
        for end in range(len(folded) - 1, _TURKISH_STEM_MIN - 1, -1):
            stem = folded[:end]
            hit = self.words.get(stem)
            hard = _TURKISH_SOFTENED.get(stem[-1])
            if hit is None and hard is not None:  # kaynağı: kaynak with its last consonant softened
                hit = self.words.get(stem[:-1] + hard)
            rest = folded[end:]
            if hit is None and rest.startswith(_TURKISH_PRESENT):  # hazırlıyor: hazırla less its vowel
                hit = self.words.get(stem + "a") or self.words.get(stem + "e")
            if hit is not None and is_turkish_suffix_chain(rest):
                return hit
        return None


@dataclass(frozen=True)
class IndonesianWords:
    """Indonesian listed single words, folded; a word is looked up without its affixes, and a root
    also through its noun in -an when only the noun is listed (`mencadangkan` → cadang → `cadangan`,
    `penyerang` → serang → `serangan`)."""

    words: Mapping[str, str]

    def find(self, folded: str) -> str | None:
        words = self.words
        roots = indonesian_roots(folded)
        for root in roots:
            hit = words.get(root)
            if hit is not None:
                return hit
        if folded.startswith(_INDONESIAN_NOT_VERBS):  # se-, ke-: sering (often) is no form of ringan
            return None
        for root in roots:
            if not root.endswith(_INDONESIAN_NOUN):
                hit = words.get(root + _INDONESIAN_NOUN)
                if hit is not None:
                    return hit
        return None


# Italian and Spanish write object pronouns onto an infinitive or an imperative (configurarlo,
# optimizarla, scrivimi, explícame): such a word is looked up without its pronoun, as the infinitive
# (Italian drops the infinitive's -e before one: configurar-lo is configurare) or the imperative it
# is. An imperative takes only the pronouns that do not also end common nouns and adjectives
# (-le ends normale, gestionale and detalle, not a verb with le).
class Clitics(NamedTuple):
    pronouns: tuple[str, ...]  # longest first
    after_imperative: frozenset[str]  # the pronouns an imperative (a, e or i last) may carry
    infinitive_end: str  # what an infinitive that carries a pronoun lost: Italian e, Spanish nothing


_CLITICS: dict[str, Clitics] = {
    "it": Clitics(
        tuple(sorted("mi ti ci vi si lo la li le ne gli glielo gliela glieli melo mela celo cela".split(),
                     key=lambda p: (-len(p), p))),
        frozenset("mi ci lo la li ne".split()), "e"),
    "es": Clitics(
        tuple(sorted("me te se nos lo la los las le les melo mela selo sela noslo".split(),
                     key=lambda p: (-len(p), p))),
        frozenset("me nos lo la los las le les".split()), ""),
}
_INFINITIVE_STEMS = ("ar", "er", "ir")
_CLITIC_REST_MIN = 5  # letters a verb keeps before its pronoun (picco-lo is no verb with lo)


@dataclass(frozen=True)
class CliticWords:
    """One language's listed single words and their stems (folded), found under a pronoun written
    onto an infinitive or an imperative (`_CLITICS`)."""

    clitics: Clitics
    words: Mapping[str, str]
    stems: Mapping[str, str]

    def find(self, folded: str) -> str | None:
        for pronoun in self.clitics.pronouns:
            if folded.endswith(pronoun) and len(folded) - len(pronoun) >= _CLITIC_REST_MIN:
                return self._verb(folded[: -len(pronoun)], pronoun)
        return None

    def _verb(self, rest: str, pronoun: str) -> str | None:
        clitics = self.clitics
        if rest.endswith(_INFINITIVE_STEMS):
            return self.words.get(rest + clitics.infinitive_end) or self.stems.get(rest[:-2])
        # an imperative is a verb's stem and a vowel (spiega, scrivi, explica, corrige)
        if pronoun in clitics.after_imperative and rest[-1] in "aei":
            return self.stems.get(rest[:-1])
        return None


@dataclass(frozen=True)
class Lexicon:
    words: Mapping[str, str]  # whole Latin-script words and short phrases
    cjk: Mapping[str, str]  # substrings of CJK runs
    max_cjk: int
    phrase_words: Mapping[str, int] = field(default_factory=dict)  # first word of a listed phrase → most words it has
    inflected: Sequence[FormFinder] = ()  # per language: a listed word for an inflected form
    # Keys only the English table lists (roi, cac, dep): a word written with accents is never one of
    # them, so its accent-folded form does not find them (Vietnamese rối, các, đẹp).
    english_only: frozenset[str] = frozenset()
    # Turkish phrases, folded: Turkish inflects a phrase's last word (veri tabanı → veri tabanından).
    turkish_phrases: Mapping[str, str] = field(default_factory=dict)
    # Each Turkish phrase without its last word (`veri` of `veri tabanı`): a key that does not start
    # with one is no inflected Turkish phrase, which spares most keys the suffix search.
    turkish_heads: frozenset[str] = field(init=False, default=frozenset())
    # The first two words of each listed phrase (`pull request` of `pull request template`), and the
    # first word of each Turkish one: a message's "the" or "how" starts a listed phrase only if the
    # word after it does too, which spares most phrase heads every lookup.
    phrase_pairs: frozenset[str] = field(init=False, default=frozenset())
    turkish_firsts: frozenset[str] = field(init=False, default=frozenset())
    # The lengths of the CJK keys that start with each character, longest first: a run tries at each
    # place only the lengths a key starting there can have (most characters start none), not them all.
    cjk_sizes: Mapping[str, tuple[int, ...]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        heads = frozenset(phrase.rsplit(" ", 1)[0] for phrase in self.turkish_phrases)
        object.__setattr__(self, "turkish_heads", heads)
        firsts = frozenset(phrase.split(" ", 1)[0] for phrase in self.turkish_phrases)
        object.__setattr__(self, "turkish_firsts", firsts)
        pairs = frozenset(" ".join(key.split(" ", 2)[:2]) for key in self.words if " " in key)
        object.__setattr__(self, "phrase_pairs", pairs)
        sizes: dict[str, set[int]] = {}
        for key in self.cjk:
            sizes.setdefault(key[0], set()).add(len(key))
        object.__setattr__(self, "cjk_sizes", {first: tuple(sorted(s, reverse=True)) for first, s in sizes.items()})

    def lookup_phrase(self, words: Sequence[str], start: int) -> tuple[str, str] | None:
        """(key, english) for the longest listed phrase of 2+ words starting at `start`."""
        longest = self.phrase_words.get(words[start], 0)
        if start + 1 >= len(words):
            return None
        if f"{words[start]} {words[start + 1]}" not in self.phrase_pairs and (
                not self.turkish_firsts or fold_accents(words[start]) not in self.turkish_firsts):
            return None
        for size in range(min(longest, len(words) - start), 1, -1):
            key = " ".join(words[start : start + size])
            english = self.words.get(key)
            if english is not None:
                return key, english
            inflected = self._turkish_phrase(key)
            if inflected is not None:
                return inflected
        return None

    def _turkish_phrase(self, key: str) -> tuple[str, str] | None:
        """A listed Turkish phrase whose last word carries suffixes (`kod incelemesini`)."""
        folded = fold_accents(key)
        head = folded.rfind(" ") + 1
        if folded[: head - 1] not in self.turkish_heads:
            return None
        for end in range(len(folded) - 1, head + _TURKISH_STEM_MIN - 1, -1):
            english = self.turkish_phrases.get(folded[:end])
            if english is not None and is_turkish_suffix_chain(folded[end:]):
                return folded[:end], english
        return None

    def lookup_word(self, word: str, turkish: bool = True) -> str | None:
        """The English for a Latin-script word: as written, without accents, then without an
        inflection ending, suffixes or affixes of the language of a listed word (see `inflected`);
        Turkish suffixes only when `turkish` (the message may be Turkish: `may_be_turkish`)."""
        hit = self.words.get(word)
        if hit is not None:
            return hit
        folded = fold_accents(word)
        if folded != word and folded in self.english_only:
            return None
        hit = self.words.get(folded)
        if hit is not None or len(folded) < 5:
            return hit
        for finder in self.inflected:
            if not turkish and isinstance(finder, TurkishWords):
                continue
            hit = finder.find(folded)
            if hit is not None:
                return hit
        return None

    def lookup_cjk(self, run: str) -> list[tuple[str, str]]:
        """(key, english) for the longest listed substrings of a CJK run.

        Korean writes a space between words, so a run of Hangul is one word with its particles: a
        key of one or two syllables is read only where a word starts (the run's start, or the end
        of the key before it), since inside a longer word it is mostly another word's syllables
        (친구 in 남자친구, boyfriend; 정의 in 가정의학, family medicine)."""
        found: list[tuple[str, str]] = []
        cjk, sizes_at = self.cjk, self.cjk_sizes
        i, end, start = 0, len(run), 0  # start: where a word may start
        while i < end:
            step = 1
            inside = i != start and _HANGUL_FIRST <= run[i] <= _HANGUL_LAST
            for size in sizes_at.get(run[i], ()):
                if size <= end - i and not (inside and size <= _SHORT_HANGUL_KEY):
                    english = cjk.get(run[i : i + size])
                    if english is not None:
                        found.append((run[i : i + size], english))
                        step = size
                        start = i + size
                        break
            i += step
        return found


# Hangul syllables, and the longest key read only at a word's start (see Lexicon.lookup_cjk).
_HANGUL_FIRST, _HANGUL_LAST = "\uac00", "\ud7a3"
_SHORT_HANGUL_KEY = 2


# Letters NFKD does not split into a base letter and a mark: Turkish dotless ı, Vietnamese đ,
# Polish ł, Nordic ø and æ, French œ.
_UNMARKED_LETTERS = str.maketrans({"ı": "i", "đ": "d", "ł": "l", "ø": "o", "æ": "ae", "œ": "oe"})


def fold_accents(word: str) -> str:
    """`migración` → `migracion`, `déploiement` → `deploiement`, `veritabanı` → `veritabani`,
    `dữ liệu` → `du lieu`, `błąd` → `blad` (users often drop accents)."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word.translate(_UNMARKED_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_LONGEST_TURKISH_SUFFIX = max(len(s) for s in _TURKISH_SUFFIXES)


@lru_cache(maxsize=1 << 14)
def is_turkish_suffix_chain(rest: str, depth: int = _TURKISH_DEPTH, after_letter: bool = False) -> bool:
    """Whether `rest` (folded) is one to `depth` Turkish suffixes in a row (`larindan`: lar+in+dan).
    Two one-letter suffixes never follow each other (the pairs Turkish has are listed whole: in,
    im), so `nnya` is no chain and Indonesian `temannya` is not the Turkish `tema`."""
    if rest in _TURKISH_SUFFIXES and not (after_letter and len(rest) == 1):
        return True
    if depth <= 1:
        return False
    return any(rest[:size] in _TURKISH_SUFFIXES and not (after_letter and size == 1)
               and is_turkish_suffix_chain(rest[size:], depth - 1, size == 1)
               for size in range(1, min(_LONGEST_TURKISH_SUFFIX, len(rest) - 1) + 1))


def indonesian_roots(folded: str) -> list[str]:
    """A folded word without its Indonesian suffix and prefix (`pengujian` → `uji`,
    `menyimpan` → `simpan`, `dioptimalkan` → `optimal`), the nasal prefix's dropped letter put back."""
    roots: list[str] = []
    suffixes = _INDONESIAN_SUFFIXES_BY_LAST.get(folded[-1:], ())
    bases = [folded, *(folded[: -len(s)] for s in suffixes if folded.endswith(s))]
    for i, base in enumerate(bases):
        if len(base) < _INDONESIAN_ROOT_MIN:
            continue
        if i:
            roots.append(base)
        for prefix, dropped in _INDONESIAN_PREFIXES_BY_START.get(base[:2], ()):
            if base.startswith(prefix) and len(base) - len(prefix) >= _INDONESIAN_ROOT_MIN:
                root = base[len(prefix) :]
                roots.append(root)
                if dropped:
                    roots.append(dropped + root)
    return roots


def _stems(table: Mapping[str, str], endings: Sequence[str], shortest: int = _STEM_MIN + 1) -> dict[str, str]:
    stems: dict[str, str] = {}
    for key, english in table.items():
        if " " in key:
            continue
        for ending in endings:
            if key.endswith(ending) and len(key) - len(ending) >= shortest:
                stems.setdefault(key[: -len(ending)], english)
                break
    return stems


def read_entries(language: str) -> str:
    """The text of one language's data file, shipped inside the package."""
    return (resources.files(__name__) / "data" / f"{language}.txt").read_text(encoding="utf-8")


def build_lexicon() -> Lexicon:
    words: dict[str, str] = {}
    cjk: dict[str, str] = {}
    by_ending: dict[str, list[Mapping[str, str]]] = {}
    bare_stems: list[Mapping[str, str]] = []
    turkish: dict[str, str] = {}
    turkish_phrases: dict[str, str] = {}
    indonesian: dict[str, str] = {}
    english_only: set[str] = set()
    clitic_finders: list[CliticWords] = []
    for language in LANGUAGES:
        table = parse_entries(read_entries(language))
        if language == "en":
            english_only = set(table)
        else:
            english_only.difference_update(fold_accents(k) for k in table)
        for key, english in table.items():
            target = cjk if CJK_RUN.fullmatch(key) else words
            target[key] = _joined(target.get(key), english)
            folded = fold_accents(key)
            # A lone Vietnamese syllable is only itself with its tone marks (lỗi is an error, loi
            # may be lời, lối or lợi); a phrase of them is clear without.
            if target is words and folded != key and not (language == "vi" and " " not in key):
                words.setdefault(folded, english)
        single = {fold_accents(k): e for k, e in table.items() if " " not in k and not CJK_RUN.search(k)}
        if language == "tr":
            # Turkish verb stems are short (yaz-, kur-, sil-): every listed infinitive's stem is kept.
            turkish = {**_stems(single, _TURKISH_INFINITIVES, _TURKISH_STEM_MIN), **single}
            turkish_phrases = {fold_accents(k): e for k, e in table.items() if " " in k}
        elif language == "id":
            indonesian = single
        elif language in _INFLECTIONS:
            inflection = _INFLECTIONS[language]
            stems = _stems(single, tuple(fold_accents(e) for e in inflection.citation))
            for ending in {fold_accents(e) for e in inflection.endings}:
                by_ending.setdefault(ending, []).extend((MappingProxyType(single), MappingProxyType(stems)))
            if language in _BARE_STEM_LANGUAGES:
                bare_stems.append(MappingProxyType(stems))
            if language in _CLITICS:
                clitic_finders.append(
                    CliticWords(_CLITICS[language], MappingProxyType(single), MappingProxyType(stems)))
    inflected: tuple[FormFinder, ...] = (
        InflectedWords(MappingProxyType({e: tuple(t) for e, t in by_ending.items()}), max(map(len, by_ending)),
                       tuple(bare_stems)),
        TurkishWords(MappingProxyType(turkish)),
        IndonesianWords(MappingProxyType(indonesian)),
        *clitic_finders,
    )
    longest = max((len(k) for k in cjk), default=1)
    heads: dict[str, int] = {}
    for key in words:
        parts = key.split(" ")
        if len(parts) > 1:
            heads[parts[0]] = max(heads.get(parts[0], 0), len(parts))
    return Lexicon(MappingProxyType(words), MappingProxyType(cjk), longest, MappingProxyType(heads), inflected,
                   frozenset(english_only), MappingProxyType(turkish_phrases))


LEXICON = build_lexicon()
