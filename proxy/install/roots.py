"""Which root an add writes into, and which roots hold installed skills."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from proxy.core.catalog.catalog import expand_root
from proxy.core.install.lock import LOCK_FILE_NAME


class RootError(Exception):
    """No root to install into; the message says which were tried."""


def install_root(given: str | None, configured: Sequence[str]) -> Path:
    """`given` (made if missing, when its parent exists), else the first configured root that is a writable folder."""
    if given is not None:
        return _given_root(expand_root(given).absolute())
    for root in configured:
        path = expand_root(root).absolute()
        if path.is_dir() and os.access(path, os.W_OK | os.X_OK):
            return path
    tried = ", ".join(configured) or "(none)"
    raise RootError(f"none of the configured roots is a writable folder ({tried}); give --root DIR")


def _given_root(path: Path) -> Path:
    try:
        path.mkdir(exist_ok=True)
    except OSError as exc:
        raise RootError(f"--root {path}: cannot make the folder ({exc.strerror or exc})") from None
    if not path.is_dir():
        raise RootError(f"--root {path}: not a folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise RootError(f"--root {path}: not writable")
    return path


def lock_roots(roots: Sequence[str]) -> list[Path]:
    """The roots holding a skills-lock.json, in root order."""
    paths = (expand_root(root).absolute() for root in roots)
    return [path for path in dict.fromkeys(paths) if (path / LOCK_FILE_NAME).is_file()]


def is_configured(root: Path, configured: Sequence[str]) -> bool:
    real = os.path.realpath(root)
    return any(os.path.realpath(expand_root(item)) == real for item in configured)
