"""What is being asked: the part of a message that makes the request, apart from the scene it sets.

A user often sets a scene before asking ("our grafana dashboard went viral on reddit …
anyway, what's a good name for a puppy?"). The words of the scene say what the user works
on, not what they want now; a skill matched only by them should not be routed. This module
splits a message into clauses and says which of them ask:

- A **pivot** ("anyway", "by the way", "btw", "übrigens", "por cierto", "кстати", "对了",
  "ところで", "그런데", …) turns the conversation: what comes after the last one is the ask,
  everything before it is scene.
- Otherwise a clause that asks is a question (it ends in `?`, or opens with a question word or
  a request such as "how do I", "can you", "please", "wie kann ich", "comment", "怎么", "请")
  and the message's other clauses are scene, but only when the asking clauses stand on their
  own: they name at least two things and point back at nothing ("it", "this", "that", "them"
  …). "I have a CSV of sales. Can you chart it?" asks about the scene, so all of it is the ask.
- A question first that stands on its own, followed only by statements, is the ask; the
  statements set a scene after it ("is imposter syndrome ever going away? I'm a junior dev …").
- A message with no asking clause (an imperative, a bare description) is all ask.

Pure and deterministic: the same text always gives the same focus, and `Focus.why` says in a
few words which rule chose it, for the router's reasons.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import NamedTuple

from proxy.core.routing.lexicon import LEXICON, fold_accents
from proxy.core.routing.tokens import (
    CJK_RUN,
    FOREIGN_STOPWORDS,
    STOPWORDS,
    holds_cjk,
    normalize,
    plain_words,
    sentences,
)

# Words and phrases that turn a conversation to something else. Matched as whole words, case
# folded; CJK ones after the start of a clause.
PIVOTS = (
    # en
    "anyway", "anyways", "anyhow", "by the way", "btw", "unrelated question", "random question",
    "side question", "separate question", "different question", "on another note", "on a different note",
    "on an unrelated note", "changing the subject", "change of subject",
    # de
    "übrigens", "uebrigens", "jedenfalls", "anderes thema", "ganz andere frage",
    # es
    "por cierto", "de todos modos", "de todas formas", "cambiando de tema", "otra pregunta",
    # fr
    "au fait", "de toute façon", "de toute facon", "autre question", "changement de sujet",
    # pt
    "enfim", "de qualquer forma", "de qualquer jeito", "mudando de assunto", "por falar nisso", "outra pergunta",
    # it
    "comunque", "tra l'altro", "cambiando argomento", "ad ogni modo", "altra domanda",
    # ru
    "кстати", "впрочем", "другой вопрос", "кстати говоря",
    # pl
    "tak czy inaczej", "w każdym razie", "swoją drogą", "nawiasem mówiąc", "zmieniając temat", "inne pytanie",
    # tr
    "neyse", "her neyse", "bu arada", "başka bir soru",
    # id
    "ngomong-ngomong", "omong-omong", "ngomong ngomong", "ngomong2", "oh iya", "pertanyaan lain",
    # vi
    "nhân tiện", "nhan tien", "tiện thể", "tien the", "dù sao", "du sao", "câu hỏi khác",
    # zh
    "对了", "對了", "顺便问", "順便問", "顺便说", "话说回来", "話說回來", "换个话题", "換個話題", "题外话", "題外話",
    "不管怎样", "不管怎樣", "另外问", "另外問",
    # ja
    "ところで", "それはそうと", "話変わるけど", "話は変わりますが", "話は変わるけど", "全然関係ないけど",
    "関係ないけど",
    # ko
    "그런데", "근데", "아무튼", "그나저나", "어쨌든", "그건 그렇고", "다른 얘기지만", "다른 얘기인데", "암튼",
)
# Pivots that are also ordinary words ("a brief summary", "make it shorter", "otherwise"): they
# turn the conversation only when punctuation follows them ("bref, …", "короче, …").
PUNCTUATED_PIVOTS = (
    "unrelated", "totally unrelated", "off topic", "off-topic", "egal", "en fin", "otra cosa", "bref",
    "autre chose", "rien à voir", "rien a voir", "outra coisa", "a proposito", "in ogni caso", "короче",
    "в общем", "przy okazji", "konu dışı", "à mà",
)

# Openers of a clause that asks: question words and requests. A clause that begins with one
# (or ends in a question mark) asks.
OPENERS = (
    # en
    "how", "what", "whats", "what's", "why", "where", "which", "who", "is there", "are there",
    "can you", "could you", "would you", "will you", "can u", "could u", "can i", "could i", "should i", "do i",
    "do you", "does anyone", "is it", "are you", "any idea", "any ideas", "any tips", "any advice", "please",
    "pls", "help me", "i need", "i want", "i'd like", "id like", "i would like", "tell me", "show me", "give me",
    "recommend", "suggest", "explain",
    # de
    "wie", "warum", "wieso", "weshalb", "wo", "welche", "welcher", "welches", "wer", "wann", "kannst du",
    "könntest du", "koenntest du", "können sie", "koennen sie", "gibt es", "bitte", "hilf mir", "ich brauche",
    # es
    "cómo", "qué", "por qué", "por que", "dónde", "cuál", "quién", "cuándo", "puedes", "podrías", "podrias",
    "por favor", "ayúdame", "ayudame", "necesito",
    # fr
    "comment", "quoi", "pourquoi", "où", "quel", "quelle", "quels", "quelles", "qui", "quand", "est-ce que",
    "peux-tu", "pouvez-vous", "tu peux", "vous pouvez", "y a-t-il", "s'il te plaît", "s'il vous plaît", "aide-moi",
    "j'ai besoin",
    # pt
    "o que", "por que", "onde", "qual", "quais", "quem", "você pode", "voce pode",
    "podes", "tem como", "por favor", "me ajuda", "preciso",
    # it
    "cosa", "che cosa", "perché", "perche", "dove", "quale", "quali", "chi", "puoi", "potresti",
    "c'è", "per favore", "aiutami", "mi serve", "ho bisogno",
    # ru
    "как", "почему", "зачем", "где", "какой", "какая", "какие", "кто", "можешь", "можете",
    "подскажи", "подскажите", "пожалуйста", "помоги", "помогите", "нужно", "есть ли",
    # pl
    "jak", "dlaczego", "czemu", "gdzie", "który", "która", "które", "kto", "czy", "możesz",
    "mozesz", "możecie", "proszę", "prosze", "pomóż", "pomoz", "potrzebuję", "potrzebuje",
    # tr
    "nasıl", "nasil", "neden", "niye", "nerede", "hangi", "kim", "ne zaman", "lütfen", "lutfen",
    "yardım", "yardim",
    # id
    "bagaimana", "gimana", "apa", "kenapa", "mengapa", "di mana", "dimana", "yang mana", "siapa", "bisakah", "tolong",
    "mohon", "saya butuh", "aku butuh", "kami butuh", "saya mau", "aku mau", "kami mau", "saya ingin", "aku ingin",
    "kami ingin", "bantu", "buatkan",
    # vi
    "làm sao", "lam sao", "làm thế nào", "lam the nao", "cái gì", "tại sao", "tai sao", "ở đâu", "o dau",
    "khi nào", "bạn có thể", "ban co the", "giúp", "giup", "hãy", "xin",
)
# Turkish puts the verb last, so a clause says that it asks by its last word: a request (istiyorum: I
# want, lazım, gerekiyor: it is needed) or the question particle with a person ending (yapar mısın:
# would you do). Folded, as `asks` compares them.
CLOSERS = frozenset(
    """
    istiyorum istiyoruz isterim isteriz istiyordum gerekiyor gerekli lazim
    misin musun misiniz musunuz miyim muyum miyiz muyuz
    """.split()
)
# CJK request and question markers, found anywhere in a clause.
CJK_ASK_MARKERS = (
    "怎么", "怎麼", "如何", "为什么", "為什麼", "什么", "什麼", "哪个", "哪個", "哪里", "哪裡", "吗", "嗎", "呢", "请",
    "請", "帮我", "幫我", "能不能", "可以吗", "可不可以", "有没有", "有沒有",
    "ですか", "ますか", "でしょうか", "かな", "ください", "下さい", "ほしい", "欲しい", "教えて", "どう", "なぜ", "何",
    "どこ", "どれ", "どの",
    "어떻게", "왜", "무엇", "뭐", "어디", "어느", "누가", "언제", "주세요", "해줘", "해 줘", "알려줘", "까요", "나요",
    "습니까", "할까", "될까",
)
# Words that point back at something said before: an asking clause that holds one asks about
# the scene, which is then part of the ask.
ANAPHORA = frozenset(
    """
    it its this that these those them they here above below such same
    das dies diese dieser dieses dafür dafuer damit davon dazu hier
    esto eso ello
    ça ca cela ceci
    isso isto
    questo questa quello quella questi quelli ciò cio
    это этот эта эти этого этому тут
    tego tym tych
    bunu şunu bunlar onu onlar
    ini itu tersebut
    này đó nó
    """.split()
)
# Indonesian points back with a suffix: `grafiknya`, `langkahnya` ("its chart", "its steps") are a
# listed word with -nya ("tolong buat grafiknya" asks about the data the scene described). Only a
# listed word counts, so -nya adverbs (biasanya, sebaiknya) and names (Kenya) do not.
POINTING_SUFFIX = "nya"
_POINTING_ROOT_MIN = 3
# The same in Chinese and Japanese, found anywhere in a CJK clause (a CJK clause is one run, not
# words): "怎么用 polars 把它按月汇总?" asks about the CSV the scene described.
CJK_ANAPHORA = (
    "它", "这个", "這個", "这些", "這些", "这段", "這段", "这份", "這份", "这张", "這張", "这篇", "這篇", "这里",
    "這裡", "這裏", "这种", "這種", "这样", "這樣", "那个", "那個", "那些", "上面", "上述", "以上",
    "これ", "それ", "この", "その", "あれ", "ここ",
)
# English question words that make a clause ask wherever they stand in it when an auxiliary
# follows within two words ("in my api what lifetime should the driver have"), unlike "we
# can't see where any signup came from".
QUESTION_WORDS = frozenset("what how why which where".split())
AUXILIARIES = frozenset("should do does did is are was were can could would will to shall must".split())
# Openers that also open a relative clause after a comma; they ask only in a sentence that ends in a
# question mark ("I have a CSV, which chart fits best?").
RELATIVES = frozenset("which who where welche welcher welches wo qui où dove onde quem qual quais quale quali chi "
                      "где кто który która które kto gdzie dimana".split())
JOINERS = frozenset("but so and aber pero mais mas ma но ale ama tapi nhưng".split())  # before an inner question
_EXPLETIVE_BEFORE = frozenset("is was isn't isnt would will does did".split())
MIN_ASK_WORDS = 2  # an asking clause must name this many things to stand on its own
LONGEST_FOCUSED = 2000  # longer messages (pasted logs, code) are all ask: what they paste is what they ask about

# Where a sentence ends: after . ! ? ; … and the spaces that follow, at line breaks, after 。！？；, and after
# an emoji that more text follows ("… non le apre 🙄 come le converto?": it closes a sentence). Written
# to start with one character class, which the regex engine scans for (an alternation it tries at
# every position: 4 times slower on a long message).
_SENTENCE_END = re.compile(r"[.!?;…\n。！？；\U0001F300-\U0001FAFF\u2600-\u27BF]"
                           r"(?:(?<=[.!?;…])\s+|(?<=\n)\n*|(?<=[。！？；])|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\ufe0f?\s+)")
_WORD = re.compile(r"[^\W_]+")
_PUNCTUATION_AFTER = re.compile(r"\s*(?:[,:;.!—–]|-\s)")


def _phrase_table(phrases: tuple[str, ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """first word → the phrases (as word tuples) starting with it, longest first."""
    table: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        words = tuple(_WORD.findall(normalize(phrase)))
        if words and not CJK_RUN.search(phrase):
            table.setdefault(words[0], []).append(words)
    return {first: tuple(sorted(set(found), key=len, reverse=True)) for first, found in table.items()}


def _alternation(words: object) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))  # type: ignore[call-overload]


_PIVOT_PHRASES = _phrase_table(PIVOTS)
_PUNCTUATED_PHRASES = _phrase_table(PUNCTUATED_PIVOTS)
_OPENER_PHRASES = _phrase_table(OPENERS)
# Each Latin pivot's longest word: a message holding none of them has no pivot (one set test).
_PIVOT_MARKS = frozenset(max(reversed(phrase), key=len) for table in (_PIVOT_PHRASES, _PUNCTUATED_PHRASES)
                         for phrases in table.values() for phrase in phrases)
_CJK_PIVOT = re.compile(
    "(?:^|(?<=[\\s,.!?:;，。！？、：；…]))(?:" + _alternation(p for p in PIVOTS if CJK_RUN.search(p)) + ")")
_CJK_ASK = re.compile(_alternation(CJK_ASK_MARKERS))
_CJK_ANAPHORA = re.compile(_alternation(CJK_ANAPHORA))
# Where a sentence may break before an inner question: a comma or a joining word, then a word
# that starts an opener (confirmed against the opener phrases).
_INNER_BREAK = re.compile(
    rf"(?:,|(?<![^\W_])(?:{_alternation(JOINERS)}))\s+(?=(?:{_alternation(_OPENER_PHRASES)})(?![^\W_]))")

class Focus(NamedTuple):
    """The asking part of a message and the scene before it (`scene` empty: all of it asks)."""

    ask: str
    scene: str
    why: str  # `pivot`, `question` (after the scene), `question first` (before it) or `whole`


def _phrase_at(words: list[str], k: int, table: dict[str, tuple[tuple[str, ...], ...]]) -> int:
    """How many words of a listed phrase start at word `k` (0: none)."""
    for phrase in table.get(words[k], ()):
        if len(phrase) == 1 or tuple(words[k : k + len(phrase)]) == phrase:
            return len(phrase)
    return 0


def _last_pivot(text: str) -> tuple[int, int] | None:
    """(start, end) of the last pivot in a normalised text."""
    found: tuple[int, int] | None = None
    if not _PIVOT_MARKS.isdisjoint(plain_words(text)):  # most messages have none (the words are kept for later rules)
        spans = list(_WORD.finditer(text))
        words = [m.group() for m in spans]
        for k, word in enumerate(words):
            if word not in _PIVOT_PHRASES and word not in _PUNCTUATED_PHRASES:
                continue
            size = _phrase_at(words, k, _PIVOT_PHRASES)
            punctuated = 0 if size else _phrase_at(words, k, _PUNCTUATED_PHRASES)
            if punctuated and _PUNCTUATION_AFTER.match(text, spans[k + punctuated - 1].end()):
                size = punctuated
            if size:
                found = (spans[k].start(), spans[k + size - 1].end())
    if holds_cjk(text):
        for match in _CJK_PIVOT.finditer(text):
            if found is None or match.start() > found[0]:
                found = (match.start(), match.end())
    return found


def _opens(text: str) -> bool:
    """`text` starts with an opener (a question word or a request)."""
    words = _WORD.findall(text, 0, 120)
    return bool(words) and _phrase_at(words, 0, _OPENER_PHRASES) > 0


# Words that open a clause a comma sets off without ending the question: "ist es normal, dass ich …?",
# "¿es normal que …?" (German and Russian write the comma before "that"; "if" and "whether" the same).
_SUBORDINATORS = frozenset("that if whether dass ob wenn que qu si che se что чтобы если ли że ze jeśli jesli "
                           "bahwa kalau rằng".split())


def _relative(rest: str) -> bool:
    """The words after a comma open a relative clause, if anything: "write a Cypher query, which finds
    common friends" (Polish "…, które znajdzie …", French "…, qui trouve …") describes what is asked."""
    words = _WORD.findall(rest, 0, 40)
    return bool(words) and words[0] in RELATIVES


def _continues(rest: str) -> bool:
    """The words after a sentence's last comma open a subordinate clause of what came before."""
    words = _WORD.findall(rest, 0, 40)
    return bool(words) and words[0] in _SUBORDINATORS


def _clauses(sentence: str) -> list[str]:
    """A sentence cut before each inner question (", how do I …", "… but can you …"); one that
    ends in a question mark also after its last comma (", any stretches you'd recommend?"). A sentence
    that ends in a closer (a Turkish request: istiyorum) is one request, its question words embedded."""
    cuts = [0]
    last = _WORD.findall(sentence[-40:])
    if last and fold_accents(last[-1]) in CLOSERS:  # a verb-final request holds its question words (…, hangi
        return [sentence.strip()] if sentence.strip() else []  # özelliklerin önemli olduğunu göstermek istiyorum)
    asked = sentence.rstrip().endswith(("?", "？"))
    if "," in sentence or not JOINERS.isdisjoint(sentence.split()):  # a relative pronoun opens a question only
        cuts += [m.end() for m in _INNER_BREAK.finditer(sentence)   # in a sentence that asks
                 if _opens(sentence[m.end() :]) and (asked or not _relative(sentence[m.end() :]))]
    comma = max(sentence.rfind(","), sentence.rfind("，"))
    if comma > cuts[-1] and asked and not _continues(sentence[comma + 1 :]):
        cuts.append(comma + 1)
    cuts.append(len(sentence))
    return [sentence[a:b].strip() for a, b in itertools.pairwise(cuts) if sentence[a:b].strip()]


def message_sentences(text: str) -> list[str]:
    """The sentences of a (normalised) message."""
    return sentences(text, _SENTENCE_END)


def clauses(text: str) -> list[str]:
    """The clauses of a (normalised) message: its sentences, each cut before an inner question."""
    return [clause for sentence in sentences(text, _SENTENCE_END) for clause in _clauses(sentence)]


def asks(clause: str) -> bool:
    """A question: a question mark, an opener at the start, a closer at the end, a CJK question or
    request marker, or an English question word with an auxiliary one or two words after it."""
    if clause.endswith(("?", "？")):
        return True
    words = _WORD.findall(clause)
    if words and (_phrase_at(words, 0, _OPENER_PHRASES) or fold_accents(words[-1]) in CLOSERS):
        return True
    if holds_cjk(clause) and _CJK_ASK.search(clause):
        return True
    if QUESTION_WORDS.isdisjoint(words):
        return False
    return any(word in QUESTION_WORDS and not AUXILIARIES.isdisjoint(words[k + 1 : k + 3])
               for k, word in enumerate(words))


def _content_words(text: str) -> set[str]:
    found = {w for w in _WORD.findall(CJK_RUN.sub(" ", text))
             if len(w) > 2 and w not in STOPWORDS and w not in FOREIGN_STOPWORDS}
    # A CJK run is written without spaces: each two characters of it, question and request markers
    # left out ("有什么方案" names one thing), stand for about a word.
    runs = CJK_RUN.findall(_CJK_ASK.sub(" ", text)) if holds_cjk(text) else ()
    return found | {run[k : k + 2] for run in runs if len(run) >= 2 for k in range(0, len(run) - 1, 2)}


def _points_inside(words: list[str], k: int) -> bool:
    """Word `k`, a pointing word, points inside the ask: a partitive ("one of them") or the "it" of
    "is it bad to …", "would it be ok to …", which stands for what follows."""
    before = words[k - 1] if k else ""
    if before == "of":
        return True
    return words[k] == "it" and before in _EXPLETIVE_BEFORE and "to" in words[k + 1 : k + 4]


def _points_back(word: str) -> bool:
    """An Indonesian listed word with the pointing suffix -nya (`grafiknya`: its chart)."""
    root = word[: -len(POINTING_SUFFIX)]
    return (word.endswith(POINTING_SUFFIX) and len(root) >= _POINTING_ROOT_MIN
            and LEXICON.words.get(fold_accents(root)) is not None)


def _stands_alone(ask: str) -> bool:
    """The asking part names two things or more and points back at nothing."""
    words = _WORD.findall(ask)
    if any(word in ANAPHORA and not _points_inside(words, k) for k, word in enumerate(words)):
        return False
    if any(_points_back(word) for word in words):
        return False
    if holds_cjk(ask) and _CJK_ANAPHORA.search(ask):
        return False
    return len(_content_words(ask)) >= MIN_ASK_WORDS


@lru_cache(maxsize=4096)
def request_focus(text: str) -> Focus:
    """Which part of `text` asks, and which only sets the scene (see the module's docstring)."""
    folded = normalize(text)
    if len(folded) > LONGEST_FOCUSED:
        return Focus(folded, "", "whole")
    pivot = _last_pivot(folded)
    if pivot is not None:
        scene = folded[: pivot[0]].strip()
        if _content_words(scene):
            return Focus(folded[pivot[1] :].strip(" \t\n,.:;!—–-…"), scene, "pivot")
    parts = clauses(folded)
    if len(parts) < 2:
        return Focus(folded, "", "whole")
    if asks(parts[0]):  # the question comes first: what follows details it, or sets a scene after it
        rest = parts[1:]
        if _stands_alone(parts[0]) and not any(asks(part) for part in rest):
            return Focus(parts[0], " ".join(rest), "question first")
        return Focus(folded, "", "whole")
    first = next((k for k, part in enumerate(parts) if k and asks(part)), 0)
    if first == 0:  # no question: an imperative or a description, all of it asks
        return Focus(folded, "", "whole")
    ask = " ".join(parts[first:])
    if not _stands_alone(ask):
        return Focus(folded, "", "whole")
    return Focus(ask, " ".join(parts[:first]), "question")
