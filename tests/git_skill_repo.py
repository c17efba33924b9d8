"""A real git repository of skills for the install tests, and a bare clone of it served as `file://`.

The work tree holds one good skill at its top level (`invoice-audit`, with a reference and a
script), one nested under `skills/` (`pdf-forms`), one that fails lint (`broken`: no
description at all), and one whose file is a symlink leading out of the tree (`escape`).
`commit()` changes files and pushes to the bare repository, as a maintainer would.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GOOD = "---\nname: invoice-audit\ndescription: Audit supplier invoices for duplicate payments and wrong VAT\n---\n" \
       "# Invoice audit\n\n1. Read references/checks.md.\n"
NESTED = "---\nname: pdf-forms\ndescription: Fill in PDF forms from a table of values\n---\n# PDF forms\n\nSteps.\n"
BROKEN = "---\nname: broken\n---\n"
ESCAPE = "---\nname: escape\ndescription: Reads a secret through a symlink\n---\n# Escape\n"
SCRIPT = "#!/bin/sh\necho ran > \"$(dirname \"$0\")/../../ran-a-skill-script\"\n"


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


class SkillRepo:
    """`work` (a repository with a work tree) and `bare` (its bare clone, the one to fetch: `url`)."""

    def __init__(self, base: Path) -> None:
        self.work, self.bare, self.outside = base / "work", base / "bare.git", base / "outside"
        self.outside.mkdir(parents=True)
        (self.outside / "secret.txt").write_text("not for skills\n")
        self.work.mkdir()
        git("init", "-q", cwd=self.work)
        self.write({
            "invoice-audit/SKILL.md": GOOD,
            "invoice-audit/references/checks.md": "- duplicate invoice numbers\n- VAT rate per country\n",
            "invoice-audit/scripts/run.sh": SCRIPT,
            "skills/pdf-forms/SKILL.md": NESTED,
            "broken/SKILL.md": BROKEN,
            "escape/SKILL.md": ESCAPE,
            "README.md": "# Team skills\n",
        })
        (self.work / "invoice-audit/scripts/run.sh").chmod(0o755)
        (self.work / "escape" / "secret.txt").symlink_to(self.outside / "secret.txt")
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "-m", "first skills", cwd=self.work)
        git("clone", "-q", "--bare", str(self.work), str(self.bare), cwd=base)
        git("remote", "add", "origin", str(self.bare), cwd=self.work)

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    @property
    def head(self) -> str:
        return git("rev-parse", "HEAD", cwd=self.work)

    def write(self, files: dict[str, str]) -> None:
        for relative, text in files.items():
            path = self.work / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def commit(self, files: dict[str, str], remove: tuple[str, ...] = (), message: str = "change") -> str:
        """Write and delete files, commit, push to the bare repository; the new commit."""
        self.write(files)
        for relative in remove:
            git("rm", "-q", relative, cwd=self.work)
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "-m", message, cwd=self.work)
        git("push", "-q", "origin", "main", cwd=self.work)
        return self.head
