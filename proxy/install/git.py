"""The system's `git`, run for an install: a shallow clone and the commit it holds, nothing else.

Nothing from the repository runs: hooks are off (`core.hooksPath=/dev/null` for the clone and
in its config, and no template folder is copied, so not even the user's template hooks are
there), submodules are not fetched, and only the transports `proxy.core.install.source`
allows ever reach here. git never waits for a person: `GIT_TERMINAL_PROMPT=0`, ssh in batch
mode, stdin closed, and a timeout. An error names the command and quotes git's last words.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

GIT_TIMEOUT_SECONDS = 300.0
_STDERR_LINES = 4
_SAFE_CONFIG = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "protocol.ext.allow=never",
    "-c", "submodule.recurse=false",
)


class GitError(Exception):
    """git could not do what was asked; the message says which command and why."""


def shallow_clone(url: str, ref: str | None, dest: Path, timeout: float = GIT_TIMEOUT_SECONDS) -> str:
    """Clone `url` (at branch or tag `ref`, else its default branch) into the empty folder `dest`; its commit."""
    branch = ["--branch", ref] if ref else []
    _run(["clone", "--quiet", "--depth", "1", "--single-branch", "--no-recurse-submodules", "--template=",
          "--config", "core.hooksPath=/dev/null", *branch, "--", url, str(dest)],
         f"git clone {url}" + (f" (branch {ref})" if ref else ""), timeout)
    return head_commit(dest, timeout)


def head_commit(repo: Path, timeout: float = GIT_TIMEOUT_SECONDS) -> str:
    return _run(["-C", str(repo), "rev-parse", "HEAD"], f"git rev-parse HEAD in {repo}", timeout).strip()


def git_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["GIT_TERMINAL_PROMPT"] = "0"
    if "GIT_SSH_COMMAND" not in env and "GIT_SSH" not in env:
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    return env


def _run(args: Sequence[str], what: str, timeout: float) -> str:
    try:
        done = subprocess.run(["git", *_SAFE_CONFIG, *args], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, errors="replace", timeout=timeout, env=git_environment(), check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH); fetching a git source needs it") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"{what}: no answer within {timeout:g} s; stopped") from None
    if done.returncode != 0:
        raise GitError(f"{what} failed (exit {done.returncode}): {_last_words(done.stderr)}")
    return done.stdout


def _last_words(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return " / ".join(lines[-_STDERR_LINES:]) or "git printed nothing"
