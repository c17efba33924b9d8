"""Loanwords written in Katakana or Hangul, heard as the English words they spell.

Japanese and Korean write English loanwords by sound: コンテナ, 컨테이너 (container),
データベース, 데이터베이스 (database). A word list cannot hold them all; their sound can
be matched. What lives here:

- romanising Katakana (Hepburn-like) and Hangul (Revised Romanization-like, syllables
  decomposed into jamo arithmetically; read as a loanword, the ㅡ that splits an English
  cluster is left out: 테스트 `test`);
- English spelling read the way these scripts hear it (soft c, `-tion`, a silent final e
  lengthening the vowel before it, no r after a vowel: `server` `seva`);
- the `Sound` both reduce to: a key (the consonants in coarse classes: voicing, r/l,
  p/b/f/v and the sibilants merged) that finds the candidate words, and a finer spelling,
  vowels kept, that rapidfuzz compares with a cutoff;
- finding the loanwords of a CJK run: its Katakana runs and Hangul words (particles left
  off), whole or, when written together, split into loanwords.

What it must not know: the index, skills or weights. Pure functions (and a bounded
memo of English words' sounds).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from rapidfuzz import fuzz, process

# --- Katakana -------------------------------------------------------------------------

_KANA_ROWS = {
    "": "アイウエオ", "k": "カキクケコ", "g": "ガギグゲゴ", "s": "サシスセソ", "z": "ザジズゼゾ",
    "t": "タチツテト", "d": "ダヂヅデド", "n": "ナニヌネノ", "h": "ハヒフヘホ", "b": "バビブベボ",
    "p": "パピプペポ", "m": "マミムメモ", "r": "ラリルレロ",
}
_KANA: dict[str, str] = {kana: consonant + vowel for consonant, row in _KANA_ROWS.items()
                         for kana, vowel in zip(row, "aiueo")}
_KANA.update({
    "シ": "shi", "チ": "chi", "ツ": "tsu", "フ": "fu", "ジ": "ji", "ヂ": "ji", "ヅ": "zu",
    "ヤ": "ya", "ユ": "yu", "ヨ": "yo", "ワ": "wa", "ヰ": "i", "ヱ": "e", "ヲ": "o", "ン": "n", "ヴ": "vu",
    "ヵ": "ka", "ヶ": "ke", "ヷ": "va", "ヸ": "vi", "ヹ": "ve", "ヺ": "vo",
    "ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o", "ャ": "ya", "ュ": "yu", "ョ": "yo", "ヮ": "wa",
})
_SMALL_VOWELS = {"ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o", "ヮ": "a"}
_SMALL_Y = {"ャ": "a", "ュ": "u", "ョ": "o"}
_SOKUON = "ッ"
_CHOONPU = "ー"
KATAKANA_RUN = re.compile("[\u30a1-\u30fa\u30fc]+")  # split on ・ (U+30FB) and anything not Katakana


def _kana_onset(romaji: str) -> str:
    """The consonant of a kana before a small vowel: `te` → `t`, `fu` → `f`, `u` → `w`, `i` → `y`."""
    if romaji in ("u", "i"):
        return "w" if romaji == "u" else "y"
    return romaji[:-1]


def romanize_katakana(run: str) -> str:
    """Katakana → Latin letters, Hepburn-like: ティ `ti`, ファ `fa`, ッ doubles the next consonant,
    ー doubles the vowel before it, ン before b/p/m is `m`. Other characters are left out."""
    syllables: list[str] = []
    for char in run:
        previous = syllables[-1] if syllables else ""
        if char in _SMALL_Y and previous.endswith("i") and len(previous) > 1:
            onset = previous[:-1]
            syllables[-1] = onset + ("" if onset in ("sh", "ch", "j") else "y") + _SMALL_Y[char]
        elif char in _SMALL_VOWELS and previous and previous not in ("a", "e", "o", _SOKUON):
            syllables[-1] = _kana_onset(previous) + _SMALL_VOWELS[char]
        elif char == _CHOONPU:
            if previous and previous[-1] in "aiueo":
                syllables[-1] = previous + previous[-1]
        elif char == _SOKUON:
            syllables.append(_SOKUON)
        elif char in _KANA:
            syllables.append(_KANA[char])
    out: list[str] = []
    for k, syllable in enumerate(syllables):
        if syllable == _SOKUON:
            following = syllables[k + 1] if k + 1 < len(syllables) else ""
            if following and following[0] not in "aiueon" and following != _SOKUON:
                out.append("t" if following.startswith("ch") else following[0])
            continue
        if syllable == "n" and k + 1 < len(syllables) and syllables[k + 1][:1] in ("b", "p", "m"):
            syllable = "m"
        out.append(syllable)
    return "".join(out)


# --- Hangul ---------------------------------------------------------------------------

HANGUL_BASE = 0xAC00
HANGUL_LAST = 0xD7A3
_MEDIALS_PER_INITIAL = 21 * 28
_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_MEDIALS = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi",
            "yu", "eu", "ui", "i")
# Finals as loanwords use them: ㅅ, ㅈ, ㅊ, ㅌ, ㅎ are a t (깃 `git`, 로봇 `robot`).
_FINALS = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "p", "l", "l", "p", "l", "m", "p", "p", "t", "t",
           "ng", "t", "t", "k", "t", "p", "t")
_EU = _MEDIALS.index("eu")
_SILENT = _INITIALS.index("")
_RIEUL = _INITIALS.index("r")
HANGUL_WORD = re.compile("[\uac00-\ud7a3]+")
LOANWORD_SCRIPTS = re.compile("[\u30a1-\u30fa\uac00-\ud7a3]")  # a run with any of these may hold a loanword


def hangul_jamo(syllable: str) -> tuple[int, int, int]:
    """(initial, medial, final) indices of one precomposed syllable: 19 × 21 × 28 from U+AC00."""
    code = ord(syllable) - HANGUL_BASE
    return code // _MEDIALS_PER_INITIAL, code % _MEDIALS_PER_INITIAL // 28, code % 28


def romanize_hangul(word: str, loanword: bool = False) -> str:
    """Hangul → Latin letters, Revised Romanization-like: 테스트 `teseuteu`, 쿠버네티스
    `kubeoneteseu`; ㄹ is `r` before a vowel and `l` after one, a final ㅅ is `t`.

    `loanword`: read as a loanword is heard: ㅡ after a consonant is the vowel these
    words add to split an English cluster, left out (테스트 `test`); ㅓ is `o`, ㅐ `a`."""
    out: list[str] = []
    for char in word:
        if not HANGUL_BASE <= ord(char) <= HANGUL_LAST:
            continue
        initial, medial, final = hangul_jamo(char)
        onset = _INITIALS[initial]
        if initial == _RIEUL and out and out[-1].endswith("l"):
            onset = "l"  # ㄹㄹ: 슬랙 `seullaek`
        vowel = _MEDIALS[medial]
        if loanword:
            vowel = "" if medial == _EU and initial != _SILENT else _LOAN_VOWELS.get(vowel, vowel)
        out.append(onset + vowel + _FINALS[final])
    return "".join(out)


_LOAN_VOWELS = {"eo": "a", "ae": "a", "yeo": "ya", "yae": "ya", "wae": "we", "oe": "we", "ui": "i", "eu": "u"}


# --- How a word sounds -----------------------------------------------------------------

_C = "bcdfgjklmnpqrstvwxz\x01\x02\x03\x04"  # consonant letters of an English spelling (and the marks below)
# English spelling read the way Japanese and Korean hear it, one rule at a time, in order,
# over many words at once (one a line). `ch`, `th` and a `g` before e/i/y sound two ways:
# each is marked (\x01-\x03) and read both ways (`_PRIMARY`, `_ALTERNATIVE`), and so is a
# `y` between consonants (\x04: `system` シ, `python` パイ). Vowels are
# read by the commonest rules: a silent final e lengthens the vowel before it (`database`
# `databeis`), `ee` is `i`, `ou` is `au`, a vowel before an r that is not sounded is `a`
# (`server` → `seva`, サーバー, 서버).
# Each pattern starts with a letter, not a lookbehind or an anchor, so `re` can skip ahead to
# where it may match (measured: five times faster over a catalog's words).
_ENGLISH_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.MULTILINE), r) for p, r in (
    (r"[st](?<=[a-z][st])ion", "shon"), (r"[ct](?<=[a-z][ct])ia", "sha"), (r"t(?<=[a-z]t)ure", "jur"),
    (r"p(?<=^p)s", "s"), (r"k(?<=^k)n", "n"), (r"w(?<=^w)r", "r"), (r"w(?<=^w)h", "w"),
    (r"s(?<=[aeiou]s)(?=[aeiouy][a-z])", "z"), (r"mb$", "m"), (r"ph", "f"), (r"ck", "k"), (r"gh(?=t|$)", ""),
    (r"qu", "kw"),
    (r"x(?<=^x)", "z"), (r"x", "ks"), (r"sc(?=[eiy])", "s"), (r"sch", "sk"), (r"cc(?=[eiy])", "ks"),
    (r"c(?=[eiy])", "s"), (r"ch", "\x01"), (r"c", "k"), (r"th", "\x02"), (r"g(?=[eiy])", "\x03"),
    (r"ai|ay", "ei"), (r"ee|ea|ie", "i"), (r"oa", "o"), (r"oo", "u"), (r"au|aw", "o"), (r"ou|ow", "au"),
    (r"eu|ew", "yu"), (r"ign", "ain"), (r"gn$", "n"),
    (r"are$", "ea"), (r"ire$", "aia"), (r"ore$", "o"), (r"ure$", "ua"),
    (r"able$", "eibl"), (rf"l(?<=[{_C}]l)e$", "l"),
    (rf"[iy](?=[{_C}]es?$)", "ai"), (rf"u(?=[{_C}]es?$)", "yu"), (rf"a(?=[{_C}]es?$)", "ei"),
    (rf"y(?<=[{_C}]y)(?=[{_C}])", "\x04"), (rf"y(?<=[a-z{_C}]y)(?![aeiou])", "i"),
    (r"[eiu]r(?![aeiouy])", "a"), (r"r(?<=[aeiouy]r)(?![aeiouy])", ""),
    (rf"u(?<=[{_C}]u)(?=[{_C}]{{2}}|[{_C}]$)", "a"),
    (rf"e(?<=[a-z][aeiouy][{_C}]e)$", ""), (rf"e(?<=[aeiouy][{_C}]e)s$", "s"),
))
_PRIMARY = str.maketrans({"\x01": "ch", "\x02": "s", "\x03": "j", "\x04": "i"})
_ALTERNATIVE = str.maketrans({"\x01": "k", "\x02": "t", "\x03": "g", "\x04": "i"})
_Y_AS_AI = str.maketrans({"\x01": "ch", "\x02": "s", "\x03": "j", "\x04": "ai"})
# A Katakana romanisation the way an English word would spell the sound: long vowels and
# doubled consonants once; then also without the vowel Japanese adds after a closing
# consonant (テスト `tesuto` → `test`; クバネティス keeps its first `u`, so both are heard).
_LONG_OR_DOUBLED = re.compile(r"([aeiou])\1+|([bdfgkmprstz])\2+")
_ADDED_VOWEL = re.compile(r"(?<=[bdfghkmprsz])u(?![aeiou])|(?<=[td])o(?![aeiou])")
# Coarse sound classes, for the key: k/g, t/d, p/b/f/v, the sibilants, m, n, r/l; each
# vowel group one `a`; glides and h go.
_CLASSES = str.maketrans({
    **dict.fromkeys("kgq", "k"), **dict.fromkeys("td", "t"), **dict.fromkeys("pbfv", "p"),
    **dict.fromkeys("szjcx", "s"), "m": "m", "n": "n", **dict.fromkeys("rl", "r"),
    **dict.fromkeys("aeiou", "a"), **dict.fromkeys("hwy", None),
})
# Finer ones, to compare two words of one key: voicing kept, f with p and v with b as these
# scripts write them, z with j; vowels in three classes (a/o, e/i, u: Korean ㅓ is an a).
_SOUNDS = str.maketrans({
    "c": "k", "q": "k", "f": "p", "v": "b", "z": "j", "x": "s", "l": "r", "o": "a", "e": "i",
    **dict.fromkeys("hwy", None),
})
_SIBILANT_DIGRAPHS = re.compile(r"ch|sh")
_CH = re.compile("ch")
_SH = re.compile("sh")
_NASAL_BEFORE_LABIAL = re.compile("n(?=[pb])")  # コンピューター `konpyuutaa`, 컴퓨터 `kompyuteo`: one sound
_DOUBLED = re.compile(r"([a-z])\1+")
_VOWEL_RUNS = re.compile("a+")
_NOT_CONSONANT = str.maketrans("", "", "a")


class Sound(NamedTuple):
    """How a word sounds: `key` finds the words it may be, `spelling` tells them apart."""

    key: str  # consonants in coarse classes (`kubernetes` → `kpnts`)
    spelling: str  # finer sounds, vowels kept (`kubernetes` → `kubinits`)


def english_spellings(words: Sequence[str]) -> list[tuple[str, ...]]:
    """Each English word spelt as it is heard (`presentation` → `prezentashon`), then its variant
    when `ch`, `th`, a soft `g` or a `y` could sound the other way (one to three spellings a word)."""
    spelt = "\n".join(words)
    for pattern, replacement in _ENGLISH_RULES:
        spelt = pattern.sub(replacement, spelt)
    readings = zip(*(spelt.translate(table).split("\n") for table in (_PRIMARY, _ALTERNATIVE, _Y_AS_AI)))
    return [tuple(dict.fromkeys(ways)) for ways in readings]


def _keys(spelt: str) -> str:
    classed = _DOUBLED.sub(r"\1", _SIBILANT_DIGRAPHS.sub("s", spelt).translate(_CLASSES))
    return _DOUBLED.sub(r"\1", _NASAL_BEFORE_LABIAL.sub("m", _VOWEL_RUNS.sub("a", classed)).translate(_NOT_CONSONANT))


def _fine(spelt: str) -> str:
    return _DOUBLED.sub(r"\1", _NASAL_BEFORE_LABIAL.sub("m", _SH.sub("s", _CH.sub("c", spelt))).translate(_SOUNDS))


def sounds_of(spelt: str) -> list[Sound]:
    """The `Sound` of each spelling of `spelt` (one a line)."""
    return [Sound(k, f) for k, f in zip(_keys(spelt).split("\n"), _fine(spelt).split("\n"))]


def english_sounds(words: Sequence[str]) -> list[tuple[Sound, ...]]:
    """For each English word, the `Sound` of each way it can sound (one to three)."""
    spellings = english_spellings(words)
    flat = sounds_of("\n".join(s for ways in spellings for s in ways))
    out: list[tuple[Sound, ...]] = []
    at = 0
    for ways in spellings:
        out.append(tuple(dict.fromkeys(flat[at : at + len(ways)])))
        at += len(ways)
    return out


def heard_spellings(spelling: str) -> tuple[str, ...]:
    """A Katakana or Hangul spelling in Latin letters, read as a loanword (a Katakana one with
    and without the vowels Japanese adds)."""
    if KATAKANA_RUN.match(spelling):
        romanized = romanize_katakana(spelling)
        closed = _LONG_OR_DOUBLED.sub(r"\1\2", _ADDED_VOWEL.sub("", romanized))  # a long vowel was never added
        written = _LONG_OR_DOUBLED.sub(r"\1\2", romanized)
        return (closed,) if closed == written else (closed, written)
    return (romanize_hangul(spelling, loanword=True),)


# --- Finding loanwords ----------------------------------------------------------------

MIN_LETTERS = 3  # kana or syllables a loanword needs (shorter runs are mostly native words)
MIN_KEY = 3  # consonants a key needs (two are met by too many native words)
# How alike (rapidfuzz ratio of the `Sound.spelling`s) a catalog word must sound: the shorter
# the spelling, the closer (native Korean words of three syllables sound like short English
# words: 그래서 `grasa` ~ `gross`). Measured on common native words and known loanwords.
SHORT_SPELLING, MEDIUM_SPELLING = 5, 7
CUTOFFS = (90.0, 85.0, 80.0)  # up to SHORT_SPELLING letters, up to MEDIUM_SPELLING, longer
MAX_COMPOUND = 16  # a longer run that is no loanword as a whole is not split into loanwords
MAX_PIECE = 10  # letters of one loanword of a compound
# Particles and endings that follow a Korean noun (서버를, 컨테이너에서, 배포하기), longest first.
_KOREAN_ENDINGS = tuple(sorted(set(
    "은 는 이 가 을 를 에 에서 에게 께 한테 으로 로 의 와 과 도 만 까지 부터 처럼 보다 이나 나 랑 이랑 하고 "
    "에는 에서는 으로는 로는 에도 에서도 와의 과의 에서의 이라는 라는 이란 입니다 이에요 예요 "
    "들 들이 들을 들은 들의 들에 들로 들도 용 "
    "하기 하는 하고 하여 해 해줘 해주세요 해줄 해서 했 했어 했는데 할 한 합니다 하려고 하려면 하면 해야 "
    "되는 된 되고 되어 돼 시키기 중".split()
), key=lambda e: (-len(e), e)))
SOUNDS_KEPT = 1 << 16  # English words whose sounds are remembered (a few hundred bytes each)
_REMEMBERED: dict[str, tuple[Sound, ...]] = {}
_NOT_FIRST = frozenset("ァィゥェォャュョヮッー")  # kana that cannot start a word

# The catalog's words by key: key → (spellings, the term of each).
LoanwordTable = Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]


def remembered_sounds(words: Sequence[str]) -> list[tuple[Sound, ...]]:
    """`english_sounds`, kept for the words seen (a catalog reloaded mostly has the same words)."""
    cache = _REMEMBERED
    known = {word: sounds for word in words if (sounds := cache.get(word)) is not None}
    missing = [word for word in words if word not in known]
    fresh = dict(zip(missing, english_sounds(missing))) if missing else {}
    if len(cache) + len(fresh) > SOUNDS_KEPT:
        cache.clear()
    cache.update(fresh)
    return [known.get(word) or fresh[word] for word in words]


def loanword_table(vocabulary: Mapping[str, str]) -> LoanwordTable:
    """The catalog's words (`word → term`) by key. Of words spelt alike, the first listed names
    the term (list the commonest first)."""
    words = list(vocabulary)
    found: dict[str, dict[str, str]] = {}
    for word, sounds in zip(words, remembered_sounds(words)):
        for sound in sounds:
            found.setdefault(sound.key, {}).setdefault(sound.spelling, vocabulary[word])
    return {key: (tuple(by_spelling), tuple(by_spelling.values())) for key, by_spelling in found.items()}


def cutoff_for(spelling: str) -> float:
    """The similarity a heard spelling needs (see CUTOFFS)."""
    if len(spelling) <= SHORT_SPELLING:
        return CUTOFFS[0]
    return CUTOFFS[1] if len(spelling) <= MEDIUM_SPELLING else CUTOFFS[2]


def match_spelling(spelling: str, table: LoanwordTable) -> str | None:
    """The catalog term a Katakana or Hangul spelling writes, if one sounds close enough
    (the closest; of equally close ones, the first listed)."""
    heard = heard_spellings(spelling)
    key = _keys(heard[0])  # most spellings stop here: no catalog word has their key
    found = table.get(key) if len(key) >= MIN_KEY else None
    if found is None:
        return None
    best: tuple[float, int] | None = None
    for fine in _fine("\n".join(heard)).split("\n"):
        hit = process.extractOne(fine, found[0], scorer=fuzz.ratio, score_cutoff=cutoff_for(fine))
        if hit is not None and (best is None or hit[1] > best[0]):
            best = (hit[1], hit[2])
    return None if best is None else found[1][best[1]]


def korean_stem(word: str) -> str:
    """A Hangul word without the particle or ending it may carry, the longest (서버를 → 서버,
    액션으로 → 액션, not 액션으)."""
    for ending in _KOREAN_ENDINGS:
        if word.endswith(ending) and len(word) > len(ending):
            return word[: -len(ending)]
    return word


def loanword_spellings(run: str) -> list[str]:
    """The spellings of a CJK run that may be loanwords: its Katakana runs (split on ・ and at
    other scripts) and its Hangul words without their endings, of MIN_LETTERS or more."""
    found = [k for k in KATAKANA_RUN.findall(run) if len(k) >= MIN_LETTERS]
    found.extend(stem for w in HANGUL_WORD.findall(run) if len(stem := korean_stem(w)) >= MIN_LETTERS)
    return found


def _compound(spelling: str, table: LoanwordTable) -> list[tuple[str, str]]:
    """Loanwords written together (ユニットテスト, 랜딩페이지): the split of the whole spelling
    into loanwords of MIN_LETTERS to MAX_PIECE letters, longest first piece first; none when
    some part is no loanword (a part left over says the split is a guess)."""
    failed: set[int] = set()  # starts from which the rest cannot be split

    def split_from(start: int) -> list[tuple[str, str]] | None:
        if start == len(spelling):
            return []
        if start in failed or spelling[start] in _NOT_FIRST:
            return None
        for end in range(min(len(spelling), start + MAX_PIECE), start + MIN_LETTERS - 1, -1):
            if end < len(spelling) and (spelling[end] in _NOT_FIRST or len(spelling) - end < MIN_LETTERS):
                continue
            term = match_spelling(spelling[start:end], table)
            rest = None if term is None else split_from(end)
            if rest is not None and term is not None:
                return [(spelling[start:end], term), *rest]
        failed.add(start)
        return None

    return split_from(0) or []


def find_loanwords(run: str, table: LoanwordTable) -> list[tuple[str, str]]:
    """(spelling, catalog term) of each loanword of a CJK run: a Katakana run or Hangul word
    as a whole, else the loanwords it is compounded of."""
    found: list[tuple[str, str]] = []
    for spelling in loanword_spellings(run):
        term = match_spelling(spelling, table)
        if term is not None:
            found.append((spelling, term))
        elif len(spelling) >= 2 * MIN_LETTERS and len(spelling) <= MAX_COMPOUND:
            found.extend(_compound(spelling, table))
    return found
