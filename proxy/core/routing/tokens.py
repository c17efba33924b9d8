"""Tokenisation for routing: any script in, comparable terms out.

What lives here: Unicode normalisation (NFKC + casefold), splitting words on
non-alphanumerics and on `-`, `_`, `.`, a small rule-based English stemmer,
stopwords, and CJK handling (Han, Hiragana, Katakana and Hangul runs become
character bigrams, since those scripts put no spaces between words).

A message is normalised and split once (`split_text`); its terms, phrases, plain
words and compounds are all read from that split, as `tokens`, `phrases`, `words`
and `compounds` read them from a text.

What it must not know: skills, scores or the lexicon. Pure functions only.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

_CJK_CLASS = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # Han extension A
    "\u4e00-\u9fff"  # Han
    "\uf900-\ufaff"  # Han compatibility
    "\uac00-\ud7af"  # Hangul syllables
    "\u1100-\u11ff"  # Hangul jamo
)
CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")


@lru_cache(maxsize=1024)
def holds_cjk(text: str) -> bool:
    """`text` holds a CJK character. A search of the class costs about 15 ns a character, and the rules
    of the router ask it of the same few texts a dozen times a message: an ASCII text (a flag of the
    string) answers at once, any other once."""
    return not text.isascii() and CJK_RUN.search(text) is not None


# A compound keeps its joiners: `p5.js`, `gh-fix-ci`, `snake_case`, `c++`.
_COMPOUND = re.compile(r"[^\W_]+(?:[._\-][^\W_]+)*(?:\+\+|#)?")
_PARTS = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"[\d.,_\-]+")

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can cannot could did do does doing done down
    during each etc few for from further had has have having he her here hers him his how
    i if in into is it its itself just let lets like me more most my myself no nor not now
    of off on once only or other our ours out over own same she should so some such than
    that the their them then there these they this those through to too under until up
    upon us very via was we were what when where which while who whom why will with would
    you your yours yourself via vs per am pm ok okay hi hello hey thanks thank please pls
    want wants need needs help helps get gets got make makes made use uses used using way
    thing things stuff something anything someone somebody really actually just still
    even already maybe much many lot lots one two three first new good best better bit
    im ive dont doesnt cant wont isnt arent didnt whats thats theres youre id ill
    go going gonna wanna know think see look looks try trying tried keep kind sort
    every everything nothing able without within across around instead else
    don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn ll ve
    say says said saying tell tells told give gives gave given come comes came went gone
    goes take takes took seem seems seemed wanted needed guess wonder wondering hoping
    honestly literally basically totally pretty quite rather sure yet ever never always
    often sometimes usually perhaps probably almost enough anyway somehow whatever
    whenever wherever however though although since thus therefore yes yeah nope
    whether either neither unless otherwise somewhat anybody everybody everyone nobody
    """.split()
)
# Function words of the other Latin-script languages we see (es, de, fr, pt, it, pl, tr, id, vi),
# so they do not become query terms. Words that are also terms of the catalog are left out (`os`,
# `ai`, `ci`, `np`, `pod`, `var`, `jest`).
FOREIGN_STOPWORDS = frozenset(
    """
    el la los las un una unos unas de del al y o que en con por para es son se su sus
    lo le les mi mis tu tus como mas pero muy este esta estos estas ese esa hay ya sin
    der die das den dem des ein eine einen einem einer und oder mit von zu zum zur im
    ist sind wie was wir ich mir mich du dir es sie er auf aus bei nach fur für nicht
    auch noch nur schon kann will soll bitte mein meine meinen unser unsere dass dann
    le la les un une des du et ou que qui dans avec pour par sur est sont ce cette ces
    mon ma mes notre nos je tu il elle nous vous ne pas plus comment faire sans
    as um uma uns umas do da dos das em no na nos nas pelo pela pelos pelas sem mas ou não nao é
    são sao está estão estao ser estar ter tem têm meu minha meus minhas seu sua seus suas nosso
    nossa você voce vocês voces ele ela eles elas nós isso isto esse essa este esta aquele
    aquela como quando onde porque muito muita mais menos também tambem já ainda só preciso
    precisamos quero queremos pode podes poderia favor ao aos à às numa lhe me te sobre entre
    até ate depois antes agora então entao cada toda todos todas algum alguma qual quais quem
    fazer faça faz
    il lo gli uno di del dello della dei degli delle al allo alla agli alle dallo dalla dai
    dagli dalle nel nello nella nei negli nelle sul sullo sulla sui sugli sulle con per tra fra
    che ed ma è sono mi ti si mio mia miei mie tuo tua nostro nostra questo questa questi queste
    quello quella quelli come quando dove perché perche molto più piu anche già gia ancora solo
    voglio vorrei posso puoi potresti devo dobbiamo abbiamo ho hai fare fai tutto tutti tutte
    ogni qualche cosa sempre poi dopo prima ora adesso
    na do że ze się sie nie są sa jak czy ale od po przez dla ta te tego tej tym mój moja moje
    mi mnie ja ty my wy oni one jego jej ich tak już juz tylko też także takze bardzo może moze
    można mozna trzeba proszę prosze żeby zeby aby który która które których był była było
    będzie bedzie mam masz mamy chcę chce chcemy jakie jaki gdzie kiedy dlaczego bez przy nad
    przed za oraz lub albo więc wiec jeśli jesli jeżeli czyli nasz nasza nasze
    ve ile bir bu şu da de mi mı mu mü için icin gibi çok cok daha ama veya ya ne nasıl nasil
    neden hangi bana beni benim sen sana senin biz bizim siz onlar olarak olan yok lütfen lutfen
    şey sey her tüm tum bütün butun kadar sonra önce once şimdi simdi artık hem değil degil
    gerek lazım istiyorum
    yang dan di ke dari untuk dengan pada dalam ini itu adalah akan sudah belum tidak bukan ada
    bisa dapat saya aku kami kita kamu anda dia mereka tolong mohon agar supaya karena jika
    kalau atau juga saja hanya lebih sangat bagaimana apakah mana kenapa mengapa sebuah seorang
    oleh sebagai bahwa tersebut lagi ingin mau perlu harus nya dong ya sih
    của và là có cho với này đó một các những tôi bạn mình được không trong để từ thì mà nhé
    giúp hãy làm như thế nào gì khi đã đang sẽ rồi cũng nếu vì nên ra vào lên xuống về theo trên
    dưới sau trước hơn rất lại đi nó chúng ta họ ở bị phải cần muốn xem hộ giùm ạ ơi vậy sao đây
    kia hoặc nhưng thêm
    """.split()
)


@dataclass(frozen=True)
class Token:
    """One term of a text: `term` is what is compared, `surface` what was written."""

    term: str
    surface: str


class SplitText(NamedTuple):
    """A text normalised once and split the ways routing reads it."""

    cjk_runs: list[str]  # runs of CJK characters, in order
    compounds: list[str]  # words with their joiners kept (`p5.js`, `gh-fix-ci`), CJK dropped
    words: list[str]  # plain words, CJK dropped


# Acronyms of the catalog that are common words of another language in small letters: APA (the
# citation style) is Indonesian apa (what), in nearly every Indonesian question; OPA (Open Policy
# Agent) is the German Opa (grandpa). Only the capitals name the acronym.
CAPITALS_ONLY = frozenset({"apa", "opa"})
# Terms of the catalog that are a common word of another language: Polish jest (is) is in nearly every
# Polish message, and read as Jest, the test runner, it sent Polish chatter to JavaScript testing; the
# Vietnamese ai is "who" ("chưa ai thèm review", nobody bothered to review), the Portuguese vc is "você"
# ("qual vc acha mais bonito?"), not AI or a VC. In a message that holds that language's function words,
# the word is that language's unless written with a capital ("testy w Jest", "tool AI", "um fundo de VC").
_POLISH_FUNCTION_WORDS = frozenset("się sie że czy nie ale jak dla żeby zeby już juz też tez bardzo mam".split())
_VIETNAMESE_FUNCTION_WORDS = frozenset("của và là có cho với này không được những các một mình tôi bạn thì mà".split())
_PORTUGUESE_FUNCTION_WORDS = frozenset(
    "não nao você voce pra pro uma com isso mas mais sem só qual mesmo tá tô meu minha".split())
WORD_IN_ITS_LANGUAGE = {"jest": _POLISH_FUNCTION_WORDS, "ai": _VIETNAMESE_FUNCTION_WORDS,
                        "vc": _PORTUGUESE_FUNCTION_WORDS}


# "Go" the language: the word is a stopword in small letters ("go ahead", "where did it go"), but a
# capital Go inside a sentence, or next to CJK text, names the language ("our Go service", "用 Go 写的").
# Read as `golang`, in messages and in skills alike, so the language is a term like any other.
_GO = re.compile(r"\bGo\b(?![-'’])")
_SENTENCE_START = frozenset(".!?\n\"“'‘([{*#>-")


def name_go(text: str) -> str:
    """`text` with each capital Go that names the language (not a sentence's first word) as golang."""
    if "Go" not in text:
        return text
    return _GO.sub(lambda m: "golang" if _inside_a_sentence(text, m.start()) else m.group(), text)


def _inside_a_sentence(text: str, start: int) -> bool:
    """Not a sentence's first word, or next to CJK text."""
    before, after = text[:start].rstrip(" \t"), text[start + 2 :].lstrip(" \t")
    if (before and CJK_RUN.match(before[-1])) or (after and CJK_RUN.match(after[0])):
        return True
    return bool(before) and before[-1] not in _SENTENCE_START


def split_text(text: str) -> SplitText:
    """`text` normalised, then its CJK runs, compounds and plain words (see `compounds` and `words`)."""
    folded = normalize(name_go(text))
    runs = CJK_RUN.findall(folded)
    plain = CJK_RUN.sub(" ", folded) if runs else folded
    compounds, parts = _COMPOUND.findall(plain), _PARTS.findall(plain)
    if not CAPITALS_ONLY.isdisjoint(parts):
        written = set(_PARTS.findall(text))
        small = {word for word in CAPITALS_ONLY if word.upper() not in written}
        compounds = [c for c in compounds if c not in small]
        parts = [p for p in parts if p not in small]
    for word, language in WORD_IN_ITS_LANGUAGE.items():  # a word written Jest, not the start of Jestem
        if word in parts and not language.isdisjoint(parts):
            as_written = _PARTS.findall(text)
            if word.capitalize() not in as_written and word.upper() not in as_written:
                compounds = [c for c in compounds if c != word]
                parts = [p for p in parts if p != word]
    return SplitText(runs, compounds, parts)


def normalize(text: str) -> str:
    """NFKC then casefold: full-width forms, ligatures and case all fold away. The Turkish dotted
    capital İ becomes a plain i (casefold would give i and a combining dot, which splits the word:
    `İstatistik`, `İçerik`)."""
    return unicodedata.normalize("NFKC", text).replace("İ", "i").casefold()


def _undouble(word: str) -> str:
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        return word[:-1]
    return word


# A three-letter base left by -ing or -ed that lost its silent e: consonant, one vowel, consonant
# (cod-ing, mak-ing, tim-ed), not a double one (run-n-ing keeps run) nor w, x, y (fix-ing, show-ing).
_SILENT_E_BASE = re.compile(r"[b-df-hj-np-tv-z][aeiouy][b-df-hj-np-tvz]")


def _strip_suffix(word: str) -> str:
    for suffix, repl in (("ization", "iz"), ("isation", "iz"), ("ation", "at")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    if word.endswith("ment") and len(word) >= 8:
        return word[:-4]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if len(base) == 3 and _SILENT_E_BASE.fullmatch(base):  # coding → code, making → make, timed → time
                return base + "e"
            return _undouble(base)
    if word.endswith(("ize", "ise")) and len(word) >= 6:
        return word[:-1]
    return word


def _strip_plural(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A small, consistent English stemmer: `tests`, `testing`, `tested` → `test`.

    It only has to map a word and its inflections to the same key; the key need
    not be a real word (`cache`, `caching` → `cach`). Digits and short words pass.
    """
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    word = _strip_suffix(_strip_plural(word))
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def cjk_terms(run: str) -> list[str]:
    """Character bigrams of a CJK run; a lone character stays a unigram."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _counts(word: str) -> bool:
    """A word that counts as a term: not one character, a digit run or a stopword."""
    return len(word) >= 2 and not word.isdigit() and word not in STOPWORDS and word not in FOREIGN_STOPWORDS


@lru_cache(maxsize=1 << 16)
def _word_tokens(compound: str) -> tuple[Token, ...]:
    if _NUMBER.fullmatch(compound):
        return ()
    parts = _PARTS.findall(compound)
    tokens = [Token(compound, compound)] if len(parts) > 1 or compound != parts[0] else []
    for part in parts:
        if not _counts(part):
            continue
        tokens.append(Token(stem(part), part))
    return tuple(tokens)


def tokens(text: str) -> list[Token]:
    """Every term of `text`, in order, duplicates kept (callers count or dedupe)."""
    text = normalize(name_go(text))
    runs = CJK_RUN.findall(text)
    out: list[Token] = []
    for run in runs:
        out.extend(Token(t, run) for t in cjk_terms(run))
    for compound in _COMPOUND.findall(CJK_RUN.sub(" ", text) if runs else text):
        out.extend(_word_tokens(compound))
    return out


@lru_cache(maxsize=1 << 16)
def _word_terms(compound: str) -> tuple[str, ...]:
    return tuple(token.term for token in _word_tokens(compound))


def split_terms(split: SplitText) -> list[str]:
    """The comparable terms of a split text, in order, duplicates kept (`terms` of its text)."""
    out: list[str] = []
    for run in split.cjk_runs:
        out.extend(cjk_terms(run))
    for compound in split.compounds:
        out.extend(_word_terms(compound))
    return out


def phrases(text: str) -> list[str]:
    """Adjacent pairs of word terms (`landing page` → `land pag`), CJK and joiners left out."""
    return word_phrases(words(text))


@lru_cache(maxsize=1 << 16)
def _phrase_part(word: str) -> str:
    """A word's stem if it counts as a term (`_counts`), else `""`."""
    return stem(word) if _counts(word) else ""


def word_phrases(plain: list[str]) -> list[str]:
    """`phrases` of a text from its plain words."""
    parts = [part for part in map(_phrase_part, plain) if part]
    return [f"{a} {b}" for a, b in itertools.pairwise(parts) if a != b]


def terms(text: str) -> list[str]:
    """The comparable terms of `text` (see `tokens`)."""
    return [t.term for t in tokens(text)]


def compounds(text: str) -> list[str]:
    """Normalised words with their joiners kept (`p5.js`, `gh-fix-ci`), CJK dropped."""
    return _COMPOUND.findall(CJK_RUN.sub(" ", normalize(text)))


def words(text: str) -> list[str]:
    """Plain normalised words (no stemming, no stopword removal), for lexicon lookups."""
    return _PARTS.findall(CJK_RUN.sub(" ", normalize(text)))


# Where the sentences of an ask end for the rules that read one question at a time (opinions, personal
# asks): after . and the spaces that follow, after ? ! (and any spaces), after 。？！. One character class
# first, as request_focus's, which the regex engine scans for.
ASKED_SENTENCE_END = re.compile(r"[.?!。？！](?:(?<=\.)\s+|(?<=[?!])\s*|(?<=[。？！]))")


def sentences(text: str, breaks: re.Pattern[str]) -> list[str]:
    """`text` cut at each match of `breaks`: a match that starts with punctuation ("." then spaces, "。")
    leaves it to the sentence it ends; a match of whitespace ("\\n\\n") is dropped. As `re.split` on
    a pattern that looks behind for the punctuation, but `breaks` can start with the punctuation, which
    the regex engine scans for (a lookbehind first is tried at every position)."""
    pieces: list[str] = []
    start = 0
    for match in breaks.finditer(text):
        at = match.start()
        pieces.append(text[start : at if text[at].isspace() else at + 1])
        start = match.end()
    pieces.append(text[start:])
    return pieces


@lru_cache(maxsize=1024)
def plain_words(text: str) -> frozenset[str]:
    """The distinct words of a normalised text as written (letters and digits, nothing stemmed).
    Cached: several rules of the router read the same ask."""
    return frozenset(_PARTS.findall(text))
