"""What an add or an update does with each skill: install, replace, or leave it, and why.

What lives here: pure decisions. In: the candidates found in a fetched source (each already
listed and linted by the shell), what the root holds under each name (its lock entry, whether
its files still match it), where the new files come from, and `--force`. Out: one `Step` per
candidate. Nothing here touches the disk.

The rules, in order: a candidate with a problem (a lint error, a refused symlink) is refused;
one whose name cannot name a folder is refused; a second candidate of one name is refused; a
name free in the root is installed; a folder the lock does not list, or one installed from
another source, is refused unless forced; one whose files were edited since install is skipped
unless forced; then it is replaced, or left as it is when its files are the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from proxy.core.catalog.validation import name_problems
from proxy.core.install.lock import InstallMode, LockEntry

Action = Literal["install", "replace", "relock", "unchanged", "refuse", "skip"]
WRITES: tuple[Action, ...] = ("install", "replace", "relock")  # relock: the same files, a new commit in the lock
FAILS: tuple[Action, ...] = ("refuse", "skip")


@dataclass(frozen=True)
class Candidate:
    """A folder with a SKILL.md in a fetched source."""

    subpath: str  # the skill folder inside the repository or folder ("" for its top), POSIX
    folder_name: str  # its folder's own name (the repository's name for the top)
    skill_name: str | None  # the name it loads under; None when it cannot be loaded
    sha256: str = ""
    problem: str = ""  # why it cannot be installed; "" when it can
    warnings: tuple[str, ...] = ()  # lint warnings, `rule: message`

    @property
    def shown_name(self) -> str:
        return self.skill_name or self.folder_name

    def answers_to(self, wanted: str) -> bool:
        return wanted in (self.skill_name, self.folder_name)


@dataclass(frozen=True)
class Installed:
    """What a root holds under one name."""

    entry: LockEntry | None  # None: skills-lock.json does not list it
    present: bool  # its folder (or link) is there
    change: str = ""  # how its files differ from the lock entry; "" when they match


NOTHING = Installed(None, False)


@dataclass(frozen=True)
class Origin:
    """Where the new files come from."""

    source: str
    url: str
    ref: str | None
    commit: str | None
    mode: InstallMode


@dataclass(frozen=True)
class Step:
    candidate: Candidate
    action: Action
    name: str  # the folder it goes into (its shown name when refused before one was chosen)
    reason: str = ""


def chosen(candidates: Sequence[Candidate], wanted: Sequence[str]) -> tuple[Candidate, ...]:
    """The candidates `--skill` names (all when it names none)."""
    if not wanted:
        return tuple(candidates)
    return tuple(c for c in candidates if any(c.answers_to(name) for name in wanted))


def unmatched(candidates: Sequence[Candidate], wanted: Sequence[str]) -> tuple[str, ...]:
    return tuple(name for name in wanted if not any(c.answers_to(name) for c in candidates))


def folder_name_for(candidate: Candidate) -> str | None:
    """The skill's name if it can name a folder (the spec's rules), else its source folder's name, else None."""
    for name in (candidate.skill_name, candidate.folder_name):
        if name and not name_problems(name, name):
            return name
    return None


def plan_add(candidates: Sequence[Candidate], origin: Origin, held: Mapping[str, Installed],
             force: bool) -> tuple[Step, ...]:
    steps: list[Step] = []
    taken: dict[str, str] = {}
    for candidate in candidates:
        name = folder_name_for(candidate)
        if candidate.problem:
            steps.append(Step(candidate, "refuse", candidate.shown_name, candidate.problem))
        elif name is None:
            steps.append(Step(candidate, "refuse", candidate.shown_name,
                              f"neither its name {candidate.skill_name!r} nor its folder's follows the spec's "
                              "name rules (lowercase letters, digits and '-'), so neither can name its folder"))
        elif name in taken:
            steps.append(Step(candidate, "refuse", name, f"{taken[name] or '.'} in this source has the same name"))
        else:
            taken[name] = candidate.subpath
            steps.append(decide(candidate, name, origin, held.get(name, NOTHING), force))
    return tuple(steps)


def plan_update(name: str, entry: LockEntry, candidate: Candidate | None, commit: str | None,
                held: Installed, force: bool) -> Step:
    origin = Origin(entry.source, entry.url, entry.ref, commit, entry.mode)
    if candidate is None:
        gone = Candidate(entry.subpath, name, name)
        where = entry.subpath or "its top"
        return Step(gone, "refuse", name, f"the source has no SKILL.md at {where} any more; kept as it is")
    if candidate.problem:
        return Step(candidate, "refuse", name, f"{candidate.problem}; kept as it is")
    return decide(candidate, name, origin, held, force)


def decide(candidate: Candidate, name: str, origin: Origin, held: Installed, force: bool) -> Step:
    """The step for a candidate that may go into folder `name`, given what the root holds there."""
    if not held.present:
        return Step(candidate, "install", name, "its folder was gone; installed again" if held.entry else "")
    entry = held.entry
    if entry is None:
        return _forced_or(candidate, name, force, "--force: replaced a folder skills-lock.json did not list",
                          f"the root already holds a folder {name!r} that skills-lock.json does not list; "
                          "--force replaces it")
    if not entry.same_origin(origin.url, origin.ref, candidate.subpath):
        where = f"{entry.source} ({entry.subpath or '.'})"
        return _forced_or(candidate, name, force, f"--force: replaced the one from {where}",
                          f"already installed from {where}; --force replaces it")
    if held.change:
        if force:
            return Step(candidate, "replace", name, "--force: overwrote the edits")
        return Step(candidate, "skip", name, f"{held.change} (edited by hand?); --force overwrites them")
    if entry.sha256 == candidate.sha256 and entry.mode == origin.mode:
        return Step(candidate, "unchanged" if entry.commit == origin.commit else "relock", name)
    return Step(candidate, "replace", name)


def _forced_or(candidate: Candidate, name: str, force: bool, done: str, refused: str) -> Step:
    return Step(candidate, "replace", name, done) if force else Step(candidate, "refuse", name, refused)
