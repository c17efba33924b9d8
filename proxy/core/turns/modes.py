"""The fixed words of turn preprocessing, as headers, config, logs and turn records spell them.

Each is a `StrEnum`: a member equals its string and is written as it, so a
value read back from a log line, a header or a stored record compares equal
to the member that wrote it.
"""

from __future__ import annotations

from enum import StrEnum


class TurnMode(StrEnum):
    """What preprocessing did with one user turn: the `mode` of the log line and of the turn record."""

    EXPLICIT = "explicit"  # a `$skill` or `/skill` packet
    ROUTED = "routed"  # the routed_skills block
    REMINDER = "reminder"  # the route did not change: a short reminder
    NONE = "none"  # no confident route: the no-route reminder
    FALLBACK = "fallback"  # the scan timed out or failed: the fallback reminder
    PASSTHROUGH = "passthrough"  # nothing to preprocess (no user turn, empty text, X-Skills-Mode: off)


class SkillsMode(StrEnum):
    """The `X-Skills-Mode` header: what one request lets the skill machinery do."""

    AUTO = "auto"  # routing and explicit activation: the default
    EXPLICIT = "explicit"  # `$skill` and `/skill` only, no routing
    OFF = "off"  # forward the request untouched


class SkillsIndexMode(StrEnum):
    """The `skills_index` setting: where the list of available skills goes, if anywhere."""

    OFF = "off"
    SYSTEM = "system"  # in the system message
    USER = "user"  # in front of the first user message
