"""Hand-made catalogs for core tests: skills written to a temp folder and loaded for real."""

from pathlib import Path

from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.core.routing.router import SkillRouter
from proxy.core.turns.turn_decision import SkillContext

SKILLS = {
    "pdf-tools": ("Extract text and tables from PDF files, merge and split PDF documents.",
                  "# PDF\nUse pdfplumber. Task: $ARGUMENTS\n"),
    "sql-query-tuning": ("Diagnose slow SQL queries with EXPLAIN plans, indexes and query rewrites.",
                         "# SQL\nRun EXPLAIN ANALYZE first.\n"),
    "release-notes": ("Write release notes and changelog entries from commits.", "# Release\nGroup by type.\n"),
}


def write_catalog(root: Path, skills=SKILLS, extra_frontmatter: dict[str, str] | None = None) -> Catalog:
    for name, (description, body) in skills.items():
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        extra = (extra_frontmatter or {}).get(name, "")
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}",
                                         encoding="utf-8")
    return load_catalog([root])


def context_for(catalog: Catalog) -> SkillContext:
    return SkillContext(catalog, SkillRouter(catalog.skills))
