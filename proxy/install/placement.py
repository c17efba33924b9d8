"""Putting a skill into a root, taking one out, and checking an installed one against its lock entry.

A copy is made in the scratch folder from the files the plan listed (bytes only: a link in the
source becomes the file it points to, modes become 644 or 755), checked against the digest the
plan saw, then renamed into place. A folder already there is first renamed into the scratch
folder and deleted once the new one is in: a watcher may see the name missing for an instant,
never a half-copied folder. A `--link` install is a relative symlink made and moved the same way.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from proxy.core.install.layout import kept_clone_name, link_target
from proxy.core.install.lock import Lock, LockEntry
from proxy.core.install.plan import Installed
from proxy.core.install.source import repo_name
from proxy.core.install.tree import TreeFile, TreeRefused, file_digests, tree_files, tree_sha256
from proxy.install.fetch import Fetched
from proxy.install.workspace import Workspace, discard

MISMATCH = "its files no longer match skills-lock.json"


def copy_files(workspace: Workspace, files: Sequence[TreeFile], sha256: str) -> Path:
    staged = workspace.scratch("copy-") / "skill"
    staged.mkdir()
    for file in files:
        dest = staged.joinpath(*file.path.split("/"))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file.real, dest)
        os.chmod(dest, 0o755 if file.executable else 0o644)
    if tree_sha256(file_digests(tree_files(staged))) != sha256:
        raise TreeRefused("its files changed while they were copied; try again")
    return staged


def make_link(workspace: Workspace, target: str) -> Path:
    staged = workspace.scratch("link-") / "skill"
    os.symlink(target, staged, target_is_directory=True)
    return staged


def put_in_place(workspace: Workspace, name: str, staged: Path) -> None:
    dest = workspace.root / name
    old = None
    if os.path.lexists(dest):
        old = workspace.scratch("old-") / "skill"
        os.rename(dest, old)
    try:
        os.rename(staged, dest)
    except OSError:
        if old is not None:
            os.rename(old, dest)
        raise
    if old is not None:
        discard(old)


def take_out(workspace: Workspace, name: str) -> None:
    dest = workspace.root / name
    if os.path.lexists(dest):
        gone = workspace.scratch("removed-") / "skill"
        os.rename(dest, gone)
        discard(gone)


def clone_name_of(entry: LockEntry) -> str:
    return kept_clone_name(repo_name(entry.url), entry.url, entry.ref, entry.commit or "")


def keep_clone(workspace: Workspace, fetched: Fetched) -> str:
    """The kept clone's folder name for a `--link` install, copying the scratch clone there once."""
    if fetched.commit is None:
        raise TreeRefused("a local folder cannot be linked; it is copied")
    name = kept_clone_name(fetched.source.repo_name, fetched.source.url, fetched.source.ref, fetched.commit)
    dest = workspace.sources_dir / name
    if not dest.exists():
        staged = workspace.scratch("keep-") / "clone"
        shutil.copytree(fetched.top, staged, symlinks=True)
        staged.chmod(0o755)  # the scratch clone was made private; a kept clone is read like the root
        os.rename(staged, dest)
    return name


def drop_unused_clones(workspace: Workspace, lock: Lock) -> None:
    used = {clone_name_of(entry) for entry in lock.skills.values() if entry.mode == "link"}
    for folder in workspace.sources_dir.iterdir():
        if folder.name not in used:
            discard(folder)


def installed(root: Path, name: str, entry: LockEntry | None) -> Installed:
    """What the root holds under `name`, and (with a lock entry) how it differs from it."""
    present = os.path.lexists(root / name)
    if entry is None or not present:
        return Installed(entry, present)
    try:
        same = tree_sha256(installed_digests(root, name, entry)) == entry.sha256
    except TreeRefused as exc:
        return Installed(entry, True, str(exc))
    return Installed(entry, True, "" if same else MISMATCH)


def installed_digests(root: Path, name: str, entry: LockEntry) -> dict[str, str]:
    """Each installed file's sha256; raises TreeRefused when the install is not the shape it was made in."""
    path = root / name
    if entry.mode == "copy":
        if path.is_symlink():
            raise TreeRefused(f"{name} is a symlink now; it was installed as a copy")
        return file_digests(tree_files(path))
    clone = clone_name_of(entry)
    if not path.is_symlink() or os.readlink(path) != link_target(clone, entry.subpath):
        raise TreeRefused(f"{name} is no longer a link to its kept clone")
    return file_digests(tree_files(path, workspace_sources(root) / clone))


def workspace_sources(root: Path) -> Path:
    return Workspace(root).sources_dir
