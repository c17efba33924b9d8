"""Load the shared real-skill corpus as `Skill`s for benchmarks and corpus tests.

Uses the catalog (`proxy.core.catalog.load_catalog`) when it exists; until then
falls back to ../shared/corpus/index.jsonl plus each SKILL.md's headings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from proxy.core.skill import Skill

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
DEV_CASES = SHARED / "eval" / "dev.jsonl"
ROOT_ORDER = ("anthropics", "openai", "superpowers", "kdense", "wshobson", "marketingskills", "neo4j")
_HEADING = re.compile(r"^#{1,3}\s+(.+?)\s*#*\s*$")


def corpus_roots(corpus: Path = CORPUS) -> list[Path]:
    return [corpus / "skills" / name for name in ROOT_ORDER]


def _headings(skill_md: Path) -> tuple[str, ...]:
    text = skill_md.read_text(encoding="utf-8", errors="replace")
    body = text.split("\n---", 2)[-1] if text.startswith("---") else text
    found, fenced = [], False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (m := _HEADING.match(line)):
            found.append(m.group(1))
    return tuple(found)


def _from_index(corpus: Path) -> list[Skill]:
    rows = [json.loads(line) for line in (corpus / "index.jsonl").read_text(encoding="utf-8").splitlines() if line]
    order = {name: i for i, name in enumerate(ROOT_ORDER)}
    rows.sort(key=lambda r: order.get(Path(r["root"]).name, len(order)))
    skills = []
    for row in rows:
        folder = corpus / row["root"] / row["folder"]
        skills.append(
            Skill(
                name=row["name"],
                description=row["description"],
                folder=folder,
                root=row["root"],
                location=str(folder / "SKILL.md"),
                has_supporting_files=row.get("has_supporting_files", False),
                headings=_headings(folder / "SKILL.md"),
            )
        )
    return skills


def load_corpus_skills(corpus: Path = CORPUS) -> list[Skill]:
    try:
        from proxy.core.catalog import load_catalog  # type: ignore[attr-defined]
    except ImportError:
        return _from_index(corpus)
    return list(load_catalog(corpus_roots(corpus)).skills)


def load_cases(path: Path = DEV_CASES) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
