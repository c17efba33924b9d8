"""Where each installed skill of some roots came from, and whether its files still match the lock: for `list`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from proxy.core.catalog.catalog import expand_root
from proxy.core.install.lock import LOCK_FILE_NAME, LockEntry, LockError
from proxy.core.install.plan import Installed
from proxy.install.placement import installed
from proxy.install.workspace import read_lock


@dataclass(frozen=True)
class InstallStatus:
    name: str
    root: str
    entry: LockEntry
    state: Installed

    @property
    def origin(self) -> str:
        return f"{self.entry.source}@{self.entry.short_commit}" if self.entry.commit else self.entry.source

    @property
    def verdict(self) -> str:
        """`ok`, `MODIFIED` (the files differ from the lock) or `missing` (the lock lists a folder that is gone)."""
        if not self.state.present:
            return "missing"
        return "MODIFIED" if self.state.change else "ok"


@dataclass(frozen=True)
class Statuses:
    by_folder: dict[str, InstallStatus]  # keyed by the skill folder's absolute path
    problems: tuple[str, ...]  # locks that could not be read

    def of(self, folder: os.PathLike[str] | str) -> InstallStatus | None:
        return self.by_folder.get(os.path.abspath(folder))

    @property
    def missing(self) -> list[InstallStatus]:
        return [status for status in self.by_folder.values() if not status.state.present]


def install_statuses(roots: Sequence[str]) -> Statuses:
    found: dict[str, InstallStatus] = {}
    problems: list[str] = []
    for label in roots:
        root = expand_root(label).absolute()
        if not (root / LOCK_FILE_NAME).is_file():
            continue
        try:
            lock = read_lock(root)
        except (LockError, OSError) as exc:
            problems.append(str(exc))
            continue
        for name, entry in sorted(lock.skills.items()):
            found[os.path.abspath(root / name)] = InstallStatus(name, label, entry, installed(root, name, entry))
    return Statuses(found, tuple(problems))
