"""The `<skills_after_compaction>` block: the skills a rewritten history lost, put back once where it resumes.

It names every skill that was active in the dropped turns with its short
description (and, for a routed one, its location), then gives the original
`<skill_invocation_packet>` of each explicit activation again, newest first,
while the whole block stays within `compaction_reinject_chars`; a packet that
does not fit, or is no longer in the store, leaves its skill named only, with
how to read it again. A budget of 0 puts no block in. The text depends only on
what was recorded, the catalog and the budget, and the turn it goes in front of
is recorded with it: later requests replay it byte for byte.

What must not: read the store, or know any wire format's field names.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from proxy.core.catalog.catalog import Catalog
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.compaction import Compaction
from proxy.core.turns.conversation import TextForm, Turn, TurnWire
from proxy.core.turns.packets import escape
from proxy.core.turns.records import TurnRecord
from proxy.core.turns.skills_index import short_description
from proxy.core.turns.skills_state import ExplicitActivation, SkillsState
from proxy.core.turns.turn_text import prepend_block

_REREAD: dict[str, str] = {
    ToolMode.SERVER: "call read_skill_file with its name",
    ToolMode.CLIENT: "open its SKILL.md at the <location> given, with your own file tools",
    ToolMode.INLINE: "ask the user to activate it again with $skill-name",
}


@dataclass(frozen=True)
class Reinjection:
    """The block (empty: none), each skill in it as `name:packet` or `name:compact`, and the hashes of the
    packets it holds."""

    block: str = ""
    reinjected: tuple[str, ...] = ()
    packets: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Listed:
    name: str
    activation: str  # explicit | routed
    description: str
    location: str


def reinjection(compaction: Compaction, so_far: SkillsState, catalog: Catalog, budget: int,
                tool_mode: str) -> Reinjection:
    """The block for `compaction`. `so_far` is what the turns sent before the resume point activated again
    (a summary may quote `$name`, or be routed): a skill activated there is left out, a skill routed there
    is not listed again as routed. Skills no longer in the catalog are left out."""
    if budget <= 0:
        return Reinjection()
    activated = {name for a in so_far.explicit for name in a.names}
    explicit = [a for a in compaction.before.explicit if any(n not in activated for n in a.names)]
    listed = _listed(explicit, tuple(n for n in compaction.before.routed if n not in so_far.routed), activated,
                     catalog)
    if not listed:
        return Reinjection()
    names = {skill.name for skill in listed}
    chosen: list[ExplicitActivation] = []
    for activation in explicit:  # newest first: the one most likely to matter gets the budget first
        packet = compaction.packets.get(activation.packet_sha256)
        if packet is None or not names.intersection(activation.names):
            continue  # gone from the store, or its skills are out of this request's scope now
        if len(_block(compaction, listed, [*chosen, activation], tool_mode)) <= budget:
            chosen.append(activation)
    with_packet = {name for a in chosen for name in a.names}
    forms = tuple(f"{s.name}:{'packet' if s.name in with_packet else 'compact'}" for s in listed)
    return Reinjection(_block(compaction, listed, chosen, tool_mode), forms,
                       frozenset(a.packet_sha256 for a in chosen))


def _listed(explicit: list[ExplicitActivation], routed: tuple[str, ...], already: Collection[str],
            catalog: Catalog) -> list[_Listed]:
    named = [(name, "explicit") for a in explicit for name in a.names] + [(name, "routed") for name in routed]
    listed: list[_Listed] = []
    seen = set(already)
    for name, activation in named:
        skill = catalog.get(name)
        if skill is None or name in seen:
            continue
        seen.add(name)
        listed.append(_Listed(name, activation, short_description(skill), skill.location))
    return listed


def _block(compaction: Compaction, listed: list[_Listed], packets: list[ExplicitActivation], tool_mode: str) -> str:
    with_packet = {name for a in packets for name in a.names}
    how = "replaced by a summary" if compaction.summary else "dropped"
    lines = [f'<skills_after_compaction dropped_turns="{compaction.dropped_turns}" '
             f'reinjected_packets="{len(packets)}">',
             f"The client shortened this conversation: earlier turns were {how}. These skills were active in them "
             "and still apply to what follows."]
    for skill in listed:
        form = "packet" if skill.name in with_packet else "compact"
        lines += [f'<active_skill activation="{skill.activation}" reinjected="{form}">',
                  f"<n>{escape(skill.name)}</n>", f"<description>{escape(skill.description)}</description>"]
        if form == "compact":
            lines.append(f"<location>{escape(skill.location)}</location>")
        lines.append("</active_skill>")
    reread = _REREAD.get(tool_mode, _REREAD[ToolMode.SERVER])
    note = ("Each <skill_invocation_packet> below is the one the user's activation produced earlier; the task it "
            "came with was handled then. Keep following its instructions. " if packets else "")
    lines.append(f"<next_action>{note}For a skill listed without its packet, {reread} before relying on its "
                 "instructions.</next_action>")
    lines += [compaction.packets[a.packet_sha256] for a in packets]
    lines.append("</skills_after_compaction>")
    return "\n".join(lines)


class ResumePoint:
    """Where one request's rewritten history resumes: the block goes in front of that turn, once.

    The replay calls `seeded` just before it decides the resume turn (with the skills this request has
    activated so far), then `placed` with the turn's record, then `event`.
    """

    def __init__(self, compaction: Compaction, catalog: Catalog, budget: int, tool_mode: str) -> None:
        self.compaction = compaction
        self.index = compaction.resume
        self._catalog = catalog
        self._budget = budget
        self._tool_mode = tool_mode
        self._done = Reinjection()

    def seeded(self, so_far: SkillsState, turn: Turn, key: str) -> SkillsState:
        """The skills active before the resume turn: this request's, then the dropped ones (a re-injected
        packet is found from now on in the resume turn's record, under `key`)."""
        if turn.form != TextForm.NONE:  # a turn with no text the proxy may rewrite takes no block
            self._done = reinjection(self.compaction, so_far, self._catalog, self._budget, self._tool_mode)
        moved = tuple(ExplicitActivation(a.names, a.position, key, a.packet_chars, a.packet_sha256)
                      if a.packet_sha256 in self._done.packets else a for a in self.compaction.before.explicit)
        current = SkillsState(so_far.position, so_far.explicit, so_far.routed or self.compaction.before.routed)
        return current.with_older(moved)

    def placed(self, record: TurnRecord, wire: TurnWire) -> TurnRecord:
        """The resume turn's record with the block in front of what it forwards."""
        if not self._done.block or record.forwarded is None:
            return record
        turn = record.turn if record.turn is not None else wire.read_turn(record.forwarded)
        forwarded = prepend_block(turn, self._done.block)
        written = wire.write_turn(forwarded)
        return record.sent_as(written, forwarded.written_as(written), record.tool_mode)

    def event(self) -> dict[str, Any]:
        """`compaction_detected`: `resumed_at` counts the messages before the resume turn, a system prompt not
        counted (the same on every surface, wherever its system prompt goes)."""
        return {"event": "compaction_detected", "dropped_turns": self.compaction.dropped_turns,
                "resumed_at": self.index, "summary": self.compaction.summary,
                "reinjected": list(self._done.reinjected), "chars": len(self._done.block)}
