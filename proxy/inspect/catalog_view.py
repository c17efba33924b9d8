"""The catalog as the inspect page shows it: every skill with its warnings, and what shadows what.

What lives here: `catalog_view(catalog)`, one JSON-ready dict holding the roots
(and the ones that vanished), every loaded skill with its lint warnings and the
skills it shadows, the shadowed skills with their winner, and the skills that
could not be loaded at all. Values in, values out.

What must not: read files, or know about HTTP (the shell serves it).
"""

from __future__ import annotations

from typing import Any

from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.skill import Finding, Skill


def catalog_view(catalog: Catalog) -> dict[str, Any]:
    shadows: dict[int, list[str]] = {}
    for entry in catalog.shadowed:
        shadows.setdefault(id(entry.winner), []).append(entry.skill.location)
    skills = sorted(catalog.skills, key=lambda s: s.name)
    return {
        "roots": list(catalog.roots),
        "missing_roots": list(catalog.missing_roots),
        "skills": [{**skill_row(skill), "shadows": shadows.get(id(skill), [])} for skill in skills],
        "shadowed": [{**skill_row(entry.skill), "shadowed_by": entry.winner.location} for entry in catalog.shadowed],
        "skipped": [finding_row(finding) for finding in catalog.skipped],
        "counts": {"skills": len(catalog.skills), "shadowed": len(catalog.shadowed),
                   "skipped": len(catalog.skipped),
                   "warnings": sum(len(s.warnings) for s in catalog.all_skills())},
    }


def skill_row(skill: Skill) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": " ".join(skill.description.split()),
        "root": skill.root,
        "location": skill.location,
        "tags": list(skill.tags),
        "model_invocable": skill.model_invocable,
        "user_invocable": skill.user_invocable,
        "warnings": [finding_row(finding) for finding in skill.warnings],
    }


def finding_row(finding: Finding) -> dict[str, str]:
    return {"location": finding.location, "rule": finding.rule, "message": finding.message,
            "severity": finding.severity}
