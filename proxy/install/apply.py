"""Carrying out one planned step in a held root: the files first, then the skill's lock entry.

The lock is written after each skill, so a command stopped half way leaves a lock that
matches what is installed. A replace reports which files it changed, read from the installed
files before they go.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from proxy.core.install.changes import FileChanges, file_changes
from proxy.core.install.layout import link_target
from proxy.core.install.lock import LockEntry
from proxy.core.install.plan import FAILS, WRITES, Origin, Step
from proxy.core.install.tree import TreeRefused
from proxy.install.fetch import Fetched
from proxy.install.placement import copy_files, installed_digests, keep_clone, make_link, put_in_place
from proxy.install.survey import Found
from proxy.install.workspace import Workspace


@dataclass(frozen=True)
class Outcome:
    step: Step
    old_commit: str | None = None
    changes: FileChanges | None = None  # for a replace whose old files could be read
    error: str = ""  # what went wrong while carrying it out

    @property
    def failed(self) -> bool:
        return self.step.action in FAILS or bool(self.error)


def carry_out(workspace: Workspace, step: Step, found: Found | None, fetched: Fetched, origin: Origin) -> Outcome:
    if step.action not in WRITES or found is None:
        return Outcome(step)
    lock = workspace.read_lock()
    before = lock.skills.get(step.name)
    changes = _changes(workspace, step.name, before, found)
    try:
        if step.action != "relock" or origin.mode == "link":  # a link moves to the new commit's clone
            _place(workspace, step, found, fetched, origin)
    except (OSError, TreeRefused) as exc:
        return Outcome(step, error=f"not installed: {exc}")
    kept_since = before.installed_at if before is not None and step.action == "relock" else None
    entry = LockEntry(source=origin.source, url=origin.url, subpath=step.candidate.subpath,
                      sha256=step.candidate.sha256, commit=origin.commit, ref=origin.ref, mode=origin.mode,
                      installed_at=kept_since or _now())
    workspace.write_lock(lock.with_entry(step.name, entry))
    return Outcome(step, before.commit if before else None, changes)


def _place(workspace: Workspace, step: Step, found: Found, fetched: Fetched, origin: Origin) -> None:
    if origin.mode == "copy":
        staged = copy_files(workspace, found.files, step.candidate.sha256)
    else:
        staged = make_link(workspace, link_target(keep_clone(workspace, fetched), step.candidate.subpath))
    put_in_place(workspace, step.name, staged)


def _changes(workspace: Workspace, name: str, before: LockEntry | None, found: Found) -> FileChanges | None:
    if before is None:
        return None
    try:
        return file_changes(installed_digests(workspace.root, name, before), found.digests)
    except (OSError, TreeRefused):
        return None


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
