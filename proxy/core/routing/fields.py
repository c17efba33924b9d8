"""The routing text a SKILL.md body offers beyond its frontmatter.

What lives here: splitting a Markdown body into sections (code fences, tables
and link lists dropped) and picking the parts that say what a skill is for: the
opening lines (intro and overview), the "When to use" section, the "When not to
use" clauses (kept apart so they never count for a skill) and the rest of the
prose, capped. Skill authors follow these conventions widely; nothing here
knows any particular skill.

What it must not know: terms, weights or scores. Pure functions, plus one
file read per skill (the frontmatter is skipped, not parsed: the catalog did that).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from proxy.core.catalog.files import read_capped

OPENING_CHARS = 700
USE_WHEN_CHARS = 1500
PROSE_CHARS = 6000
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_USE = re.compile(r"\b(when to use|use cases?|use this skill|when to apply|applicable|use it when|usage scenarios)\b",
                  re.I)
_OVERVIEW = re.compile(r"^(overview|purpose|introduction|about|what (this|it) (is|does))\b", re.I)
_NOT = re.compile(r"\b(not|don'?t|avoid|never|skip)\b|\bnon-?applicable\b", re.I)
# Sections that point elsewhere (other skills, files, links) say nothing about this skill's task.
_ELSEWHERE = re.compile(r"\b(related|see also|references?|resources|further reading|links|bundled|scripts|files)\b",
                        re.I)
# An inline turn inside a "when to use" section: "**Not suitable for:**", "Don't use when …".
_NOT_LINE = re.compile(
    r"^\W*(not (suitable|for|intended|recommended|ideal)|do ?n[o']t use|don'?t use|avoid|skip|when not)\b", re.I)


# "For landing page copy, see copywriting." / "For standard posters, use latex-posters instead."
_REDIRECT = re.compile(
    r"\bfor\s+(?P<topic>[^.;:\n]+?),?\s+(?:see|use|try)\s+(?:the\s+)?[`'\"]?(?P<target>[a-z0-9][\w.-]*[a-z0-9])[`'\"]?"
    r"(?:\s+skill)?(?:\s+instead)?(?=\s*(?:[.;,)\n]|$))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Redirect:
    """A description clause that sends a topic to another skill."""

    topic: str
    target: str  # the other skill's name as written


def split_redirects(description: str) -> tuple[str, tuple[Redirect, ...]]:
    """(the description without its "for X, see Y" clauses, those clauses)."""
    found = tuple(Redirect(m.group("topic"), m.group("target")) for m in _REDIRECT.finditer(description))
    return (_REDIRECT.sub(" ", description), found) if found else (description, ())


@dataclass(frozen=True)
class Section:
    title: str
    level: int
    lines: tuple[str, ...]  # prose lines only


@dataclass(frozen=True)
class BodyText:
    opening: str = ""
    use_when: str = ""
    avoid_when: str = ""
    prose: str = ""


def _prose_line(line: str) -> str | None:
    stripped = line.strip()
    if not stripped or stripped.startswith(("|", "<", "---", "***", "===", "![")):
        return None
    return stripped


def sections(body: str) -> list[Section]:
    """The body's sections in order; the text before the first heading is level 0."""
    found: list[Section] = []
    title, level, fenced = "", 0, False
    lines: list[str] = []
    for line in body.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.append(Section(title, level, tuple(lines)))
            title, level, lines = match.group(2).strip(), len(match.group(1)), []
        elif not fenced and (prose := _prose_line(line)) is not None:
            lines.append(prose)
    found.append(Section(title, level, tuple(lines)))
    return found


def _subtree(parts: list[Section], start: int) -> list[Section]:
    """A section and the deeper sections under it."""
    level = parts[start].level
    end = next((j for j in range(start + 1, len(parts)) if parts[j].level <= level), len(parts))
    return parts[start:end]


def _split_not(parts: list[Section]) -> tuple[list[str], list[str]]:
    """(use lines, not-use lines) of a "when to use" subtree, split at inline turns."""
    use: list[str] = []
    avoid: list[str] = []
    for part in parts:
        negative = bool(_NOT.search(part.title))
        for line in part.lines:
            if _NOT_LINE.match(line):
                negative = True
            (avoid if negative else use).append(line)
    return use, avoid


def _opening(parts: list[Section]) -> str:
    first_h2 = next((i for i, p in enumerate(parts) if p.level >= 2), len(parts))
    lines = [line for p in parts[:first_h2] for line in p.lines]
    for p in parts[first_h2:]:
        if _OVERVIEW.match(p.title):
            lines.extend(p.lines)
            break
    return " ".join(lines)[:OPENING_CHARS]


def body_text(body: str) -> BodyText:
    """The routing parts of a SKILL.md body (frontmatter already removed)."""
    parts = sections(body)
    use: list[str] = []
    avoid: list[str] = []
    skip: set[int] = set()
    for i, part in enumerate(parts):
        if i in skip or not part.title:
            continue
        if _USE.search(part.title) or (_NOT.search(part.title) and re.search(r"\buse\b", part.title, re.I)):
            tree = _subtree(parts, i)
            skip.update(range(i, i + len(tree)))
            if _NOT.search(part.title):
                avoid.extend(line for p in tree for line in p.lines)
            else:
                u, a = _split_not(tree)
                use.extend(u)
                avoid.extend(a)
    prose = [line for i, p in enumerate(parts) if i not in skip and not _ELSEWHERE.search(p.title) for line in p.lines]
    return BodyText(_opening(parts), " ".join(use)[:USE_WHEN_CHARS], " ".join(avoid), " ".join(prose)[:PROSE_CHARS])


def strip_frontmatter(text: str) -> str:
    """The body of a SKILL.md: everything after a leading `---` … `---` block (no YAML parsing)."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return "\n".join(lines)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
    return "\n".join(lines[end + 1 :]) if end else ""


def read_body_text(skill_file: Path) -> BodyText:
    """`body_text` of a SKILL.md on disk; empty when it cannot be read."""
    try:
        return body_text(strip_frontmatter(read_capped(skill_file).text))
    except OSError:
        return BodyText()
