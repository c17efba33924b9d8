"""Skills as JSON for the `/v1/skills` endpoints: what a client or a tool needs to show them."""

from __future__ import annotations

from typing import Any

from proxy.core.catalog.skill import Skill


def skill_summary(skill: Skill) -> dict[str, Any]:
    """One skill in a listing: identity, what it is for, how it may be used."""
    return {
        "object": "skill",
        "name": skill.name,
        "description": skill.description.strip(),
        "location": skill.location,
        "root": skill.root,
        "model_invocable": skill.model_invocable,
        "user_invocable": skill.user_invocable,
        "has_supporting_files": skill.has_supporting_files,
        "tags": list(skill.tags),
    }


def skill_detail(skill: Skill, body: str | None, body_error: str | None = None) -> dict[str, Any]:
    """One skill in full: the listing fields, every frontmatter field we know, and the SKILL.md body."""
    detail = {
        **skill_summary(skill),
        "when_to_use": skill.when_to_use or None,
        "argument_hint": skill.argument_hint,
        "context": skill.context,
        "agent": skill.agent,
        "model": skill.model,
        "allowed_tools": list(skill.allowed_tools),
        "license": skill.license,
        "compatibility": skill.compatibility,
        "metadata": skill.metadata,
        "warnings": [finding.line() for finding in skill.warnings],
        "body": body,
    }
    if body_error:
        detail["body_error"] = body_error
    return detail
