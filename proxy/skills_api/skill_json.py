"""Skills as JSON for the `/v1/skills` endpoints: what a client or a tool needs to show them."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from proxy.core.catalog.skill import Skill


class SkillSummary(TypedDict):
    """One skill in `GET /v1/skills`."""

    object: Literal["skill"]
    name: str
    description: str
    location: str
    root: str
    model_invocable: bool
    user_invocable: bool
    has_supporting_files: bool
    tags: list[str]


class SkillDetail(SkillSummary):
    """One skill in `GET /v1/skills/{name}`."""

    when_to_use: str | None
    argument_hint: str | None
    context: str | None
    agent: str | None
    model: str | None
    allowed_tools: list[str]
    license: str | None
    compatibility: str | None
    metadata: dict[str, Any]
    warnings: list[str]
    body: str | None
    body_error: NotRequired[str]  # why the body could not be read


def skill_summary(skill: Skill) -> SkillSummary:
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


def skill_detail(skill: Skill, body: str | None, body_error: str | None = None) -> SkillDetail:
    """One skill in full: the listing fields, every frontmatter field we know, and the SKILL.md body."""
    detail: SkillDetail = {
        **skill_summary(skill),  # type: ignore[typeddict-item]  # body_error comes below, when there is one
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
