"""Which files an update adds, removes and changes: two `{path: sha256}` maps in, one summary out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SHOWN_PATHS = 4  # per kind; the count always says how many


@dataclass(frozen=True)
class FileChanges:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def summary(self) -> str:
        """`1 changed (SKILL.md), 1 added (references/rates.md)`, or `no file changed`."""
        parts = [_part(kind, paths) for kind, paths in
                 (("changed", self.changed), ("added", self.added), ("removed", self.removed)) if paths]
        return ", ".join(parts) or "no file changed"


def _part(kind: str, paths: tuple[str, ...]) -> str:
    shown = ", ".join(paths[:SHOWN_PATHS]) + (", …" if len(paths) > SHOWN_PATHS else "")
    return f"{len(paths)} {kind} ({shown})"


def file_changes(old: Mapping[str, str], new: Mapping[str, str]) -> FileChanges:
    return FileChanges(
        added=tuple(sorted(set(new) - set(old))),
        removed=tuple(sorted(set(old) - set(new))),
        changed=tuple(sorted(path for path in set(old) & set(new) if old[path] != new[path])),
    )
