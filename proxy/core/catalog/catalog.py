"""The catalog: every skill under an ordered list of roots.

A root's direct sub-folders holding SKILL.md are skills (symlinked folders are
followed; dot-folders and node_modules never are). A SKILL.md that cannot be
read (a folder, a FIFO, a dangling link, a link loop) is skipped with a finding.
The same name in two roots: the earlier root wins and the other is kept as
shadowed. A missing root is skipped silently. Built once; the shell decides
when to build it again.

A root that was there and is gone (renamed, deleted, an unmounted disk) would
otherwise take its skills away mid-conversation: given the `previous` catalog,
the rebuild keeps that root's skills from it and names the root in
`missing_roots`, until the root can be listed again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from proxy.core.catalog.files import DEFAULT_MAX_FILE_BYTES
from proxy.core.catalog.loader import load_skill
from proxy.core.catalog.scope import SkillScope
from proxy.core.catalog.skill import Finding, Skill

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
    missing_roots: tuple[str, ...] = ()  # roots that vanished: their skills are the previous catalog's

    @cached_property
    def _winners(self) -> dict[int, Skill]:
        return {id(entry.skill): entry.winner for entry in self.shadowed}

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

    def has_root(self, root: str) -> bool:
        return any(skill.root == root for skill in self.all_skills())

    def from_root(self, root: str) -> tuple[Skill, ...]:
        """The skills (loaded and shadowed) found under `root`, in folder order."""
        return tuple(skill for skill in self.all_skills() if skill.root == root)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(skill.name for skill in self.skills)

    def shadowed_by(self, skill: Skill) -> Skill | None:
        return self._winners.get(id(skill))  # by identity: the shadowed entries hold these very objects

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


def load_catalog(roots: Sequence[str | Path], max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 previous: Catalog | None = None) -> Catalog:
    """Every skill under `roots`; with `previous`, a root that cannot be listed keeps its skills from it."""
    labels = tuple(str(root) for root in roots)
    builder = _Builder()
    missing: list[str] = []
    for label in labels:
        folders = _listed_skill_folders(expand_root(label))
        if folders is None and previous is not None and previous.has_root(label):
            missing.append(label)
            builder.add_all(previous.from_root(label))
            continue
        for folder in folders or ():
            builder.add(load_skill(folder, label, max_file_bytes))
    return Catalog(labels, tuple(builder.skills), tuple(builder.shadowed), tuple(builder.skipped), tuple(missing))


class _Builder:
    """Collects loaded skills in root order: the first of a name wins, later ones are shadowed."""

    def __init__(self) -> None:
        self.skills: list[Skill] = []
        self.shadowed: list[ShadowedSkill] = []
        self.skipped: list[Finding] = []
        self._winners: dict[str, Skill] = {}

    def add(self, loaded: Skill | Finding) -> None:
        if isinstance(loaded, Finding):
            self.skipped.append(loaded)
        elif loaded.name in self._winners:
            self.shadowed.append(ShadowedSkill(loaded, self._winners[loaded.name]))
        else:
            self._winners[loaded.name] = loaded
            self.skills.append(loaded)

    def add_all(self, kept: tuple[Skill, ...]) -> None:
        for skill in kept:
            self.add(skill)


def expand_root(root: str | Path) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(str(root))))


def skill_folders(root: Path) -> list[Path]:
    """Direct sub-folders of `root` holding a SKILL.md (readable or not), sorted by name; [] for a missing root."""
    return _listed_skill_folders(root) or []


def _listed_skill_folders(root: Path) -> list[Path] | None:
    """Like `skill_folders`, but None when the root itself cannot be listed (missing, not a folder, unreadable)."""
    try:
        with os.scandir(root) as entries:
            folders = [Path(entry.path) for entry in entries if _may_be_skill(entry.name)]
    except OSError:
        return None
    return sorted((f for f in folders if _holds_skill_file(f)), key=lambda f: f.name)


def _may_be_skill(name: str) -> bool:
    return not name.startswith(".") and name not in _NEVER_SKILLS


def _holds_skill_file(folder: Path) -> bool:
    """True when `folder/SKILL.md` is there in any form, or cannot be looked at (loading then says why).

    A plain file, a missing entry or a dangling folder link is simply not a skill.
    """
    try:
        os.lstat(folder / "SKILL.md")
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # a link loop, a folder we may not enter: reported as unreadable
    return True


def watch_paths(catalog: Catalog) -> tuple[Path, ...]:
    """What a watcher must watch to see every change: the roots and the real folders of linked skills."""
    paths: list[Path] = [expand_root(root) for root in catalog.roots]
    paths.extend(_linked_targets(catalog.all_skills()))
    return tuple(dict.fromkeys(paths))


def _linked_targets(skills: Iterable[Skill]) -> list[Path]:
    targets: list[Path] = []
    for skill in skills:
        try:
            if skill.folder.is_symlink():
                targets.append(skill.folder.resolve(strict=True))
        except (OSError, RuntimeError):  # gone or turned into a loop since it was loaded
            continue
    return targets


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
