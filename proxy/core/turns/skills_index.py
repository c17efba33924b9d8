"""The skills index: an "available skills" overview for the model's prompt.

`skills_index: system` puts it in the system turn, `user` in front of the
first user turn (for models without a system prompt). It lists name and
description of every skill the model may use, sorted by name, within a
character budget. Over budget, descriptions are cut to their first sentence;
if it is still over, the skills that fit the conversation's first user
message best are kept and a closing line says how to find the rest. The text
depends only on the catalog, the budget and that first message, so it is the
same on every request of a conversation and prompt caches keep working.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from proxy.core.catalog.skill import Skill
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.modes import SkillsIndexMode
from proxy.core.turns.packets import escape
from proxy.core.turns.turn_decision import PreprocessConfig, SkillContext, TurnOutcome
from proxy.core.turns.turn_text import prepend_block, routing_text, with_system_text

SHORT_DESCRIPTION_CHARS = 120
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")

_HOW: dict[str, str] = {
    ToolMode.SERVER: "To use one, call read_skill_file with its name; list_skills searches them.",
    ToolMode.CLIENT: "To use one, open its SKILL.md with your file tools.",
    ToolMode.INLINE: "A message with $skill-name activates one.",
}
_REST: dict[str, str] = {
    ToolMode.SERVER: "call list_skills to search them",
    ToolMode.CLIENT: "look in the skills folders",
    ToolMode.INLINE: "ask the user to name one with $skill-name",
}


def render_index(skills: Sequence[Skill], max_chars: int, tool_mode: str,
                 preferred: Callable[[], Sequence[str]] = tuple) -> str:
    """The index block; `preferred()` names skills in the order to keep them when not all fit."""
    invocable = sorted((s for s in skills if s.model_invocable), key=lambda s: s.name)
    if not invocable:
        return ""
    full = _block(invocable, len(invocable), tool_mode, short=False)
    if len(full) <= max_chars:
        return full
    short = _block(invocable, len(invocable), tool_mode, short=True)
    if len(short) <= max_chars:
        return short
    return _fitting(invocable, max_chars, tool_mode, preferred())


def _fitting(skills: list[Skill], max_chars: int, tool_mode: str, preferred: Sequence[str]) -> str:
    by_name = {s.name: s for s in skills}
    order = [by_name[n] for n in dict.fromkeys(preferred) if n in by_name]
    seen = {s.name for s in order}
    order += [s for s in skills if s.name not in seen]
    frame = len(_block([], len(skills), tool_mode, short=True)) + 4  # header, footer, tags; digits of `listed`
    used, kept = frame, []
    for skill in order:
        line = len(_line(skill, short=True)) + 1
        if used + line > max_chars:
            break
        used += line
        kept.append(skill)
    return _block(sorted(kept, key=lambda s: s.name), len(skills), tool_mode, short=True)


def _block(listed: Sequence[Skill], total: int, tool_mode: str, short: bool) -> str:
    lines = [f'<available_skills count="{total}" listed="{len(listed)}">',
             "Agent Skills you can use (name: what it is for). " + _HOW.get(tool_mode, _HOW[ToolMode.SERVER])]
    lines += [_line(s, short) for s in listed]
    if len(listed) < total:
        lines.append(f"({total - len(listed)} more not listed: {_REST.get(tool_mode, _REST[ToolMode.SERVER])}.)")
    lines.append("</available_skills>")
    return "\n".join(lines)


def _line(skill: Skill, short: bool) -> str:
    return f"- {escape(skill.name)}: {escape(_description(skill, short))}"


def _description(skill: Skill, short: bool) -> str:
    return short_description(skill) if short else " ".join(skill.description.split())


def short_description(skill: Skill) -> str:
    """The description's first sentence, whitespace squeezed, at most SHORT_DESCRIPTION_CHARS characters."""
    first = _SENTENCE_END.split(" ".join(skill.description.split()), maxsplit=1)[0]
    return first if len(first) <= SHORT_DESCRIPTION_CHARS else first[:SHORT_DESCRIPTION_CHARS - 1].rstrip() + "…"


class IndexPlacement:
    """Where one request's index goes: into the system turn, or before the first user turn.

    The text is computed at most once per request, and only when it is placed.
    """

    def __init__(self, conversation: Conversation, context: SkillContext, config: PreprocessConfig) -> None:
        self._conversation = conversation
        self._context = context
        self._config = config
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            first = next((routing_text(t) for t in self._conversation.turns if t.is_user), "")
            self._text = render_index(self._context.catalog.skills, self._config.skills_index_max_chars,
                                      self._config.tool_mode, lambda: _ranked_names(self._context, first))
        return self._text

    def on_first_user_turn(self, outcome: TurnOutcome) -> TurnOutcome:
        """`user` placement: the index goes in front of the conversation's first user turn, and is kept."""
        if self._config.skills_index != SkillsIndexMode.USER or not self.text:
            return outcome
        forwarded = prepend_block(outcome.forwarded, self.text)
        written = self._conversation.wire.write_turn(forwarded)
        record = replace(outcome.record, forwarded=written, turn=forwarded.written_as(written))
        return replace(outcome, forwarded=forwarded, record=record)

    def on_forwarded(self, forwarded: Conversation) -> Conversation:
        """`system` placement: the index joins the system turn of every request."""
        if self._config.skills_index != SkillsIndexMode.SYSTEM or not self.text:
            return forwarded
        return with_system_text(forwarded, self.text)


def _ranked_names(context: SkillContext, text: str) -> list[str]:
    return [c.skill.name for c in context.router.search(text, len(context.catalog.skills))] if text.strip() else []
