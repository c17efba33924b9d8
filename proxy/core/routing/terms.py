"""One skill's routing terms: analysed once per skill content, reused by every index build.

What lives here: the half of the routing index that depends on one skill only:
the terms of each routing field (name, folder, tags, description with
when_to_use, body headings, the body's opening, its "When to use" section, its
prose), counted, with the body's routing text and the name/folder/tag words a
typo could stand for. `skill_terms` keeps the analysis of the skills it saw,
keyed by the `Skill` value (whose `source_sha256` covers the body), so after
one SKILL.md changes a rebuild re-reads and re-tokenises that skill alone; the
cheap global parts (field lengths, document frequencies, BM25F weights) are
then summed again from these parts by `routing_index`.

What it must not know: other skills (the "referred" field, what other skills'
descriptions send here, is counted by `referred_counts` per build), document
frequencies, weights or queries.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import lru_cache
from typing import NamedTuple

from proxy.core.catalog.skill import Skill
from proxy.core.routing.fields import BodyText, read_body_text, split_redirects
from proxy.core.routing.tokens import phrases, terms

# Enough for every skill of a big catalog and the versions just replaced; an entry is a
# few kilobytes of term counts.
CACHED_SKILLS = 4096
_EXCLUSION = re.compile(
    r"(?:\bnot for\b|\bdo not use\b|\bdon't use\b|\bdoes not (?:cover|handle|do)\b|\bnot intended for\b)"
    r"[^.;\n]*",
    re.IGNORECASE,
)
_TYPO_FIELDS = ("name", "folder", "tags")
# Words that make a name but say nothing about the task ("neo4j-cypher-skill").
NAME_FILLER = frozenset({"skill", "skills", "pattern", "patterns", "guide", "tool", "tools"})


# The routing fields in the order reasons name them, and each field's bit in a "found in" set.
FIELDS = ("name", "folder", "tags", "description", "headings", "referred", "opening", "use_when", "body")
FIELD_BITS = {name: 1 << n for n, name in enumerate(FIELDS)}


class FieldCounts(NamedTuple):
    """One routing field of one skill: each term and how often it occurs (first occurrence first).

    `fresh`/`fresh_counts` are the terms no earlier field of the skill has, `again` the others:
    summing a skill's fields in order then needs a lookup only for the few repeated terms."""

    field: str
    counts: tuple[tuple[str, int], ...]
    length: int  # terms in the field, repeats included (BM25's document length)
    fresh: tuple[str, ...] = ()
    fresh_counts: tuple[int, ...] = ()
    again: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class SkillTerms:
    """Everything routing needs about one skill that no other skill changes."""

    body: BodyText
    fields: tuple[FieldCounts, ...]  # in `skill_fields` order, without "referred"
    where: Mapping[str, int] = dataclass_field(compare=False)  # term → bits of the fields holding it (no "referred")
    typo_vocab: tuple[str, ...]  # name, folder and tag terms of 4+ letters a typo could stand for
    name_terms: frozenset[str]  # informative name terms (filler words removed)
    avoid: frozenset[str]  # terms of "not for …" clauses and phrases of "When not to use" sections


def split_exclusions(description: str) -> tuple[str, str]:
    """(positive text, "not for …" clauses) of a description."""
    excluded = " ".join(m.group(0) for m in _EXCLUSION.finditer(description))
    return _EXCLUSION.sub(" ", description), excluded


def field_terms(text: str) -> list[str]:
    return terms(text) + phrases(text)


def skill_fields(skill: Skill, body: BodyText = BodyText(), referred: str = "") -> dict[str, list[str]]:
    """The terms of each routing field of one skill (`referred`: what other skills send here)."""
    positive, _ = split_exclusions(split_redirects(skill.routing_description)[0])
    fields = {
        "referred": field_terms(referred),
        "name": field_terms(skill.name),
        "tags": [t for tag in skill.tags for t in field_terms(tag)],
        "description": field_terms(positive),
        "headings": [t for h in skill.headings for t in field_terms(h)],
        "opening": field_terms(body.opening),
        "use_when": field_terms(body.use_when),
        "body": terms(body.prose),
    }
    folder = field_terms(skill.folder_name)
    if set(folder) != set(fields["name"]):
        fields["folder"] = folder
    return fields


def counted(field: str, words: list[str]) -> FieldCounts:
    return FieldCounts(field, tuple(Counter(words).items()), len(words))


def _split_fresh(fields: list[FieldCounts]) -> tuple[tuple[FieldCounts, ...], dict[str, int]]:
    """The fields with their fresh and repeated terms told apart, and where each term is."""
    where: dict[str, int] = {}
    split: list[FieldCounts] = []
    for field in fields:
        fresh = [(term, count) for term, count in field.counts if term not in where]
        again = tuple((term, count) for term, count in field.counts if term in where)
        split.append(field._replace(fresh=tuple(t for t, _ in fresh), fresh_counts=tuple(c for _, c in fresh),
                                    again=again))
        bit = FIELD_BITS[field.field]
        for term, _ in field.counts:
            where[term] = where.get(term, 0) | bit
    return tuple(split), where


@lru_cache(maxsize=CACHED_SKILLS)
def skill_terms(skill: Skill) -> SkillTerms:
    """The analysis of one skill (its SKILL.md body read once), cached by the skill's value."""
    body = read_body_text(skill.skill_file)
    fields = skill_fields(skill, body)
    del fields["referred"]
    vocab = {t for k in _TYPO_FIELDS for t in fields.get(k, ()) if len(t) >= 4 and " " not in t}
    _, excluded = split_exclusions(skill.routing_description)
    # Whole phrases only from a body's "When not to use": its single words are often the skill's own topic.
    avoid = frozenset(terms(excluded)) | frozenset(phrases(body.avoid_when))
    split, where = _split_fresh([counted(k, words) for k, words in fields.items()])
    return SkillTerms(body, split, where, tuple(sorted(vocab)), frozenset(terms(skill.name)) - NAME_FILLER, avoid)


@lru_cache(maxsize=CACHED_SKILLS)
def referred_counts(text: str) -> FieldCounts:
    """The "referred" field of a skill: the topics other skills' descriptions send to it."""
    return counted("referred", field_terms(text))


def clear_term_cache() -> None:
    """Forget every kept analysis (for a from-scratch build, as tests compare with)."""
    skill_terms.cache_clear()
    referred_counts.cache_clear()


@lru_cache(maxsize=1024)
def field_names(bits: int) -> tuple[str, ...]:
    """The fields of a bit set, in FIELDS order (name first, body last)."""
    return tuple(name for name, bit in FIELD_BITS.items() if bits & bit)


# The first field of every bit set, in FIELDS order, by its bits: `field_names(bits)[0]` without a call.
FIRST_FIELD = ("", *(FIELDS[(bits & -bits).bit_length() - 1] for bits in range(1, 1 << len(FIELDS))))
