"""Asks about how to feel, or how to act toward a person: advice a model gives by itself.

"I write Solidity smart contracts for a living and my grandma asked if I'm a criminal. what should I
tell her?", "my PR got 47 comments from one reviewer, how do I not take it personally?", "I got our
AWS bill down by 60% and nobody noticed. how do I make my manager see it without bragging?" name a
skill's subject, but the work is done: what they ask is how to talk to someone or how to live with
a feeling, and no skill's instructions for smart contracts, reviews or cloud costs help. The router
routes nothing for such an ask (it still ranks the skills, for `list_skills`), unless the message
writes a skill's full name or asks for work as well ("… draft me the reply", "write the summary").

What marks one, in the languages the router reads:

- **talking to someone close, or above**: a verb of telling, explaining or convincing whose object
  is a person ("tell her", "explain it to my parents", "convince my boss", "make my manager see",
  "sag meiner Mutter", "decirle a mi jefe", "告诉我妈");
- **a feeling or a way to behave** as what is asked: "take it personally", "set boundaries", "without
  bragging", "am I overreacting", "how do I cope", "stop worrying", "switch off", "impostor", "is it
  rude to", "feel guilty"; "normal" only of a feeling ("is it normal to feel …"), since "is this
  normal?" after a log line asks about the system.

Narrow on purpose: each marker is a phrase, never a lone word a task uses ("review", "tell",
"manager", "team" are everywhere in work), and an ask that also asks for work is left alone. Pure
and deterministic, on the normalised (case-folded) ask.
"""

from __future__ import annotations

import re

from proxy.core.routing.tokens import CJK_RUN, plain_words

LONGEST_PERSONAL_ASK = 400  # characters; a longer ask carries a task of its own

# People one talks to about one's own life: family, partner, friends, and the people one reports to
# or works beside, as the object of telling ("tell my manager"), not as a report's audience.
_PEOPLE = (
    r"(?:her|him|them|my (?:mom|mum|mother|dad|father|parents|family|wife|husband|partner|girlfriend|boyfriend|"
    r"grandma|grandpa|grandmother|grandfather|kids?|son|daughter|sister|brother|friends?|roommate|in-laws|"
    r"manager|boss|lead|coworkers?|colleagues?|team ?mates?|skip(?:-| )level|cto|ceo|mentor|therapist)|"
    r"(?:the|our) (?:interviewer|recruiter|hiring manager))"
)
# The same, without the pronouns: "make them see the new column" is about a report's readers.
_CLOSE = _PEOPLE.replace("(?:her|him|them|", "(?:", 1)
_LATIN_PERSONAL = re.compile(
    # en: telling, explaining, convincing, to a person
    rf"\b(?:tell|say (?:to|it to|this to|that to)|explain (?:it |this |that |what i do |my job )?to|convince|persuade|"
    rf"talk to|break (?:it|the news) to|respond to|reply to|apologi[sz]e to|confront) {_PEOPLE}\b(?! apart)|"
    rf"\bmake {_CLOSE} (?:see|notice|understand|realize|realise|appreciate|care|listen)\b|"
    # en: feelings and ways to behave
    r"\b(?:take (?:it|this|that|criticism|feedback) personally|set (?:some )?boundaries|boundaries with|"
    r"without (?:bragging|sounding|coming across|looking like|seeming)|brag(?:ging)?\b|humble ?brag|"
    r"am i (?:overreacting|wrong|crazy|the only one|being (?:paranoid|dramatic|petty|unreasonable))|"
    r"how (?:do|can|should) i (?:cope|deal with (?:the (?:stress|guilt|anxiety|pressure)|my (?:boss|manager|"
    r"coworker|colleague|team ?mate))|stay (?:calm|motivated|sane)|not (?:panic|freak out|take|feel|get))|"
    r"cope with|stop (?:worrying|overthinking|thinking about (?:it|work)|feeling|"
    r"checking (?:my )?(?:phone|slack|email)s?)|"
    r"switch off|unplug from|impost[eo]r|feel(?:ing)? (?:guilty|bad|like a fraud|like a failure|stupid|useless|"
    r"left out|unappreciated|burned out|burnt out)|"
    r"is it (?:rude|weird|unprofessional|awkward|petty|selfish|okay|ok|bad) "
    r"(?:to|that|if) (?:i|me|ask|say|tell|feel|not)|is it normal to (?:feel|be|get|want|hate|miss)|"
    r"get (?:credit|recognition|noticed) for|be taken seriously|say no to (?:my|her|him|them)|"
    r"(?:celebrate|what should i do with) (?:it|this|my (?:free|extra) (?:time|afternoon|evening|day|weekend)))|"
    # de es fr pt
    r"\b(?:sag(?:e)? (?:ich )?(?:meiner|meinem|ihr|ihm)|erklär(?:e)? (?:ich )?(?:meiner|meinem|meinen) |"
    r"persönlich nehmen|grenzen setzen|(?:decirle|explicarle|contarle) a (?:mi|mis)|"
    r"le (?:digo|explico|cuento) a (?:mi|mis)|tomármelo personal|tomarlo personal|poner límites|"
    r"dire à (?:ma|mon|mes)|expliquer à (?:ma|mon|mes)|le prendre personnellement|poser des limites|"
    r"dizer (?:à|a|pra|para) (?:minha|meu|meus|minhas)|explicar (?:à|a|pra|para) (?:minha|meu|meus)|"
    r"levar para o pessoal|impor limites)\b"
)
# A word one of the Latin patterns cannot match without: most asks hold none, and cost a set test.
_LATIN_TRIGGERS = frozenset("""
tell say explain convince persuade talk break respond reply apologise apologize confront make personally boundaries
bragging brag humble humblebrag overreacting wrong crazy only paranoid dramatic petty unreasonable cope deal stay not
worrying overthinking thinking feeling checking switch unplug imposter impostor feel rude weird unprofessional awkward
selfish okay ok bad normal credit recognition noticed seriously celebrate do sag sage erklär erkläre persönlich grenzen
decirle explicarle contarle digo explico cuento tomármelo tomarlo límites dire expliquer personnellement limites
dizer explicar pessoal
""".split())
_CJK_PERSONAL = re.compile(
    r"(?:告诉|告訴|跟|和|向)(?:我)?(?:妈|媽|爸|父母|家人|老婆|老公|女朋友|男朋友|对象|對象|领导|領導|老板|老闆|上司)"
    r".{0,6}?(?:说|說|解释|解釋)|怎么跟.{0,6}?(?:解释|解釋|说|說)|(?:太|很)?(?:内耗|內耗)|冒名顶替|冒名頂替|"
    r"(?:母|父|親|両親|上司|彼女|彼氏|妻|夫)に.{0,8}?(?:説明|伝え|言え|話せ)|"
    r"(?:엄마|아빠|부모님|상사|팀장|여자친구|남자친구)(?:한테|에게|께).{0,8}?(?:설명|말|얘기)"
)


def personal_ask(ask: str) -> str:
    """The phrase by which a (normalised) ask asks how to feel or how to act toward a person, or ""."""
    if len(ask) > LONGEST_PERSONAL_ASK:
        return ""
    match = None
    if not _LATIN_TRIGGERS.isdisjoint(plain_words(ask)):
        match = _LATIN_PERSONAL.search(ask)
    if match is None and CJK_RUN.search(ask):
        match = _CJK_PERSONAL.search(ask)
    return match.group().strip() if match else ""
