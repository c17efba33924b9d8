"""Which skills a request may use: allow and deny lists of names or globs.

The same rule serves the config (`enabled_skills`, `disabled_skills`) and a
request's `X-Skills-Allow` / `X-Skills-Deny` headers: a skill is in scope
when the allow list is unset or one of its patterns matches, and no deny
pattern matches. Patterns are shell globs (`sql-*`, `*-review`), compared
without regard to case, against the skill's name and its folder's name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from proxy.core.catalog.skill import Skill


@dataclass(frozen=True)
class SkillScope:
    """`allows`: lists a skill must match one pattern of, each; `deny`: patterns it must match none of."""

    allows: tuple[tuple[str, ...], ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def of(cls, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> SkillScope:
        return cls(() if allow is None else (tuple(allow),), tuple(deny))

    @property
    def is_everything(self) -> bool:
        return not self.allows and not self.deny

    def admits(self, skill: Skill) -> bool:
        names = (skill.name.casefold(), skill.folder_name.casefold())
        if not all(_matches_any(names, allow) for allow in self.allows):
            return False
        return not _matches_any(names, self.deny)

    def narrowed(self, other: SkillScope) -> SkillScope:
        """Both scopes at once: a request can narrow the configured scope, never widen it."""
        return SkillScope(self.allows + other.allows, self.deny + other.deny)


def _matches_any(names: tuple[str, ...], patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern.casefold()) for pattern in patterns for name in names)


def patterns_from_header(value: str | None) -> tuple[str, ...] | None:
    """`"pdf, sql-*"` -> ("pdf", "sql-*"); None when the header is absent."""
    if value is None:
        return None
    return tuple(part.strip() for part in value.split(",") if part.strip())


def scope_from_headers(allow: str | None, deny: str | None) -> SkillScope:
    return SkillScope.of(patterns_from_header(allow), patterns_from_header(deny) or ())
