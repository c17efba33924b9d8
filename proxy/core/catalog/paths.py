"""Paths inside a skill folder: resolving one safely, and listing what a folder holds.

What lives here: the rules that keep the skill tools inside a skill's folder.
A path is refused before it touches the disk when it is empty, absolute, home-
or drive-relative, holds a backslash, a `..` component, a control character or
a percent-encoded character; after that its real path (symlinks followed) must
lie inside the real skill folder, compared by path components, never by string
prefix. Names that merely look like dots (`....`, `．．`, `‥`) are plain file
names on POSIX: they are allowed and can only name something inside the folder.

What it must not know: tools, JSON, HTTP or logging.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

MAX_PATH_CHARS = 1024
SKIPPED_NAMES = frozenset({"__pycache__", "node_modules"})
_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")
_DRIVE = re.compile(r"^[A-Za-z]:")
_EXAMPLE = "give a path relative to the skill folder such as references/guide.md"


class PathRefused(ValueError):
    """A path a skill tool will not open; str(error) says why, in words a model can act on."""


def resolve_in_folder(folder: Path, relative: str) -> Path:
    """The real path of `relative` inside `folder`; raises PathRefused if it could lead outside."""
    _check_text(relative)
    base = real_folder(folder)
    try:
        target = Path(os.path.realpath(base / relative))
    except (OSError, ValueError) as exc:
        raise PathRefused(f"cannot resolve {relative!r} ({exc})") from exc
    if not is_inside(target, base):
        raise PathRefused(_escape_reason(base, relative))
    return target


def real_folder(folder: Path) -> Path:
    """The skill folder with every symlink resolved: the base all containment is checked against."""
    return Path(os.path.realpath(folder))


def is_inside(path: Path, base: Path) -> bool:
    """True when `path` is `base` or below it, by whole path components."""
    return path == base or path.is_relative_to(base)


def _check_text(relative: str) -> None:
    reason = _text_problem(relative)
    if reason:
        raise PathRefused(reason)


def _text_problem(relative: str) -> str | None:
    if not isinstance(relative, str) or not relative.strip():
        return f"the path is empty; {_EXAMPLE}"
    if len(relative) > MAX_PATH_CHARS:
        return f"the path is longer than {MAX_PATH_CHARS} characters"
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in relative):
        return "control characters (such as NUL or a newline) are not allowed in a path"
    if _ENCODED.search(relative):
        return "encoded characters are not allowed (such as %2e or %2f); write the path plainly"
    if "\\" in relative:
        return "backslashes are not allowed; separate folders with / as in references/guide.md"
    return _shape_problem(relative)


def _shape_problem(relative: str) -> str | None:
    if relative.startswith("/"):
        return f"absolute paths are not allowed; {_EXAMPLE}"
    if relative.startswith("~"):
        return f"home-relative paths (~) are not allowed; {_EXAMPLE}"
    if _DRIVE.match(relative):
        return f"drive paths such as C: are not allowed; {_EXAMPLE}"
    if ".." in relative.split("/"):
        return f"'..' is not allowed in a path; {_EXAMPLE}"
    return None


def _escape_reason(base: Path, relative: str) -> str:
    """Why a path with no `..` still resolved outside: name the first symlink that leads out."""
    current = base
    for part in (p for p in relative.split("/") if p not in ("", ".")):
        current = current / part
        if _leads_out(current, base):
            shown = current.relative_to(base).as_posix()
            return f"{shown} is a symlink that leads outside the skill folder"
    return f"{relative} leads outside the skill folder"


def _leads_out(path: Path, base: Path) -> bool:
    try:
        return path.is_symlink() and not is_inside(Path(os.path.realpath(path)), base)
    except (OSError, ValueError):
        return False


@dataclass(frozen=True)
class FileEntry:
    path: str  # relative to the skill folder, POSIX separators
    bytes: int


@dataclass(frozen=True)
class Listing:
    files: tuple[FileEntry, ...]
    truncated: bool  # max_entries reached or a folder lay deeper than max_depth
    unlisted_folders: tuple[str, ...]  # folders below max_depth, not opened


def list_files(folder: Path, start: Path, max_entries: int, max_depth: int) -> Listing:
    """Files under `start` (a folder inside the skill folder), breadth first, capped.

    Dot entries, __pycache__ and node_modules are skipped; symlinks whose real
    path lies outside the skill folder are omitted; a folder reached twice (a
    symlink loop) is opened once. Depth 1 is `start`'s own files. Paths are
    relative to the skill folder, so each can be given to read_skill_file.
    """
    base, start = real_folder(folder), Path(os.path.realpath(start))
    if not is_inside(start, base):
        return Listing((), False, ())
    walk = _Walk(base, max_entries, max_depth, seen={start})
    queue: deque[tuple[Path, int]] = deque([(start, 1)])
    while queue and not walk.full:
        here, depth = queue.popleft()
        queue.extend((sub, depth + 1) for sub in walk.visit(here, depth))
    return walk.listing()


@dataclass
class _Walk:
    base: Path
    max_entries: int
    max_depth: int
    seen: set[Path]
    files: list[FileEntry] = field(default_factory=list)
    unlisted: list[str] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return len(self.files) > self.max_entries  # one past the cap: proof that some were left out

    def visit(self, here: Path, depth: int) -> list[Path]:
        """Record `here`'s files; return its sub-folders still to open."""
        subfolders: list[Path] = []
        for entry in _entries(here):
            shown = Path(entry.path).relative_to(self.base).as_posix()
            kind, target, size = _classify(entry, self.base)
            if kind == "file":
                self.files.append(FileEntry(shown, size))
                if self.full:
                    break
            elif kind == "dir" and target not in self.seen:
                self.seen.add(target)
                if depth < self.max_depth:
                    subfolders.append(Path(entry.path))
                elif _entries(target):
                    self.unlisted.append(shown)
        return subfolders

    def listing(self) -> Listing:
        kept = sorted(self.files[:self.max_entries], key=lambda f: f.path)
        return Listing(tuple(kept), self.full or bool(self.unlisted), tuple(sorted(self.unlisted)))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """A folder's entries sorted by name, hidden and never-listed names left out."""
    try:
        with os.scandir(folder) as found:
            entries = [e for e in found if not e.name.startswith(".") and e.name not in SKIPPED_NAMES]
    except OSError:
        return []
    return sorted(entries, key=lambda e: e.name)


def _classify(entry: os.DirEntry[str], base: Path) -> tuple[str, Path, int]:
    """("file" | "dir" | "skip", real path, size): symlinks leading outside are "skip"."""
    try:
        target = Path(os.path.realpath(entry.path))
        if not is_inside(target, base):
            return "skip", target, 0
        info = os.stat(target)
    except (OSError, ValueError):
        return "skip", Path(entry.path), 0
    if stat.S_ISDIR(info.st_mode):
        return "dir", target, 0
    return ("file" if stat.S_ISREG(info.st_mode) else "skip"), target, info.st_size
