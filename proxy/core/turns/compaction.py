"""Recognising a history the client rewrote: old turns dropped or replaced by a summary, recent ones kept.

Clients shorten long conversations. The packet of a skill the user activated
in an early turn is then gone, while later turns still depend on it. A record's
key hashes every message before its turn, so after such a rewrite no earlier
turn finds its record. Each exchange (a user turn and the turn that answered
it) is also kept under a key of its own (`exchange_key`), with the skills
active after it and its position then. A request reads its two newest
exchanges with its records (`recent_exchanges`). When its newest earlier user
turn has no record, `find_compaction` looks at them: the newest exchange found
that now sits earlier than it did is where the rewritten history resumes (or
an older one just before it, found at the same shift, read then), and the
shift is the number of turns dropped. A conversation that is new has no
exchange the proxy kept; one that only grew has its records, and its turns
sit where they did: neither is a compaction.

What must not: write to the store, or know any wire format's field names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from proxy.core.turns.conversation import Conversation, Turn
from proxy.core.turns.records import TurnRecord, TurnRecordReader
from proxy.core.turns.skills_state import ExplicitActivation, SkillsState, exchange_key, find_packet

PACKET_OPENING = "<skill_invocation_packet "
# How the summaries clients put in place of old turns begin (Claude Code's is the long one), once a
# leading `#`, `*`, `[` or `>` is taken off and case is ignored.
SUMMARY_OPENINGS = ("summary", "<summary", "conversation summary", "previous conversation summary",
                    "this session is being continued from a previous conversation")


@dataclass(frozen=True)
class Compaction:
    """A rewritten history: `resume` is the index (in the conversation's turns) of the first user turn
    that is kept, `dropped_turns` how many turns fewer now come before it, `summary` whether a turn
    before it reads as a summary. `before` holds the skills that were active in what was dropped
    (explicit activations whose turns are gone, positions in today's numbering, and the route), and
    `packets` the packets of those activations that are still in the store, by their hash.
    """

    resume: int
    dropped_turns: int
    summary: bool
    before: SkillsState
    packets: Mapping[str, str]


RECENT_EXCHANGES = 2  # the newest one was never kept when no request followed it; the one before it was


def recent_exchanges(conversation: Conversation) -> dict[int, str]:
    """The exchange keys of the newest earlier user turns (index: key), read with the request's records.

    The newest exchange before a compaction was never kept (the request that keeps it is the compacted one,
    unless the client asked for its summary through the proxy); the one before it was, if it is still sent.
    None for a held history: the upstream keeps that one.
    """
    if conversation.chain:
        return {}
    turns, identity = conversation.turns, conversation.wire.identity
    found: dict[int, str] = {}
    for index in range(len(turns) - 2, -1, -1):
        if turns[index].is_user:
            found[index] = exchange_key(turns[index].raw, turns[index + 1].raw, identity)
            if len(found) == RECENT_EXCHANGES:
                break
    return found


def find_compaction(conversation: Conversation, keys: Sequence[str], known: Mapping[str, TurnRecord],
                    recent: Mapping[int, str], store: TurnRecordReader | None, now: float) -> Compaction | None:
    """The compaction this request's history shows, or None.

    `known` holds the request's records, read with its `recent` exchanges (`recent_exchanges`): the usual
    request is decided with that one read. Only a compaction reads once more: the older exchanges (to find
    where the kept part begins) and the dropped packets, together.
    """
    if store is None or not recent or keys[max(recent)] in known:
        return None  # the usual request: its newest earlier user turn has its record
    states = _states(recent, known)
    newest = max(states, default=None)
    if newest is None or states[newest].position <= newest:
        return None  # no exchange known, or the newest sits where it did: new, or only its records are gone
    shift = states[newest].position - newest
    turns, identity = conversation.turns, conversation.wire.identity
    users = [i for i in range(newest + 1) if turns[i].is_user]
    older = {i: exchange_key(turns[i].raw, turns[i + 1].raw, identity) for i in users if i < min(recent)}
    activations = [a for a in states[newest].explicit if a.position < newest + shift]
    more = store.get_many([*older.values(), *dict.fromkeys(a.packet_key for a in activations)], now)
    states.update(_states(older, more))
    resume = newest
    for index in reversed([i for i in users if i < newest]):
        if index not in states or states[index].position - index != shift:
            break
        resume = index
    if keys[resume] in known:
        return None  # this rewritten history was seen and answered before: its records replay it
    before = _dropped_skills(states[newest], resume, shift)
    return Compaction(resume, shift, any(looks_like_summary(t) for t in _head(conversation, resume)), before,
                      _packets(before.explicit, conversation, more))


def _states(exchanges: Mapping[int, str], found: Mapping[str, TurnRecord]) -> dict[int, SkillsState]:
    """The skills state kept for each exchange, by its user turn's index (only those found)."""
    states: dict[int, SkillsState] = {}
    for index, key in exchanges.items():
        record = found.get(key)
        if record is not None and record.skills is not None:
            states[index] = record.skills
    return states


def _dropped_skills(state: SkillsState, resume: int, shift: int) -> SkillsState:
    """What was active, less the activations of turns still sent (replaying those brings their packets back,
    so their skills are not named again either), with positions moved to today's numbering (before the first
    turn sent: negative)."""
    dropped = tuple(ExplicitActivation(a.names, a.position - shift, a.packet_key, a.packet_chars, a.packet_sha256)
                    for a in state.explicit if a.position < resume + shift)
    kept = {name for a in state.explicit if a.position >= resume + shift for name in a.names}
    return SkillsState(resume, dropped, tuple(name for name in state.routed if name not in kept))


def _packets(activations: Sequence[ExplicitActivation], conversation: Conversation,
             records: Mapping[str, TurnRecord]) -> dict[str, str]:
    """The packets of `activations` found in the records that forwarded them, by hash."""
    packets: dict[str, str] = {}
    for activation in activations:
        record = records.get(activation.packet_key)
        if record is None or record.forwarded is None:
            continue  # expired (state_ttl) or evicted: the skill is named without its packet
        turn = record.turn if record.turn is not None else conversation.wire.read_turn(record.forwarded)
        packet = find_packet(turn.text, activation, PACKET_OPENING)
        if packet is not None:
            packets[activation.packet_sha256] = packet
    return packets


def _head(conversation: Conversation, resume: int) -> tuple[Turn, ...]:
    """The turns before the resume point, the system turn first."""
    system = () if conversation.system is None else (conversation.system,)
    return (*system, *conversation.turns[:resume])


def looks_like_summary(turn: Turn) -> bool:
    return turn.text.lstrip(" \t\r\n#*[>")[:80].casefold().startswith(SUMMARY_OPENINGS)
