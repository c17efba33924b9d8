"""Where installing keeps its own things inside a root: all under one dot-folder, never read as skills.

    <root>/skills-lock.json                      the lock
    <root>/.skillproxy/tmp/                      clones and copies being made (emptied by each command)
    <root>/.skillproxy/sources/<repo>-<key>-<commit>/   a kept clone, for skills installed with --link
    <root>/.skillproxy/install.lock              held while a command changes the root

The catalog never reads a dot-folder as a skill, so a kept clone is not found twice.
"""

from __future__ import annotations

import hashlib
import re

WORK_DIR = ".skillproxy"
SCRATCH_DIR = f"{WORK_DIR}/tmp"
SOURCES_DIR = f"{WORK_DIR}/sources"
MUTEX_FILE = f"{WORK_DIR}/install.lock"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def kept_clone_name(repo_name: str, url: str, ref: str | None, commit: str) -> str:
    """One folder per repository, ref and commit: a kept clone is never changed, only replaced."""
    key = hashlib.sha256(f"{url}#{ref or ''}".encode()).hexdigest()[:8]
    return f"{_UNSAFE.sub('-', repo_name).strip('.-')[:40] or 'repo'}-{key}-{commit[:12]}"


def link_target(clone_name: str, subpath: str) -> str:
    """What an installed link points to, relative to the root (so the root can move)."""
    return "/".join(part for part in (SOURCES_DIR, clone_name, subpath) if part)
