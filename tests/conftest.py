"""Test-wide fixtures: where ../shared is, and the `shared_corpus` marker.

Tests marked `shared_corpus` read the real-skill corpus and eval set from
../shared. They skip, saying why, only when that folder is absent (a user's
clone); in CI (`CI` set) a missing ../shared is an error, never a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS_ROOT_ORDER = ("anthropics", "openai", "superpowers", "kdense", "wshobson", "marketingskills", "neo4j")


def corpus_roots() -> list[str]:
    return [str(SHARED / "corpus" / "skills" / name) for name in CORPUS_ROOT_ORDER]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if SHARED.is_dir():
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"CI is set but {SHARED} is missing: the shared corpus tests must run in CI")
    skip = pytest.mark.skip(reason=f"needs the shared corpus at {SHARED}, which is absent in this checkout")
    for item in items:
        if "shared_corpus" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def make_skill(tmp_path: Path):
    """Write a skill folder: make_skill("pdf", "---\\nname: pdf\\n...", root=tmp_path / "r1")."""

    def write(folder: str, text: str, root: Path | None = None, files: dict[str, str] | None = None) -> Path:
        base = (root or tmp_path / "skills") / folder
        base.mkdir(parents=True, exist_ok=True)
        (base / "SKILL.md").write_text(text, encoding="utf-8")
        for rel, content in (files or {}).items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text(content, encoding="utf-8")
        return base

    return write
