"""Context modes and model overrides from an activated skill's frontmatter."""

from __future__ import annotations

from pathlib import Path

from proxy.core.catalog.skill import Skill
from proxy.core.turns.context_modes import FORK, FORK_WITH_CONTEXT, context_mode, forked, model_override
from proxy.surfaces.chat_messages import CHAT_MESSAGES, read_messages


def forked_messages(history, turn, keep_system):
    """`forked` over Chat Completions messages, read and written by the shell's adapter."""
    return forked(read_messages(history), CHAT_MESSAGES.read_turn(turn), keep_system).written()


def skill(name: str, context: str | None = None, model: str | None = None) -> Skill:
    return Skill(name=name, description="d", folder=Path("/s") / name, root="r", location=name, context=context,
                 model=model)


def test_fork_wins_over_fork_with_context_and_none_means_inline():
    assert context_mode([skill("a"), skill("b", FORK_WITH_CONTEXT), skill("c", FORK)]) == FORK
    assert context_mode([skill("a"), skill("b", FORK_WITH_CONTEXT)]) == FORK_WITH_CONTEXT
    assert context_mode([skill("a", "something-else")]) is None


def test_forked_messages_keep_only_leading_system_messages_when_asked():
    history = [{"role": "system", "content": "s"}, {"role": "developer", "content": "d"},
               {"role": "user", "content": "u"}, {"role": "system", "content": "late"}]
    turn = {"role": "user", "content": "packet"}
    assert forked_messages(history, turn, keep_system=False) == [turn]
    assert forked_messages(history, turn, keep_system=True) == [*history[:2], turn]


def test_model_override_needs_an_allowed_name():
    model, events = model_override([skill("a", model="small")], {"small": "qwen"})
    assert model == "qwen" and events[0]["event"] == "model_override"
    model, events = model_override([skill("a", model="big")], {"small": "qwen"})
    assert model is None and events[0]["reason"] == "not allowed by model_overrides"
    model, events = model_override([skill("a", model="big")], {})
    assert model is None and events[0]["reason"] == "model_overrides is empty"


def test_inherit_and_missing_models_are_not_overrides():
    assert model_override([skill("a", model="inherit"), skill("b")], {"inherit": "x"}) == (None, [])


def test_the_first_allowed_skill_model_wins_after_reporting_ignored_ones():
    model, events = model_override([skill("a", model="big"), skill("b", model="small")], {"small": "s"})
    assert model == "s" and [e["event"] for e in events] == ["model_override_ignored", "model_override"]
