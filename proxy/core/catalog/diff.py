"""What changed between two catalogs: the `catalog_reloaded` log line and the reload metrics.

What lives here: `catalog_changes(old, new)`, two `Catalog` values in, one
`CatalogChanges` value out. Skills are matched by name; a skill is *changed*
when anything the proxy knows about it differs, its SKILL.md text included
(through `Skill.source_sha256`), so an edit to the body alone counts. A renamed
skill is one removed and one added.

What must not: read files, log, or know who is told about the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proxy.core.catalog.catalog import Catalog

MAX_LOGGED_NAMES = 50  # per list; the counts always say how many there were


@dataclass(frozen=True)
class CatalogChanges:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]
    skills: int
    skills_before: int
    skipped: int
    missing_roots: tuple[str, ...]

    @property
    def any(self) -> bool:
        """Whether a skill came, went or changed."""
        return bool(self.added or self.removed or self.changed)

    def log_fields(self) -> dict[str, Any]:
        """The `catalog_reloaded` line: the names (at most MAX_LOGGED_NAMES of each) and the counts."""
        return {
            "added": _names(self.added), "removed": _names(self.removed), "changed": _names(self.changed),
            "counts": {"added": len(self.added), "removed": len(self.removed), "changed": len(self.changed)},
            "skills": self.skills, "skills_before": self.skills_before, "skipped": self.skipped,
            "missing_roots": list(self.missing_roots),
        }


def catalog_changes(old: Catalog, new: Catalog) -> CatalogChanges:
    before = {skill.name: skill for skill in old.skills}
    after = {skill.name: skill for skill in new.skills}
    kept = before.keys() & after.keys()
    return CatalogChanges(
        added=tuple(sorted(after.keys() - before.keys())),
        removed=tuple(sorted(before.keys() - after.keys())),
        changed=tuple(sorted(name for name in kept if before[name] != after[name])),
        skills=len(new.skills),
        skills_before=len(old.skills),
        skipped=len(new.skipped),
        missing_roots=new.missing_roots,
    )


def _names(names: tuple[str, ...]) -> list[str]:
    if len(names) <= MAX_LOGGED_NAMES:
        return list(names)
    return [*names[:MAX_LOGGED_NAMES], f"... and {len(names) - MAX_LOGGED_NAMES} more"]
