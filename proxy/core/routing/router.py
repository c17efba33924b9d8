"""Deterministic, explainable skill routing.

What lives here: scoring the routable skills against a message through the
routing index (a shortlist picked on the message's selective terms, then every
term counted for it), turning raw evidence into a 0-100 score with a confidence
and readable reasons (scaled down when only one or two words of the message
matched, penalised by "not for" clauses, raised by the skill's name), and the
selection rule (every `high`, plus `medium` within 25 points of the top, at
most 3; ties by name).

What it must not know: HTTP, logging, how a decision is injected into a request.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from proxy.core.catalog.skill import Skill
from proxy.core.routing.everyday_topics import everyday_words
from proxy.core.routing.evidence import Evidence, Query, evidence, name_mentions, raw_scores, shortlist
from proxy.core.routing.fact_questions import asks_for_a_fact, only_brevity
from proxy.core.routing.fun_writing import fun_writing
from proxy.core.routing.languages import message_languages, other_language, skill_languages
from proxy.core.routing.opinion_asks import choice_ask, opinion_ask
from proxy.core.routing.personal_asks import personal_ask
from proxy.core.routing.query import QueryTerm, cap_text, split_query_terms, warm_lexicon
from proxy.core.routing.quick_questions import device_setting, quick_question
from proxy.core.routing.request_focus import message_sentences, request_focus
from proxy.core.routing.shared_news import (
    asks_for_work,
    opens_with_a_request_verb,
    requests_work,
    requests_work_outright,
    shares_news,
)
from proxy.core.routing.term_index import RoutingIndex, SkillMatches, build_index
from proxy.core.routing.terms import FIELD_BITS
from proxy.core.routing.tokens import normalize, plain_words, split_text

Confidence = Literal["high", "medium", "low"]

HIGH = 70
MEDIUM = 35
MEDIUM_WINDOW = 25
MAX_SELECTED = 3
CANDIDATES = 6  # ranked for the diagnostics: the 3 a route may select, and the next 3 it passed over
SHORTLIST_SLACK = 3  # extra skills fully scored beyond the candidates, so bonuses can reorder
# The shortlist is picked on the terms held by at most this share of the catalog (at least
# SHORTLIST_TERM_MIN skills); the shortlisted skills are then scored on every term.
SHORTLIST_TERM_SHARE = 0.06
SHORTLIST_TERM_MIN = 60
# Raw BM25F evidence → 0-100: score = 100 * (1 - exp(-raw / SCALE)).
SCALE = 20.0
EXACT_NAME_BONUS = 35
NAME_COVERAGE_BONUS = 20
# Evidence from one or two words of a message is weak ("what does SEO stand for?"): the raw
# score is scaled by how many distinct words of the message the skill matched.
BREADTH_FACTOR = (0.0, 0.4, 0.65, 0.85, 0.95, 1.0)
EXCLUSION_PENALTY = 0.5  # share of a term's weight taken away when a "not for" clause names it
# Terms met only in the scene a message sets, not in what it asks (request_focus.py), weigh
# SCENE_WEIGHT. A skill they alone match is not routed after a pivot ("… anyway, what's a good
# name for a puppy?"): it scores below MEDIUM. Before a question it keeps SCENE_ONLY_SHARE of its
# score: a question is often about the scene's object ("I have an Excel file of sales. How do I
# make a bar chart per month?"), so only a strong match stays routed.
SCENE_WEIGHT = 0.9
SCENE_ONLY_SHARE = 0.6
# An ask about everyday life (a cake, a puppy, a birthday: everyday_topics.py) routes a skill only
# on a match at least this strong; a weaker one is capped below MEDIUM.
EVERYDAY_MIN_SCORE = 60
# ... and a `high` one when the ask asks for no work: no clause of it opens with a request verb, it says
# it needs or wants nothing and reports no problem ("how should a beginner train for a half marathon?",
# not "it's my birthday but our celery workers keep dying, how do I find out why?").
EVERYDAY_LIFE_MIN_SCORE = HIGH
# A skill for another programming language than the ones a message names (a Java driver, for a
# python message: languages.py) keeps this share of its score.
OTHER_LANGUAGE_SHARE = 0.6


@dataclass(frozen=True)
class RouteCandidate:
    """A ranked skill; `reasons` say why, strongest first.

    The router's candidates write their reasons the first time they are read (`explained_later`):
    a route ranks ten and a search up to every skill, and most are never shown. The reasons come
    from what the candidate matched, kept with it, so they are the same whenever they are read.
    """

    skill: Skill
    score: int
    confidence: Confidence
    reasons: tuple[str, ...]

    @classmethod
    def explained_later(cls, skill: Skill, score: int, confidence: Confidence,
                        explain: Callable[[], tuple[str, ...]]) -> RouteCandidate:
        """A candidate whose `reasons` are `explain()`, called when first read."""
        candidate = object.__new__(cls)
        for name, value in (("skill", skill), ("score", score), ("confidence", confidence), ("_explain", explain)):
            object.__setattr__(candidate, name, value)
        return candidate

    if not TYPE_CHECKING:  # for the type checker, `reasons` is the field it is

        def __getattr__(self, name):
            """Only `reasons` of a candidate explained later, the first time (it is kept from then on)."""
            attributes = self.__dict__
            if name != "reasons" or ("_explain" not in attributes and "reasons" not in attributes):
                raise AttributeError(name)
            explain = attributes.get("_explain")
            if explain is None:  # another thread wrote them in the meantime
                return attributes["reasons"]
            reasons = explain()
            object.__setattr__(self, "reasons", reasons)
            attributes.pop("_explain", None)
            return reasons

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and copied with its reasons written."""
        return {"skill": self.skill, "score": self.score, "confidence": self.confidence, "reasons": self.reasons}


@dataclass(frozen=True)
class RouteDecision:
    selected: tuple[RouteCandidate, ...]  # what gets injected
    candidates: tuple[RouteCandidate, ...]  # top 6 ranked (selected included), for diagnostics
    query_terms: tuple[str, ...]

    @property
    def best_rejected(self) -> RouteCandidate | None:
        chosen = {id(c) for c in self.selected}
        return next((c for c in self.candidates if id(c) not in chosen), None)


def confidence_for(score: int) -> Confidence:
    if score >= HIGH:
        return "high"
    return "medium" if score >= MEDIUM else "low"


class _Scored(NamedTuple):
    """A shortlisted skill before its reasons are written (only the final candidates get them)."""

    position: int  # the skill's place in the catalog
    score: int
    skill: Skill
    evidence: Evidence
    prefix: tuple[str, ...]  # name reasons, first
    suffix: tuple[str, ...]  # penalties, last

    def candidate(self, query: Query, index: RoutingIndex) -> RouteCandidate:
        explain = partial(self.reasons, query, index.features[self.position].matches)
        return RouteCandidate.explained_later(self.skill, self.score, confidence_for(self.score), explain)

    def reasons(self, query: Query, matches: SkillMatches) -> tuple[str, ...]:
        found = self.evidence.reasons(query, matches)  # each once already
        if self.prefix or self.suffix:
            return tuple(dict.fromkeys((*self.prefix, *found, *self.suffix)))
        return tuple(found)


class _Reading(NamedTuple):
    """What the router read in a message, beyond its terms: the same for every skill it scores."""

    term_set: frozenset[str]  # every term: "not for" phrases are not indexed
    scene: frozenset[str] = frozenset()  # terms met only in the scene, not in what the message asks
    turned: bool = False  # the ask left the scene behind
    fact: bool = False  # it asks for a fact (fact_questions.py)
    everyday: tuple[str, ...] = ()  # the everyday words of its ask (everyday_topics.py)
    news: str = ""  # the word by which it only shares news (shared_news.py)
    fun: str = ""  # the piece of writing for fun it asks for (fun_writing.py)
    everyday_bar: int = EVERYDAY_MIN_SCORE  # the score an everyday ask needs to route a skill
    languages: frozenset[str] = frozenset()  # the programming languages it names (languages.py)
    personal: str = ""  # the phrase by which it asks how to feel or act toward a person (personal_asks.py)
    opinion: str = ""  # the opener by which it asks the model's own opinion (opinion_asks.py)
    quick: str = ""  # the opener of a quick question (quick_questions.py)


def _score(i: int, found: Evidence, bonus: float, index: RoutingIndex, reading: _Reading) -> _Scored:
    term_set, scene, turned, fact, everyday, news, fun, everyday_bar, languages, personal, opinion, quick = reading
    skill, features = index.skills[i], index.features[i]
    named = bonus  # the name written in what the message asks
    raw = found.raw * BREADTH_FACTOR[min(found.breadth, len(BREADTH_FACTOR) - 1)]
    prefix: tuple[str, ...] = ()
    suffix: tuple[str, ...] = ()
    if bonus:
        prefix = (f"exact:name={skill.name}",)
    elif len(features.name_terms) > 1 and features.name_terms <= term_set:
        bonus = NAME_COVERAGE_BONUS
        prefix = (f"lexical:name_all_tokens={skill.name}",)
    excluded = sorted(features.excluded & term_set)
    if excluded:
        raw *= 1 - EXCLUSION_PENALTY * min(1.0, len(excluded) / 3)
        suffix = (f"penalty:description_excludes={','.join(excluded)}",)
    score = min(100, round(100 * (1 - math.exp(-raw / SCALE)) + bonus))
    if score >= HIGH and not bonus and not _heads(found.terms, features.matches.where):
        score = HIGH - 1
        suffix = (*suffix, "penalty:matched_only_the_body")
    if scene and not named and found.terms and scene.issuperset(found.terms):
        # after a pivot, or before a question about everyday life, the ask left the scene behind
        score = min(score, MEDIUM - 1) if turned or everyday else round(score * SCENE_ONLY_SHARE)
        suffix = (*suffix, "penalty:matched_only_the_scene")
    elif (turned or everyday) and scene and not named and not scene.isdisjoint(found.terms) and not _heads(
            [term for term in found.terms if term not in scene], features.matches.where):
        # the ask that left the scene behind adds only words of the skill's body ("… anyway, is it normal
        # for a cat to sleep 16 hours a day?" meets `hour` in a dashboard skill's prose): the scene carries it
        score = min(score, MEDIUM - 1)
        suffix = (*suffix, "penalty:ask_matched_only_the_body")
    other = other_language(skill_languages(skill.name), languages) if languages else None
    if other and not named:
        score = round(score * OTHER_LANGUAGE_SHARE)
        suffix = (*suffix, f"penalty:for_another_language={other}")
    # Both scale every score below the bar into 0..MEDIUM-1, so the ranking (for `list_skills` and
    # the diagnostics) keeps its order while nothing under the bar is routed.
    if fact:
        score = _below_medium(score, 101)
        suffix = (*suffix, "penalty:asks_for_a_fact")
    elif (news or fun or personal or opinion) and not (named and len(features.name_terms) > 1
                                                       and features.name_terms <= term_set):
        # asks for nothing ("we just migrated from Jenkins to GitHub Actions and it feels like I can breathe"),
        # for a piece of fun whose topic a skill serves ("a limerick about our database migration"), how to
        # feel or talk to someone about it ("my grandma asked if I'm a criminal. what should I tell her?"), or
        # what the model thinks of it ("do you think AI will replace data analysts?")
        score = _below_medium(score, 101)
        suffix = (*suffix, _asks_nothing_of_a_skill(news, fun, personal, opinion))
    elif everyday and not (named and len(features.name_terms) > 1) and score < everyday_bar:
        score = _below_medium(score, everyday_bar)
        suffix = (*suffix, f"penalty:everyday_topic={everyday[0]}")
    elif quick and not (named and len(features.name_terms) > 1) and score < HIGH:
        # "how do I rename a column in a pandas dataframe": a line the model knows, unless a skill fits strongly
        score = _below_medium(score, HIGH)
        suffix = (*suffix, f"penalty:quick_question={quick}")
    return _Scored(i, score, skill, found, prefix, suffix)


def _asks_nothing_of_a_skill(news: str, fun: str, personal: str, opinion: str) -> str:
    """The reason a message that asks nothing of a skill gives, by the first shape it has."""
    if news:
        return f"penalty:shares_news={news}"
    if fun:
        return f"penalty:asks_for_fun_writing={fun}"
    return f"penalty:asks_how_to_feel_or_act={personal}" if personal else f"penalty:asks_an_opinion={opinion}"


def _below_medium(score: int, bar: int) -> int:
    """`score` (below `bar`) scaled into 0..MEDIUM-1, keeping the order of scores."""
    return score * (MEDIUM - 1) // bar


def _everyday_from_the_request_on(whole: str, everyday: tuple[str, ...]) -> tuple[str, ...]:
    """The everyday words of a message read whole from the first sentence that requests work on (it says
    what the user needs or wants, or opens with a request verb): the life told in the sentences before
    it is a scene ("Mới đi Đà Lạt về, mệt mà vui. Giờ cần viết chuỗi 5 email chào mừng …";
    "刚从云南旅游回来，晒黑了一圈。回到工作：老板让我做一张信息图")."""
    parts = message_sentences(whole)
    first = next((k for k, part in enumerate(parts) if requests_work_outright(part)), 0)
    return everyday_words(" ".join(parts[first:])) if first else everyday


def _names_something(terms: set[str], everyday: tuple[str, ...], postings: Mapping[str, object]) -> bool:
    """The ask names something of its own: a term of the catalog or a topic of everyday life. One that
    names neither ("¿Qué les mando y cuándo?") asks about the scene, which is then part of the ask."""
    return bool(everyday) or any(term in postings for term in terms)


# Words an ask uses without naming a topic of its own: "any creative ideas?", "is this normal?",
# "¿alguna idea?", "des conseils ?" ask about the scene before them.
_GENERIC_ASK = frozenset("""
any some idea ideas tip tips advice suggestion suggestions thought thoughts recommendation recommendations creative
good best normal crazy weird ok okay fine worth do say tell think should would could what how why is it this that me
you please pls help else now here there thing things way ways anything something suggest recommend
irgendwelche ideen idee tipps rat ratschläge alguna algún idea ideas consejo consejos sugerencias des idées idée
conseils dicas sugestões sugestoes alguma idee consigli идеи идея советы совет pomysły pomysł rady fikir öneri
tavsiye ide saran
""".split())


def _generic(ask: str) -> bool:
    """The ask's words are all generic (`_GENERIC_ASK`): what it asks about is the scene."""
    return plain_words(ask) <= _GENERIC_ASK


_HEAD_BITS = sum(FIELD_BITS[name] for name in ("name", "folder", "tags", "description", "referred", "use_when"))


def _heads(terms: Sequence[str], where: Mapping[str, int]) -> bool:
    """A matched term is in what the skill says of itself (name, tags, description, when to use), not
    only in its body."""
    return any(where.get(term, 0) & _HEAD_BITS for term in terms)


def select(ranked: Sequence[RouteCandidate], max_selected: int = MAX_SELECTED) -> tuple[RouteCandidate, ...]:
    """Every `high`, plus `medium` within 25 points of the top; at most `max_selected` (≤ 3)."""
    cap = max(0, min(max_selected, MAX_SELECTED))
    if not ranked or cap == 0:
        return ()
    top = ranked[0].score
    chosen = [c for c in ranked if c.score >= HIGH or (c.score >= MEDIUM and top - c.score <= MEDIUM_WINDOW)]
    return tuple(chosen[:cap])


class SkillRouter:
    """Ranks the model-invocable skills of one catalog against messages."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        self._index = build_index(skills)
        warm_lexicon()

    @property
    def index(self) -> RoutingIndex:
        return self._index

    def warm(self) -> SkillRouter:
        """Build now what the index otherwise builds on the first message that needs it (the loanword
        table, for the first Katakana or Hangul message: 0.1-1 s), so no request pays for it."""
        _ = self._index.loanwords
        return self

    def _rank(self, text: str, limit: int) -> tuple[tuple[RouteCandidate, ...], tuple[QueryTerm, ...]]:
        index = self._index
        capped = cap_text(text)
        split = split_text(capped)
        terms = split_query_terms(split, index)
        focus = request_focus(capped)
        scene: frozenset[str] = frozenset()
        ask_names = True  # the ask names a thing of its own (a term of the catalog, a topic of everyday life)
        asked = split
        postings = index.postings
        # "cake ideas for 12 people?", and the life a first question goes on to tell ("What's a good book on
        # negotiation? I'm buying a used car"); a scene before the ask is not read ("my dog chewed my
        # charger lol. anyway, can you write the migration …" asks for work)
        everyday = asked_everyday = everyday_words(focus.ask)
        if focus.scene:  # what the message asks outweighs the scene it sets
            ask_split = split_text(focus.ask)
            ask_terms = {t.term for t in split_query_terms(ask_split, index)}
            if focus.why == "question first":
                everyday = everyday_words(f"{focus.ask} {focus.scene}")
            # after a pivot ("btw", "anyway") the ask has left the scene, even when it names nothing the
            # router reads ("Ngomong-ngomong, kenapa daun monstera aku pada kuning ya?")
            ask_names = (focus.why == "pivot" or _names_something(ask_terms, asked_everyday, postings)) \
                and not _generic(focus.ask)
            if ask_names:
                asked = ask_split
                scene = frozenset(t.term for t in terms if t.term not in ask_terms)
                terms = tuple(QueryTerm(t.term, t.weight * SCENE_WEIGHT, t.via) if t.term in scene else t
                              for t in terms)
            else:  # it asks about the scene ("I'm planning to propose to my girlfriend. any creative ideas?"),
                # so the whole message asks, the life its scene tells included
                everyday = everyday_words(f"{focus.scene} {focus.ask}")
        known = [t for t in terms if t.term in postings]
        raw = raw_scores(known, index, max(SHORTLIST_TERM_MIN, int(len(index.skills) * SHORTLIST_TERM_SHARE)))
        if not raw:  # only common words: sum them all
            raw = raw_scores(known, index, len(index.skills))
            if not raw:
                return (), terms
        bonus = name_mentions(asked, index, EXACT_NAME_BONUS)  # a name met in the scene is no request for it
        chosen = shortlist(raw, bonus, limit + SHORTLIST_SLACK)
        query = Query.of(known, scene)
        # the ask left the scene behind: after a pivot, or when a question that asks for no work follows a
        # scene of everyday life ("Our marketing team is running a half marathon. how should a beginner train?")
        turned = focus.why == "pivot" or (bool(scene) and not everyday and bool(everyday_words(focus.scene))
                                          and not opens_with_a_request_verb(focus.ask))
        whole = normalize(capped)  # the message as the shape rules read it
        # "who invented …?": the model knows, no skill helps ("qu'est-ce qu'un webhook, en deux mots ?" asks it too)
        fact = asks_for_a_fact(whole if focus.scene and only_brevity(focus.ask) else focus.ask)
        news = shares_news(whole)  # "finally passed SOC 2 🎉": asks for nothing
        fun = fun_writing(focus.ask)  # "a limerick about our database migration": the model writes it alone
        # an everyday ask that asks for no work ("how do I ask for unpaid leave?") needs a stronger match than
        # one that does ("before I go to lunch: write a GitHub Actions workflow")
        if everyday and not focus.scene:
            everyday = _everyday_from_the_request_on(whole, everyday)
        bar = EVERYDAY_MIN_SCORE if not everyday or asks_for_work(focus.ask) else EVERYDAY_LIFE_MIN_SCORE
        reading = _Reading(frozenset(t.term for t in terms), scene, turned, fact, everyday, news, fun, bar,
                           message_languages(split.words), quick=quick_question(whole) or device_setting(whole))
        found = list(evidence(chosen, query, index))

        def score_all(reading: _Reading) -> list[_Scored]:
            return [_score(i, evidence_of, bonus.get(i, 0.0), index, reading) for i, evidence_of in found]

        scored = score_all(reading)
        if any(s.score >= MEDIUM for s in scored):  # only a route needs to know whether the ask is advice on
            # feelings and people ("how do I make my manager see it without bragging?") or an opinion
            personal = personal_ask(focus.ask)
            opinion = opinion_ask(focus.ask) or ("" if focus.scene else choice_ask(focus.ask))
            if not (personal or opinion) and focus.scene and not requests_work_outright(whole):
                # the opinion asked before a comma ("tu préfères quoi toi, PostgreSQL ou MySQL ?"), or the
                # curiosity said after the question; the feeling told in the scene when the ask names nothing
                # ("… my self-esteem is on the floor. did everyone go through this as a junior?"), and no
                # problem is reported
                opinion = opinion_ask(whole)
                personal = "" if opinion or ask_names or asks_for_work(whole) else personal_ask(whole)
            if (personal or opinion) and not requests_work(focus.ask):  # unless it asks for work too
                scored = score_all(reading._replace(personal=personal, opinion=opinion))
        name_order = index.name_order
        scored.sort(key=lambda s: (-s.score, name_order[s.position]))  # ties by name, then location
        return tuple(s.candidate(query, index) for s in scored[:limit]), terms

    def route(self, text: str, max_selected: int = MAX_SELECTED) -> RouteDecision:
        candidates, terms = self._rank(text, CANDIDATES)
        return RouteDecision(select(candidates, max_selected), candidates, tuple(t.term for t in terms))

    def search(self, query: str, limit: int = 10) -> tuple[RouteCandidate, ...]:
        """Ranking only, no thresholds (for a `list_skills` tool)."""
        ranked, _ = self._rank(query, max(0, limit))
        return ranked
