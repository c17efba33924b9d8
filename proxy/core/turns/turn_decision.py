"""Deciding one user turn: explicit packet, routed block, reminder, or no-route reminder.

`decide_turn` is the whole decision for one user turn, given the catalog, the
router and the newest full routed injection earlier in the conversation. It
returns the turn to forward, the record to keep (the turn written in its
conversation's wire format), and the log events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.files import DEFAULT_MAX_FILE_BYTES, read_skill_body
from proxy.core.catalog.scope import SkillScope
from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import RouteCandidate, RouteDecision, SkillRouter, select
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.activation import ActivationRequest, find_activations, substitute_arguments
from proxy.core.turns.context_modes import context_mode, model_override
from proxy.core.turns.conversation import Turn, TurnWire
from proxy.core.turns.decision_events import activation_events, route_events
from proxy.core.turns.modes import SkillsIndexMode, TurnMode
from proxy.core.turns.packets import (
    REASON_NO_ROUTE,
    REASON_UNCHANGED,
    Expansion,
    explicit_text,
    invocation_packet,
    reminder,
    routed_injection,
)
from proxy.core.turns.records import TurnRecord
from proxy.core.turns.turn_text import prepend_block, replace_text, routing_text


@dataclass(frozen=True)
class PreprocessConfig:
    max_routed_skills: int = 3
    refresh_interval: float = 1800.0
    slash_activation: bool = True
    tool_mode: str = ToolMode.SERVER
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    routing: bool = True  # False: only explicit activation (X-Skills-Mode: explicit)
    fork_keep_system: bool = False
    skills_index: str = SkillsIndexMode.OFF
    skills_index_max_chars: int = 2600
    model_overrides: Mapping[str, str] = field(default_factory=dict)
    compaction_reinject_chars: int = 8000  # 0: no <skills_after_compaction> block


_EVERY_SKILL = 100_000  # a search limit that ranks every skill with any match


@dataclass(frozen=True)
class SkillContext:
    """What one request is preprocessed against: a catalog and its router, built together.

    `scope` narrows a request to some of the catalog's skills (X-Skills-Allow
    and -Deny): `catalog` is already narrowed, and `route` ranks only skills in
    scope, so a denied skill cannot push an allowed one out of the shortlist.
    """

    catalog: Catalog
    router: SkillRouter
    scope: SkillScope = SkillScope()

    def narrowed(self, scope: SkillScope) -> SkillContext:
        if scope.is_everything:
            return self
        return SkillContext(self.catalog.scoped(scope), self.router, self.scope.narrowed(scope))

    def route(self, text: str, max_selected: int) -> RouteDecision:
        decision = self.router.route(text, max_selected)
        if self.scope.is_everything:
            return decision
        ranked = [c for c in self.router.search(text, _EVERY_SKILL) if self.scope.admits(c.skill)]
        shortlist = tuple(ranked[:len(decision.candidates) or 10])
        return replace(decision, selected=select(shortlist, max_selected), candidates=shortlist)


@dataclass(frozen=True)
class LastFullInjection:
    fingerprint: str
    at: float


@dataclass(frozen=True)
class TurnOutcome:
    forwarded: Turn
    record: TurnRecord
    route_header: str
    injection: str = ""
    selected: tuple[str, ...] = ()
    decision: RouteDecision | None = None
    activation: ActivationRequest | None = None
    events: tuple[dict[str, Any], ...] = field(default=())

    def with_record(self, record: TurnRecord) -> TurnOutcome:
        """`replace(self, record=record)` at a third of the cost (a test checks it keeps every other field)."""
        return TurnOutcome(self.forwarded, record, self.route_header, self.injection, self.selected, self.decision,
                           self.activation, self.events)


def fingerprint(selected: tuple[RouteCandidate, ...]) -> str:
    """Sorted root:name:location of the selected skills; scores left out on purpose."""
    return "|".join(sorted(f"{c.skill.root}:{c.skill.name}:{c.skill.location}" for c in selected))


def decide_turn(turn: Turn, context: SkillContext, config: PreprocessConfig,
                last_full: LastFullInjection | None, now: float, wire: TurnWire) -> TurnOutcome:
    outcome = _decide(turn, context, config, last_full, now)
    written = wire.write_turn(outcome.forwarded)
    return outcome.with_record(outcome.record.sent_as(written, outcome.forwarded.written_as(written), config.tool_mode))


# The records below hold the forwarded turn until `decide_turn` writes it in the wire's form.

def _decide(turn: Turn, context: SkillContext, config: PreprocessConfig,
            last_full: LastFullInjection | None, now: float) -> TurnOutcome:
    text = routing_text(turn)
    if not text.strip():
        return TurnOutcome(turn, TurnRecord(turn, TurnMode.PASSTHROUGH), TurnMode.PASSTHROUGH)
    request = find_activations(text, context.catalog, config.slash_activation)
    if request is not None:
        return _explicit(turn, request, config)
    if not config.routing:
        return TurnOutcome(turn, TurnRecord(turn, TurnMode.PASSTHROUGH), TurnMode.PASSTHROUGH)
    decision = context.route(text, config.max_routed_skills)
    return _routed(turn, text, decision, config, last_full, now)


def _explicit(turn: Turn, request: ActivationRequest, config: PreprocessConfig) -> TurnOutcome:
    skills = [a.resolved_skill for a in request.resolved]
    expansions = {skill.name: _expand(skill, request.payload, config) for skill in skills}
    packet = invocation_packet(request, expansions, config.tool_mode)
    names = [skill.name for skill in skills]
    forwarded = replace_text(turn, explicit_text(packet, request.payload, names))
    header = "explicit:" + (",".join(names) or "unresolved")
    model, model_events = model_override(skills, config.model_overrides)
    record = TurnRecord(forwarded, TurnMode.EXPLICIT, context_mode=context_mode(skills), model=model)
    events = (*activation_events(request, expansions, packet), *model_events)
    return TurnOutcome(forwarded, record, header, packet, tuple(names), activation=request, events=events)


def _expand(skill: Skill, payload: str, config: PreprocessConfig) -> Expansion:
    try:
        body = read_skill_body(skill.skill_file, config.max_file_bytes)
    except OSError as exc:
        return Expansion(error=f"SKILL.md could not be read: {exc.strerror or exc}")
    return Expansion(text=substitute_arguments(body, payload))


def _routed(turn: Turn, text: str, decision: RouteDecision, config: PreprocessConfig,
            last_full: LastFullInjection | None, now: float) -> TurnOutcome:
    selected = decision.selected
    if not selected:
        injection = reminder(REASON_NO_ROUTE, config.tool_mode)
        forwarded = prepend_block(turn, injection)
        events = route_events("no_route", "no_confident_skill_route", text, decision, injection)
        return TurnOutcome(forwarded, TurnRecord(forwarded, TurnMode.NONE), TurnMode.NONE, injection, (), decision,
                           events=events)
    mark = fingerprint(selected)
    reason = _full_injection_reason(mark, last_full, now, config.refresh_interval)
    names = tuple(c.skill.name for c in selected)
    if reason is None:
        injection = reminder(REASON_UNCHANGED, config.tool_mode)
        forwarded = prepend_block(turn, injection)
        events = route_events("reminder", "route_unchanged", text, decision, injection)
        return TurnOutcome(forwarded, TurnRecord(forwarded, TurnMode.REMINDER, mark), TurnMode.REMINDER, injection,
                           names, decision, events=events)
    injection = routed_injection(selected, config.tool_mode, _inline_bodies(selected, config))
    forwarded = prepend_block(turn, injection)
    header = ";".join(f"{c.skill.name}={c.score}" for c in selected)
    events = route_events("routed", reason, text, decision, injection)
    return TurnOutcome(forwarded, TurnRecord(forwarded, TurnMode.ROUTED, mark, now), header, injection, names,
                       decision, events=events)


def _full_injection_reason(mark: str, last_full: LastFullInjection | None, now: float, refresh: float) -> str | None:
    if last_full is None:
        return "initial_route"
    if last_full.fingerprint != mark:
        return "route_changed"
    if now - last_full.at >= refresh:
        return "refresh_interval"
    return None


def _inline_bodies(selected: tuple[RouteCandidate, ...], config: PreprocessConfig) -> dict[str, str]:
    if config.tool_mode != ToolMode.INLINE:
        return {}
    bodies: dict[str, str] = {}
    for candidate in selected:
        if candidate.confidence == "high":
            try:
                bodies[candidate.skill.name] = read_skill_body(candidate.skill.skill_file, config.max_file_bytes)
            except OSError:
                continue
    return bodies
