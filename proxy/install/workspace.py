"""A root's own install folder (`.skillproxy/`) and its lock file, on disk.

`held(root)` makes the folders, takes the root's install lock (one add, update or remove at a
time; a second waits), empties the scratch folder a crashed command may have left, and empties
it again when done. Every temporary thing an install makes lives in that scratch folder, inside
the root, so a rename moves it into place and nothing is written outside the root.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from proxy.core.install.layout import MUTEX_FILE, SCRATCH_DIR, SOURCES_DIR
from proxy.core.install.lock import LOCK_FILE_NAME, Lock, parse_lock, render_lock

LOCK_FILE_MODE = 0o644  # a new lock is meant to be read (and committed) like any other file; an old one keeps its mode


@dataclass(frozen=True)
class Workspace:
    root: Path

    @property
    def scratch_dir(self) -> Path:
        return self.root / SCRATCH_DIR

    @property
    def sources_dir(self) -> Path:
        return self.root / SOURCES_DIR

    def scratch(self, prefix: str) -> Path:
        """A new empty folder in the scratch folder."""
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.scratch_dir))

    def read_lock(self) -> Lock:
        return read_lock(self.root)

    def write_lock(self, lock: Lock) -> None:
        """Write the lock whole, then rename it over the old one: a reader sees the old lock or the new."""
        path = self.root / LOCK_FILE_NAME
        handle, temporary = tempfile.mkstemp(prefix=".skills-lock.", dir=self.scratch_dir)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(render_lock(lock))
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else LOCK_FILE_MODE)
        os.replace(temporary, path)


def read_lock(root: Path) -> Lock:
    """The root's lock; an empty one when it has none. Raises LockError naming the file."""
    path = root / LOCK_FILE_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Lock()
    return parse_lock(text, str(path))


@contextmanager
def held(root: Path) -> Iterator[Workspace]:
    workspace = Workspace(root)
    workspace.scratch_dir.mkdir(parents=True, exist_ok=True)
    workspace.sources_dir.mkdir(parents=True, exist_ok=True)
    with open(root / MUTEX_FILE, "a") as mutex:
        fcntl.flock(mutex, fcntl.LOCK_EX)
        try:
            _empty(workspace.scratch_dir)
            yield workspace
        finally:
            _empty(workspace.scratch_dir)
            fcntl.flock(mutex, fcntl.LOCK_UN)


def _empty(folder: Path) -> None:
    for entry in folder.iterdir():
        discard(entry)


def discard(path: Path) -> None:
    """Remove a file, a link (never what it points to) or a folder tree."""
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)
