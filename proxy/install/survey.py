"""Each skill folder of a fetched source, listed and linted: the candidates an add or update decides on.

A folder is listed first (a symlink that leads out of the cloned tree refuses the skill before
any of its files is read), then loaded as the catalog would load it: a lint error (it cannot be
loaded) refuses it, warnings are kept to print.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from proxy.core.catalog.loader import load_skill
from proxy.core.catalog.paths import is_inside
from proxy.core.catalog.skill import Finding
from proxy.core.install.plan import Candidate, folder_name_for
from proxy.core.install.source import join_subpath
from proxy.core.install.tree import TreeFile, TreeRefused, file_digests, find_skill_folders, tree_files, tree_sha256
from proxy.install.fetch import Fetched

_FIXED_BY_INSTALL = "name-folder-mismatch"  # installed under its name, the folder then matches


@dataclass(frozen=True)
class Found:
    candidate: Candidate
    folder: Path
    files: tuple[TreeFile, ...] = ()
    digests: dict[str, str] = field(default_factory=dict)


def survey(fetched: Fetched) -> dict[str, Found]:
    """Every skill under the searched folder, by subpath from the top."""
    base = fetched.source.subpath
    found = (look_at(fetched, join_subpath(base, path)) for path in find_skill_folders(fetched.searched))
    return {item.candidate.subpath: item for item in found if item is not None}


def look_at(fetched: Fetched, subpath: str) -> Found | None:
    """The skill at `subpath` of the fetched tree; None when there is no SKILL.md there."""
    folder = fetched.top / subpath if subpath else fetched.top
    if not os.path.lexists(folder / "SKILL.md"):
        return None
    name = subpath.rsplit("/", 1)[-1] if subpath else fetched.source.repo_name
    top = Path(os.path.realpath(fetched.top))
    if not is_inside(Path(os.path.realpath(folder)), top):
        return _refused(folder, subpath, name, f"{subpath} leads outside the cloned tree (a symlink)")
    try:
        files = tree_files(folder, top)
    except TreeRefused as exc:
        return _refused(folder, subpath, name, str(exc))
    loaded = load_skill(folder, fetched.source.label)
    if isinstance(loaded, Finding):
        return _refused(folder, subpath, name, f"lint error: {loaded.rule}: {loaded.message.removesuffix('; skipped')}")
    digests = file_digests(files)
    candidate = Candidate(subpath, name, loaded.name, tree_sha256(digests))
    fixed = _FIXED_BY_INSTALL if folder_name_for(candidate) == loaded.name else ""
    warnings = tuple(f"{w.rule}: {w.message}" for w in loaded.warnings if w.rule != fixed)
    return Found(replace(candidate, warnings=warnings), folder, files, digests)


def _refused(folder: Path, subpath: str, name: str, problem: str) -> Found:
    return Found(Candidate(subpath, name, None, problem=problem), folder)
