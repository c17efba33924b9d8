"""The catalog: every skill under an ordered list of roots.

A root's direct sub-folders holding SKILL.md are skills (symlinked folders are
followed; dot-folders and node_modules never are). The same name in two roots:
the earlier root wins and the other is kept as shadowed. A missing root is
skipped silently. Built once; the shell decides when to build it again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from proxy.core.skill import Finding, Skill
from proxy.core.skill_scope import SkillScope
from proxy.core.skill_files import DEFAULT_MAX_FILE_BYTES
from proxy.core.skill_loader import load_skill

_NEVER_SKILLS = frozenset({"node_modules", "__pycache__"})


@dataclass(frozen=True)
class ShadowedSkill:
    skill: Skill
    winner: Skill


@dataclass(frozen=True)
class Catalog:
    roots: tuple[str, ...]
    skills: tuple[Skill, ...]
    shadowed: tuple[ShadowedSkill, ...] = ()
    skipped: tuple[Finding, ...] = ()

    @cached_property
    def _by_name(self) -> dict[str, Skill]:
        return {skill.name: skill for skill in self.skills}

    @cached_property
    def _by_folded_name(self) -> dict[str, Skill]:
        index: dict[str, Skill] = {}
        for skill in self.skills:
            index.setdefault(skill.name.casefold(), skill)
        return index

    @cached_property
    def _by_folder(self) -> dict[str, Skill]:
        index: dict[str, Skill] = {}
        for skill in self.skills:
            index.setdefault(skill.folder_name.casefold(), skill)
        return index

    def get(self, name: str) -> Skill | None:
        """Resolve a name: exact, then case-insensitive, then by folder name."""
        folded = name.casefold()
        return self._by_name.get(name) or self._by_folded_name.get(folded) or self._by_folder.get(folded)

    def scoped(self, scope: SkillScope) -> Catalog:
        """The catalog with only the skills `scope` admits (shadowed and skipped ones kept for lint)."""
        if scope.is_everything:
            return self
        return replace(self, skills=tuple(skill for skill in self.skills if scope.admits(skill)))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(skill.name for skill in self.skills)

    def shadowed_by(self, skill: Skill) -> Skill | None:
        for entry in self.shadowed:
            if entry.skill is skill:
                return entry.winner
        return None

    def all_skills(self) -> tuple[Skill, ...]:
        """Loaded skills and the shadowed ones, in root order."""
        order = {root: i for i, root in enumerate(self.roots)}
        everything = [*self.skills, *(entry.skill for entry in self.shadowed)]
        return tuple(sorted(everything, key=lambda s: (order.get(s.root, len(order)), s.folder_name)))

    def findings(self) -> tuple[Finding, ...]:
        """Every warning and error, in root order: what `lint` prints."""
        found: list[Finding] = []
        for skill in self.all_skills():
            found.extend(skill.warnings)
            winner = self.shadowed_by(skill)
            if winner is not None:
                found.append(Finding(skill.location, "shadowed",
                                     f"skill {skill.name!r} is shadowed by {winner.location} (an earlier root wins)"))
        found.extend(self.skipped)
        return tuple(found)


def load_catalog(roots: Sequence[str | Path], max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Catalog:
    skills: list[Skill] = []
    shadowed: list[ShadowedSkill] = []
    skipped: list[Finding] = []
    winners: dict[str, Skill] = {}
    labels = tuple(str(root) for root in roots)
    for label in labels:
        for folder in skill_folders(expand_root(label)):
            loaded = load_skill(folder, label, max_file_bytes)
            if isinstance(loaded, Finding):
                skipped.append(loaded)
            elif loaded.name in winners:
                shadowed.append(ShadowedSkill(loaded, winners[loaded.name]))
            else:
                winners[loaded.name] = loaded
                skills.append(loaded)
    return Catalog(labels, tuple(skills), tuple(shadowed), tuple(skipped))


def expand_root(root: str | Path) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(str(root))))


def skill_folders(root: Path) -> list[Path]:
    """Direct sub-folders of `root` holding a SKILL.md, sorted by name; [] for a missing root."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    folders = [Path(entry.path) for entry in entries if _may_be_skill(entry.name)]
    return sorted((f for f in folders if _is_skill_folder(f)), key=lambda f: f.name)


def _may_be_skill(name: str) -> bool:
    return not name.startswith(".") and name not in _NEVER_SKILLS


def _is_skill_folder(folder: Path) -> bool:
    try:
        return folder.is_dir() and (folder / "SKILL.md").is_file()
    except OSError:
        return False


def watch_paths(catalog: Catalog) -> tuple[Path, ...]:
    """What a watcher must watch to see every change: the roots and the real folders of linked skills."""
    paths: list[Path] = [expand_root(root) for root in catalog.roots]
    paths.extend(_linked_targets(catalog.all_skills()))
    return tuple(dict.fromkeys(paths))


def _linked_targets(skills: Iterable[Skill]) -> list[Path]:
    return [skill.folder.resolve() for skill in skills if skill.folder.is_symlink()]


def change_signature(roots: Sequence[str | Path]) -> tuple[tuple[str, int], ...]:
    """Modification times of the roots, skill folders and SKILL.md files.

    A cheap way to tell whether anything changed since a catalog was built; the
    watcher uses it once when a watch starts, never per request.
    """
    stamps: list[tuple[str, int]] = []
    for root in roots:
        path = expand_root(root)
        stamps.append((str(path), _mtime(path)))
        for folder in skill_folders(path):
            stamps.append((str(folder), _mtime(folder)))
            stamps.append((str(folder / "SKILL.md"), _mtime(folder / "SKILL.md")))
    return tuple(stamps)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1
