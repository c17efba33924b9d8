"""What one request asks of the skill machinery: from config and the X-Skills-* headers.

`X-Skills-Mode: off | explicit | auto` (off: forward untouched; explicit:
`$skill` and `/skill` only, no routing; auto: everything, the default),
`X-Skills-Allow` and `X-Skills-Deny` (names or globs). A client without a
settings screen can choose per request; a request can narrow what the
config allows, never widen it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from proxy.core.catalog.scope import SkillScope, scope_from_headers
from proxy.core.turns.modes import SkillsMode

SKILLS_MODES = tuple(SkillsMode)


@dataclass(frozen=True)
class RequestOptions:
    tool_mode: str | None = None  # None: the configured one
    scope: SkillScope = SkillScope()
    skills_mode: SkillsMode = SkillsMode.AUTO


class BadSkillsHeader(ValueError):
    """An X-Skills-* header with a value the proxy does not understand."""


def options_from_headers(headers: Mapping[str, str]) -> RequestOptions:
    """The request's options from its (lower-cased) headers; raises BadSkillsHeader."""
    mode = headers.get("x-skills-mode", SkillsMode.AUTO).strip().lower() or SkillsMode.AUTO
    if mode not in SKILLS_MODES:
        raise BadSkillsHeader(f"X-Skills-Mode must be one of {', '.join(SKILLS_MODES)}, not {mode!r}")
    scope = scope_from_headers(headers.get("x-skills-allow"), headers.get("x-skills-deny"))
    return RequestOptions(scope=scope, skills_mode=SkillsMode(mode))
