"""Bringing a source's tree within reach: a shallow clone into the root's scratch folder, or a local folder as is.

A folder source is read where it is (never written). A subpath must lie inside the tree, by its
real path, and be a folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from proxy.core.catalog.paths import is_inside
from proxy.core.install.source import Source
from proxy.install.git import GitError, shallow_clone
from proxy.install.workspace import Workspace


class FetchError(Exception):
    """A source that could not be fetched or read; the message says which and why."""


@dataclass(frozen=True)
class Fetched:
    source: Source  # a folder source with its path made absolute
    top: Path  # the repository's (or folder's) top: lock subpaths are relative to it
    commit: str | None  # None for a local folder
    clone: Path | None  # the scratch clone, None for a local folder

    @property
    def short_commit(self) -> str:
        return self.commit[:7] if self.commit else "-"

    @property
    def searched(self) -> Path:
        """Where skills are looked for: the top, or the folder SOURCE named inside it."""
        return self.top / self.source.subpath if self.source.subpath else self.top


def absolute_folder(source: Source) -> Source:
    if source.kind != "folder":
        return source
    path = str(Path(os.path.expanduser(source.url)).resolve())
    return replace(source, url=path, label=path)


def fetch(source: Source, workspace: Workspace) -> Fetched:
    if source.kind == "folder":
        top = Path(source.url)
        if not top.is_dir():
            raise FetchError(f"{source.url}: no such folder")
        fetched = Fetched(source, top, None, None)
    else:
        clone = workspace.scratch("clone-")
        try:
            commit = shallow_clone(source.url, source.ref, clone)
        except GitError as exc:
            raise FetchError(str(exc)) from None
        fetched = Fetched(source, clone, commit, clone)
    _check_searched(fetched)
    return fetched


def _check_searched(fetched: Fetched) -> None:
    if not fetched.source.subpath:
        return
    real = Path(os.path.realpath(fetched.searched))
    at = f" at {fetched.short_commit}" if fetched.commit else ""
    if not is_inside(real, Path(os.path.realpath(fetched.top))):
        raise FetchError(f"{fetched.source.subpath} in {fetched.source.label}{at} leads outside it (a symlink)")
    if not real.is_dir():
        raise FetchError(f"{fetched.source.label}{at} has no folder {fetched.source.subpath}")
