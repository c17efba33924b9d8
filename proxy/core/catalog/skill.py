"""The Skill value and the findings that loading one can produce.

Plain frozen dataclasses: no I/O here. Everything the catalog learns about a
skill folder ends up in one `Skill`, and everything wrong with it in `Finding`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Severity = Literal["warning", "error"]


@dataclass(frozen=True)
class Finding:
    """One lint finding: `location: rule: message`.

    `error` means the skill could not be loaded at all; everything else is a
    `warning` and the skill still loads.
    """

    location: str
    rule: str
    message: str
    severity: Severity = "warning"

    def line(self) -> str:
        return f"{self.location}: {self.rule}: {self.message}"


@dataclass(frozen=True)
class Skill:
    """A loaded skill: what routing, packets, tools and listings need to know.

    `description` is the frontmatter's as written; `when_to_use` is kept apart
    and only joined to it for routing (`routing_text`). `source_sha256` is the
    SKILL.md text's digest, so two loads of a skill differ when its body does.
    """

    name: str
    description: str
    folder: Path
    root: str
    location: str
    when_to_use: str = ""
    tags: tuple[str, ...] = ()
    has_supporting_files: bool = False
    model_invocable: bool = True
    user_invocable: bool = True
    allowed_tools: tuple[str, ...] = ()
    context: str | None = None
    agent: str | None = None
    model: str | None = None
    argument_hint: str | None = None
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    headings: tuple[str, ...] = ()
    warnings: tuple[Finding, ...] = ()
    source_sha256: str = ""

    @property
    def skill_file(self) -> Path:
        return self.folder / "SKILL.md"

    @property
    def folder_name(self) -> str:
        return self.folder.name

    @property
    def routing_description(self) -> str:
        """The description the router scores: the frontmatter's plus when_to_use."""
        if not self.when_to_use:
            return self.description
        return f"{self.description.rstrip()}\n{self.when_to_use.strip()}"
