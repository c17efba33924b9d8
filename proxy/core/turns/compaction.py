"""Recognising a history the client rewrote: old turns dropped or replaced by a summary, recent ones kept.

Clients shorten long conversations. The packet of a skill the user activated
in an early turn is then gone, while later turns still depend on it. A record's
key hashes every message before its turn, so after such a rewrite no earlier
turn finds its record. Each exchange (a user turn and the turn that answered
it) is also kept under a key of its own (`exchange_key`), with the skills
active after it and its position then. `find_compaction` looks those up for
a request whose newest earlier user turn has no record: the newest exchange
found that now sits earlier than it did is where the rewritten history
resumes (or an older one just before it, found at the same shift), and the
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


def find_compaction(conversation: Conversation, keys: Sequence[str], known: Mapping[str, TurnRecord],
                    store: TurnRecordReader | None, now: float) -> Compaction | None:
    """The compaction this request's history shows, or None (also for a held history: the upstream keeps it)."""
    turns = conversation.turns
    newest_user = next((i for i in range(len(turns) - 2, -1, -1) if turns[i].is_user), None)
    if store is None or conversation.chain or newest_user is None or keys[newest_user] in known:
        return None  # the usual request: its newest earlier user turn has its record
    users = [i for i in range(newest_user + 1) if turns[i].is_user]
    states = _exchange_states(conversation, users, store, now)
    newest = max(states, default=None)
    if newest is None or states[newest].position <= newest:
        return None  # no exchange known, or the newest sits where it did: new, or only its records are gone
    shift = states[newest].position - newest
    resume = newest
    for index in reversed([i for i in users if i < newest]):
        if index not in states or states[index].position - index != shift:
            break
        resume = index
    if keys[resume] in known:
        return None  # this rewritten history was seen and answered before: its records replay it
    before = _dropped_skills(states[newest], resume, shift)
    return Compaction(resume, shift, any(looks_like_summary(t) for t in _head(conversation, resume)), before,
                      _packets(before.explicit, conversation, store, now))


def _exchange_states(conversation: Conversation, users: Sequence[int], store: TurnRecordReader,
                     now: float) -> dict[int, SkillsState]:
    """The skills state kept for each earlier user turn's exchange, by the turn's index (only those found)."""
    turns, identity = conversation.turns, conversation.wire.identity
    keys = {index: exchange_key(turns[index].raw, turns[index + 1].raw, identity) for index in users}
    found = store.get_many(list(keys.values()), now)
    states: dict[int, SkillsState] = {}
    for index, key in keys.items():
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


def _packets(activations: Sequence[ExplicitActivation], conversation: Conversation, store: TurnRecordReader,
             now: float) -> dict[str, str]:
    """The packets of `activations` found in the records that forwarded them, by hash."""
    if not activations:
        return {}
    records = store.get_many(list(dict.fromkeys(a.packet_key for a in activations)), now)
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
    return turn.text.lstrip(" \t\r\n#*[>").casefold().startswith(SUMMARY_OPENINGS)
