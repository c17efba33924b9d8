"""The files of a skill folder as an install sees them, their sha256, and where skills lie in a tree.

What lives here: `tree_files(folder, boundary)` lists every regular file under a skill folder by
its path relative to the folder; `tree_sha256` digests such a listing (the lock records it);
`find_skill_folders` finds every folder holding a SKILL.md under a cloned tree.

Symlinks: with a `boundary` (the cloned tree, or a kept clone) a symlink is followed when its
real path lies inside the boundary, and refused when it leads out; without one (an installed
copy, which holds none) every symlink is refused. A FIFO, a device or a socket is refused too.
`.git`, `__pycache__` and `.DS_Store` are neither listed, copied nor digested: a script run from
an installed skill leaves `__pycache__` behind, which is not an edit.

What it must not know: git, the lock file's format, the command line.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from proxy.core.install.layout import WORK_DIR

IGNORED_NAMES = frozenset({".git", "__pycache__", ".DS_Store"})
MAX_SKILL_FILES = 5_000
MAX_SKILL_BYTES = 64 * 1024 * 1024
MAX_SEARCH_DEPTH = 8  # folders below a tree's top searched for SKILL.md
MAX_SKILLS_FOUND = 2_000
_CHUNK = 1024 * 1024
_NOT_SEARCHED = IGNORED_NAMES | {"node_modules", WORK_DIR}


class TreeRefused(ValueError):
    """A skill folder that cannot be installed or checked as it is; the message names the path and why."""


@dataclass(frozen=True)
class TreeFile:
    path: str  # relative to the skill folder, POSIX separators
    real: Path  # where its bytes are read
    size: int
    executable: bool


def tree_files(folder: Path, boundary: Path | None = None) -> tuple[TreeFile, ...]:
    """Every file under `folder`, sorted by path; raises TreeRefused for a symlink or special file it may not take."""
    walk = _Walk(Path(os.path.realpath(boundary)) if boundary is not None else None)
    walk.folder(Path(folder), "", frozenset({os.path.realpath(folder)}))
    return tuple(sorted(walk.files, key=lambda f: f.path))


class _Walk:
    def __init__(self, boundary: Path | None) -> None:
        self.boundary = boundary
        self.files: list[TreeFile] = []
        self.total = 0

    def folder(self, here: Path, prefix: str, chain: frozenset[str]) -> None:
        try:
            names = sorted(os.listdir(here))
        except OSError as exc:
            raise TreeRefused(f"{prefix or '.'}: cannot list the folder ({exc.strerror or exc})") from None
        for name in names:
            if name not in IGNORED_NAMES:
                self.entry(here / name, f"{prefix}{name}", chain)

    def entry(self, path: Path, shown: str, chain: frozenset[str]) -> None:
        real = self._followed(path, shown)
        info = _stat(real, shown)
        if stat.S_ISDIR(info.st_mode):
            key = os.path.realpath(real)
            if key in chain:
                raise TreeRefused(f"{shown} is a symlink loop (it leads back to a folder that holds it)")
            self.folder(real, shown + "/", chain | {key})
        elif stat.S_ISREG(info.st_mode):
            self.add(TreeFile(shown, real, info.st_size, bool(info.st_mode & 0o111)))
        else:
            raise TreeRefused(f"{shown} is not a regular file or folder (a FIFO, device or socket)")

    def _followed(self, path: Path, shown: str) -> Path:
        if not path.is_symlink():
            return path
        if self.boundary is None:
            raise TreeRefused(f"{shown} is a symlink; an installed copy holds none")
        target = Path(os.path.realpath(path))
        if not (target == self.boundary or target.is_relative_to(self.boundary)):
            raise TreeRefused(f"{shown} is a symlink that leads outside the cloned tree (to {target})")
        return target

    def add(self, file: TreeFile) -> None:
        self.files.append(file)
        self.total += file.size
        if len(self.files) > MAX_SKILL_FILES:
            raise TreeRefused(f"more than {MAX_SKILL_FILES} files; too many for a skill")
        if self.total > MAX_SKILL_BYTES:
            raise TreeRefused(f"more than {MAX_SKILL_BYTES // (1024 * 1024)} MiB of files; too big for a skill")


def _stat(path: Path, shown: str) -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as exc:
        raise TreeRefused(f"{shown}: cannot read it ({exc.strerror or exc})") from None


def file_digests(files: Iterable[TreeFile]) -> dict[str, str]:
    """Each file's sha256 by its path: what the tree digest is made of, and what an update compares."""
    return {file.path: file_sha256(file.real) for file in files}


def tree_sha256(digests: Mapping[str, str]) -> str:
    """The folder's digest (the lock's `sha256`): sha256 over one line `path NUL file-sha256` per file, in path
    order. Paths and bytes only: modes and times are left out."""
    digest = hashlib.sha256()
    for path in sorted(digests):
        digest.update(f"{path}\0{digests[path]}\n".encode())
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def find_skill_folders(top: Path) -> list[str]:
    """Paths (relative to `top`, POSIX, "" for `top` itself) of every folder holding a SKILL.md, sorted.

    Symlinked folders are not entered (a skill reached through one is found where it really is),
    nor `.git`, `node_modules` or `.skillproxy` (a root's own install folder), nor anything below a
    skill's own folder. Other dot-folders are: repositories keep skills in `.claude/skills/` too.
    """
    found: list[str] = []
    stack: list[tuple[Path, str, int]] = [(top, "", 0)]
    while stack and len(found) < MAX_SKILLS_FOUND:
        here, shown, depth = stack.pop()
        if os.path.lexists(here / "SKILL.md"):
            found.append(shown)
            continue
        if depth < MAX_SEARCH_DEPTH:
            stack.extend((here / name, f"{shown}/{name}".lstrip("/"), depth + 1) for name in _subfolders(here))
    return sorted(found)


def _subfolders(here: Path) -> list[str]:
    try:
        with os.scandir(here) as entries:
            return [e.name for e in entries if e.is_dir(follow_symlinks=False) and e.name not in _NOT_SEARCHED]
    except OSError:
        return []
