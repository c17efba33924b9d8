"""`skills-lock.json`: where each installed skill of a root came from, and the digest of its files.

    {"version": 1,
     "skills": {"pdf-forms": {"source": "acme/skills", "url": "https://github.com/acme/skills.git",
                              "ref": null, "subpath": "skills/pdf-forms", "commit": "5c1f0e2…",
                              "sha256": "…", "mode": "copy", "installed_at": "2025-01-31T09:12:03Z"}}}

Written sorted and indented, so the same lock is always the same bytes and a change is a small
diff. `commit` is null for a skill copied from a local folder. Keys this version does not know
are kept as they were. A lock of a newer version is refused, never rewritten.

What it must not know: the disk (text in, text out), git, the command line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

LOCK_FILE_NAME = "skills-lock.json"
LOCK_VERSION = 1
InstallMode = Literal["copy", "link"]
_FIELDS = ("source", "url", "ref", "subpath", "commit", "sha256", "mode", "installed_at")
_REQUIRED = ("source", "url", "subpath", "sha256")


class LockError(ValueError):
    """A lock file that cannot be used; the message names the file and the reason."""


@dataclass(frozen=True)
class LockEntry:
    source: str
    url: str
    subpath: str
    sha256: str
    commit: str | None = None
    ref: str | None = None
    mode: InstallMode = "copy"
    installed_at: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)  # keys a newer version added

    def same_origin(self, url: str, ref: str | None, subpath: str) -> bool:
        return (self.url, self.ref, self.subpath) == (url, ref, subpath)

    @property
    def short_commit(self) -> str:
        return self.commit[:7] if self.commit else "-"


@dataclass(frozen=True)
class Lock:
    skills: Mapping[str, LockEntry] = field(default_factory=dict)

    def with_entry(self, name: str, entry: LockEntry) -> Lock:
        return Lock({**self.skills, name: entry})

    def without(self, name: str) -> Lock:
        return Lock({key: value for key, value in self.skills.items() if key != name})


def parse_lock(text: str, where: str) -> Lock:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise LockError(f"{where}: expected a JSON object with \"version\" and \"skills\"")
    version = data.get("version")
    if version != LOCK_VERSION:
        newer = isinstance(version, int) and version > LOCK_VERSION
        hint = "; it was written by a newer skillproxy" if newer else ""
        raise LockError(f"{where}: version {version!r} is not one this skillproxy reads ({LOCK_VERSION}){hint}")
    skills = data.get("skills", {})
    if not isinstance(skills, dict):
        raise LockError(f"{where}: \"skills\" must be an object of name to entry")
    return Lock({str(name): _entry(entry, f"{where}: skill {name!r}") for name, entry in skills.items()})


def _entry(data: Any, where: str) -> LockEntry:
    if not isinstance(data, dict):
        raise LockError(f"{where}: expected an object")
    missing = [key for key in _REQUIRED if not isinstance(data.get(key), str)]
    if missing:
        raise LockError(f"{where}: {', '.join(missing)} missing or not text")
    for key in ("commit", "ref", "installed_at"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise LockError(f"{where}: {key} must be text or null")
    mode = data.get("mode", "copy")
    if mode not in ("copy", "link"):
        raise LockError(f"{where}: mode must be \"copy\" or \"link\", not {mode!r}")
    return LockEntry(source=data["source"], url=data["url"], subpath=data["subpath"], sha256=data["sha256"],
                     commit=data.get("commit"), ref=data.get("ref"), mode=mode,
                     installed_at=data.get("installed_at"),
                     extra={key: value for key, value in data.items() if key not in _FIELDS})


def render_lock(lock: Lock) -> str:
    """The lock as JSON: `version` first, then the skills by name, each entry's keys sorted."""
    skills = {name: _entry_json(lock.skills[name]) for name in sorted(lock.skills)}
    return json.dumps({"version": LOCK_VERSION, "skills": skills}, indent=2, ensure_ascii=False) + "\n"


def _entry_json(entry: LockEntry) -> dict[str, Any]:
    merged = {**entry.extra, **{key: getattr(entry, key) for key in _FIELDS}}
    return {key: merged[key] for key in sorted(merged)}
