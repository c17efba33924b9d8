"""Asks for a piece of writing for fun: a poem, a joke, a song, a bedtime story.

"write a limerick about our database migration to aurora", "compose a haiku about prometheus
alerting rules", "Erzähl mir einen Witz über Datenbanken", "写一首关于数据库迁移的诗" name a skill's
subject, but only as the topic of the piece: the model writes it by itself, and a skill's
instructions for migrations or alerting rules do not help. The router routes nothing for such an
ask (it still ranks the skills, for `list_skills`), unless the message writes a skill's full name.

The kinds are the playful ones, in the fourteen languages the router reads: poems, haiku,
limericks, jokes, puns, riddles, songs, raps, fairy tales, bedtime and short stories, toasts. A
word that also names work is read only where it cannot: "story" (a user story) only as a "short",
"bedtime" or "funny" story, "toast" (a UI notification) only as a "wedding toast" or "a toast to",
"haiku" (a model) only after an article ("a haiku"), "wiersz" (Polish for a command line's line)
only as "wierszyk" or "wiersz o". A short ask only: a long one carries a task of its own.

Pure and deterministic, on the normalised (case-folded) ask.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import holds_cjk, plain_words

LONGEST_FUN_ASK = 300  # characters of the ask

_KIND = (
    r"poems?|haikus?|limericks?|jokes?|puns?|riddles?|songs?|raps?|sonnets?|odes?|ballads?|lullab(?:y|ies)|fables?|"
    r"fairy ?tales?|(?:bedtime|short|funny|sad|little) stor(?:y|ies)"
)
# Before "about", "on" or "for" without an article; not the kinds that name models ("use haiku for …").
_KIND_BEFORE_TOPIC = r"poems?|limericks?|jokes?|puns?|riddles?|songs?|raps?|odes?|ballads?|lullab(?:y|ies)|fables?"
_LATIN_FUN = re.compile(
    # en: a kind after an article or a word of size or mood ("a haiku", "some jokes", "a short poem"), or
    # before what it is about ("joke about microservices")
    rf"\b(?:a|an|another|some|few|two|three|short|little|funny|silly|cheesy|sad|quick|me)\s+(?:[^\W_]+\s+){{0,2}}"
    rf"(?:{_KIND})\b|\b(?:{_KIND_BEFORE_TOPIC})\s+(?:about|on|for)\b|\bwedding toast\b|\ba toast to\b|"
    # names for fun: a team's, a pet's, a nickname, a party's theme ("a funny team name for our data squad")
    r"\b(?:funny|silly|cool|fun|punny|nerdy|geeky) (?:[^\W_]+ )?(?:names?|nicknames?)\b|\bteam names?\b|"
    r"\bnicknames? for\b|\bparty theme\b|\bname (?:for )?(?:my|our) (?:new )?(?:dog|cat|puppy|kitten|pet|boat|wifi)\b|"
    r"\btoast for (?:my|our|the) (?:\S+ ){0,3}(?:wedding|farewell|birthday|retirement|party|anniversary)\b|"
    # de es fr pt it
    r"\b(?:gedicht|gedichte|witz|witze|märchen|reim|gutenachtgeschichte|poema|poemas|chiste|chistes|"
    r"canción|cancion|un cuento|poème|poèmes|poeme|blague|blagues|chanson|histoire drôle|un conte|piada|piadas|"
    r"canção|cancao|um conto|poesia|poesie|poesiola|barzelletta|barzellette|canzone|filastrocca|favola)\b|"
    # ru pl tr id vi
    r"\b(?:стих|стихи|стишок|стихотворение|анекдот|анекдоты|шутку|шутки|шутка|песню|песня|сказку|сказка|"
    r"wierszyk|wiersz o|żart|żarty|dowcip|kawał o|kawały|piosenkę|piosenka|bajkę|bajka|şiir|fıkra|şaka|şarkı|masal|"
    r"puisi|lelucon|pantun|dongeng|bài thơ|truyện cười|chuyện cười|bài hát|câu đùa|truyện cổ tích)\b"
)
_CJK_FUN = re.compile(
    r"一首.{0,16}?[诗詩歌]|写诗|寫詩|首诗|首詩|笑话|笑話|段子|打油诗|打油詩|绝句|絕句|顺口溜|順口溜|一首歌|睡前故事|童话|童話|"
    # Korean words stand apart: 시를 (a poem) is not the end of 표시를 (a display), 동화 (a fairy tale) not of
    # 자동화 (automation)
    r"詩を|俳句|川柳|ジョーク|冗談|ダジャレ|(?<![가-힣])시(?:를| 한 편| 하나| 좀| 써)|삼행시|농담|노래|(?<![가-힣])동화"
)
# A word one of the Latin patterns cannot match without: most asks hold none, and cost a set test.
_LATIN_TRIGGERS = frozenset("""
poem poems haiku haikus limerick limericks joke jokes pun puns riddle riddles song songs rap raps sonnet sonnets ode
odes ballad ballads lullaby lullabies fable fables fairy fairytale fairytales story stories toast name names nickname
nicknames theme kawał kawały chuyện
gedicht gedichte witz witze märchen reim gutenachtgeschichte poema poemas chiste chistes canción cancion cuento
poème poèmes poeme blague blagues chanson histoire conte piada piadas canção cancao conto poesia poesie poesiola
barzelletta barzellette canzone filastrocca favola стих стихи стишок стихотворение анекдот анекдоты шутку шутки
шутка песню песня сказку сказка wierszyk wiersz żart żarty dowcip piosenkę piosenka bajkę bajka şiir fıkra şaka şarkı
masal puisi lelucon pantun dongeng thơ cười hát đùa tích
""".split())


def fun_writing(ask: str) -> str:
    """The kind of playful writing a (normalised) ask asks for ("limerick"), or ""."""
    if len(ask) > LONGEST_FUN_ASK:
        return ""
    match = None
    if not _LATIN_TRIGGERS.isdisjoint(plain_words(ask)):
        match = _LATIN_FUN.search(ask)
    if match is None and holds_cjk(ask):
        match = _CJK_FUN.search(ask)
    return match.group().strip() if match else ""
