"""Skill scopes: allow and deny globs from config and headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from proxy.core.catalog.scope import SkillScope, patterns_from_header
from proxy.core.catalog.skill import Skill
from proxy.core.turns.request_options import BadSkillsHeader, options_from_headers


def skill(name: str, folder: str | None = None) -> Skill:
    return Skill(name=name, description="d", folder=Path("/skills") / (folder or name), root="r", location="l")


SQL, PDF, REVIEW = skill("sql-query-tuning"), skill("pdf"), skill("code-review", "Code-Review-Folder")


def admitted(scope: SkillScope) -> list[str]:
    return [s.name for s in (SQL, PDF, REVIEW) if scope.admits(s)]


@pytest.mark.parametrize(("allow", "deny", "expected"), [
    (None, (), ["sql-query-tuning", "pdf", "code-review"]),
    (("pdf",), (), ["pdf"]),
    (("sql-*", "PDF"), (), ["sql-query-tuning", "pdf"]),
    (None, ("*-review",), ["sql-query-tuning", "pdf"]),
    (("*",), ("pdf",), ["sql-query-tuning", "code-review"]),
    ((), (), []),
    (("code-review-folder",), (), ["code-review"]),
])
def test_allow_and_deny(allow, deny, expected):
    assert admitted(SkillScope.of(allow, deny)) == expected


def test_a_request_narrows_the_config_never_widens_it():
    config = SkillScope.of(("sql-*", "pdf"))
    assert admitted(config.narrowed(SkillScope.of(("pdf", "code-review")))) == ["pdf"]
    assert admitted(config.narrowed(SkillScope.of(None, ("pdf",)))) == ["sql-query-tuning"]
    assert config.narrowed(SkillScope()) == config and SkillScope().is_everything


def test_header_parsing():
    assert patterns_from_header(None) is None
    assert patterns_from_header(" pdf , sql-*,,") == ("pdf", "sql-*")
    options = options_from_headers({"x-skills-allow": "pdf", "x-skills-deny": "sql-*", "x-skills-mode": "Explicit"})
    assert options.skills_mode == "explicit" and admitted(options.scope) == ["pdf"]
    assert options_from_headers({}).scope.is_everything and options_from_headers({}).skills_mode == "auto"
    with pytest.raises(BadSkillsHeader, match="X-Skills-Mode"):
        options_from_headers({"x-skills-mode": "sometimes"})
