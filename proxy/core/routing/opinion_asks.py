"""Asks for the model's own opinion: "do you think AI will replace data analysts?", "what do you think
about 4-day work weeks for engineering teams?", "honestly what's the point of code review if everyone
just clicks approve", "who would win, a senior dev with vim or a junior with copilot".

They name a skill's subject (analytics, teams, code review) but ask what the model thinks, which it
says by itself; no skill's instructions help. The router routes nothing for such an ask (it still
ranks the skills, for `list_skills`), unless the message asks for work too or writes a skill's full
name. An opinion asked of the user's own work is a review, and routes: "what do you think of our
schema?", "what's your take on this API design: …" hold my, our, this or a pasted piece and are no
opinion asks here.

Pure and deterministic, on the normalised (case-folded) ask; English for now.
"""

from __future__ import annotations

import re

LONGEST_OPINION_ASK = 300  # characters; a longer ask carries a task of its own

_OPINION = re.compile(
    r"^(?:honestly |genuinely |seriously |real talk:? |ok |so )?(?:"
    r"do you (?:think|believe|reckon|feel)|what do you (?:think|make) (?:about|of)|how do you feel about|"
    r"what(?:'s| is) your (?:take|opinion|view|hot take|favou?rite)|what(?:'s| is) the point of|"
    r"is it (?:worth|overrated|overhyped|just hype)|are [\w ]{1,30} (?:overrated|overhyped|worth it)|"
    r"who would win|which is (?:more fun|cooler|better to work with)|would you rather|"
    r"how common is it|is (?:that|this|it) (?:common|a red flag|a green flag|a good sign|a bad sign)|"
    r"do you ever|have you ever)\b"
)
# The ask is about the user's own work: then an opinion is a review ("what do you think of our schema?").
_THEIR_OWN = re.compile(r"\b(?:i|we|us|my|our|this|these|attached|below|here's|heres)\b|[:\n`{]")


def opinion_ask(ask: str) -> str:
    """The opener by which a (normalised) ask asks the model's own opinion, or ""."""
    if len(ask) > LONGEST_OPINION_ASK:
        return ""
    for sentence in re.split(r"(?<=[.?!])\s+", ask.strip()):
        match = _OPINION.match(sentence)
        if match is not None and _THEIR_OWN.search(sentence) is None:
            return match.group().strip()
    return ""
