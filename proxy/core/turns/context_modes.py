"""What an explicitly activated skill's frontmatter asks of the request: context mode and model.

`context: fork` runs the skill isolated: the upstream gets only the packet
(the skill's instructions and the task payload), plus the client's system
turns when `fork_keep_system` is on. `context: fork_with_context` keeps
the history and adds the packet, which is what a proxy does anyway: the
upstream sees the conversation and the skill. No `context`: the packet in
the conversation, as for any activation.

`model:` replaces the request's `model` only when config allows it:
`model_overrides` maps a skill's model name to the upstream's (a list maps
each name to itself). Otherwise it is ignored, and the event says why.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from proxy.core.catalog.skill import Skill
from proxy.core.turns.conversation import Conversation, Turn

FORK, FORK_WITH_CONTEXT = "fork", "fork_with_context"
_INHERIT = frozenset({"", "inherit", "default"})


def context_mode(skills: Sequence[Skill]) -> str | None:
    """`fork` if any activated skill forks, else `fork_with_context` if any asks for it, else None."""
    modes = {skill.context for skill in skills}
    return FORK if FORK in modes else FORK_WITH_CONTEXT if FORK_WITH_CONTEXT in modes else None


def forked(history: Conversation, turn: Turn, keep_system: bool) -> Conversation:
    """The isolated conversation: the activated turn, after the system turn and any leading ones if kept."""
    if not keep_system:
        return history.with_system(None).with_turns((turn,))
    kept = itertools.takewhile(lambda t: t.is_system, history.turns)
    return history.with_turns((*kept, turn))


def model_override(skills: Sequence[Skill], allowed: Mapping[str, str]) -> tuple[str | None, list[dict[str, Any]]]:
    """(the upstream model the first skill with an allowed `model:` asks for, the log events)."""
    events: list[dict[str, Any]] = []
    for skill in skills:
        wanted = (skill.model or "").strip()
        if wanted.lower() in _INHERIT:
            continue
        target = allowed.get(wanted)
        if target:
            events.append({"event": "model_override", "skill": skill.name, "skill_model": wanted,
                           "upstream_model": str(target)})
            return str(target), events
        events.append({"event": "model_override_ignored", "skill": skill.name, "skill_model": wanted,
                       "reason": "not allowed by model_overrides" if allowed else "model_overrides is empty"})
    return None, events
