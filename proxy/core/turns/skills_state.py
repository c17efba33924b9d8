"""Which skills are active in a conversation, turn by turn, and the key that finds a turn without its prefix.

What lives here: `SkillsState`, the skills active after one user turn (the
explicit activations so far, newest first, each with where its packet was
forwarded, and the current route), kept in that turn's record; `advance`,
the state after the next decided turn; and `exchange_key`, the key of one
exchange (a user turn and the turn that answered it) on its own. A record's
key hashes every message before it, so a client that drops or summarises old
turns changes every key after them; the exchange key does not change, and
the state kept under it (`TurnRecord.skills`, with the turn's `position`)
says where that exchange was before, and which skills were active then.

What must not: read the store, or know any wire format's field names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from proxy.core.turns.modes import TurnMode

MAX_EXPLICIT = 8  # explicit activations a state remembers, newest first


@dataclass(frozen=True)
class ExplicitActivation:
    """Skills a user turn's own text activated (`$name`), and where the packet that expanded them went.

    `position` is that turn's index in the conversation's turns (negative once the client dropped it:
    it was that many turns before the first one it sends now). `packet_key` is the record whose
    forwarded text holds the packet, `packet_chars` and `packet_sha256` find and check it there.
    """

    names: tuple[str, ...]
    position: int
    packet_key: str
    packet_chars: int
    packet_sha256: str


@dataclass(frozen=True)
class SkillsState:
    """The skills active after the user turn at `position` (its index in the conversation's turns)."""

    position: int = -1
    explicit: tuple[ExplicitActivation, ...] = ()
    routed: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.explicit and not self.routed

    def at(self, position: int) -> SkillsState:
        return SkillsState(position, self.explicit, self.routed)

    def with_explicit(self, activation: ExplicitActivation) -> SkillsState:
        """`activation` first; an older activation keeps only the names the new one does not repeat."""
        return SkillsState(self.position, _deduplicated((activation, *self.explicit)), self.routed)

    def with_older(self, older: tuple[ExplicitActivation, ...]) -> SkillsState:
        """`older` activations (newest first) after this state's own, less the names those repeat."""
        return SkillsState(self.position, _deduplicated((*self.explicit, *older)), self.routed)


def _deduplicated(activations: tuple[ExplicitActivation, ...]) -> tuple[ExplicitActivation, ...]:
    """Each name kept in the first (newest) activation that has it; at most MAX_EXPLICIT activations."""
    taken: set[str] = set()
    kept: list[ExplicitActivation] = []
    for activation in activations:
        names = tuple(n for n in activation.names if n not in taken)
        if names:
            kept.append(activation if names == activation.names else
                        ExplicitActivation(names, activation.position, activation.packet_key,
                                           activation.packet_chars, activation.packet_sha256))
            taken.update(names)
    return tuple(kept[:MAX_EXPLICIT])


NO_SKILLS = SkillsState()


def packet_sha256(packet: str) -> str:
    return hashlib.sha256(packet.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def advance(state: SkillsState, position: int, key: str, mode: str, selected: tuple[str, ...],
            injection: str) -> SkillsState:
    """The state after the user turn at `position` (kept under `key`) was decided as `mode`.

    An explicit packet adds an activation; a route (full or reminder) becomes the current route; a
    turn with no confident route, a fallback or a passthrough leaves what was active as it was.
    """
    moved = state.at(position)
    if mode == TurnMode.EXPLICIT and selected:
        return moved.with_explicit(ExplicitActivation(selected, position, key, len(injection),
                                                      packet_sha256(injection)))
    if mode in (TurnMode.ROUTED, TurnMode.REMINDER) and selected:
        return SkillsState(position, state.explicit, selected)
    return moved


def exchange_key(user: Any, answer: Any, identity: Callable[[Any], str]) -> str:
    """The key of a user turn and the turn after it (wire objects, spelled by `identity`), without their prefix.

    The answer is part of it so that a short message many conversations share ("yes", "go on") does
    not make one conversation's exchange look like another's.
    """
    digest = hashlib.sha256(b"skillproxy-exchange-v1")
    for message in (user, answer):
        digest.update(identity(message).encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return digest.hexdigest()[:32]


def find_packet(text: str, activation: ExplicitActivation, opening: str) -> str | None:
    """The packet of `activation` in a forwarded turn's `text`: the span that starts with `opening` and
    has the packet's length and hash; None when the text holds no such span."""
    start = text.find(opening)
    while start >= 0:
        candidate = text[start:start + activation.packet_chars]
        if len(candidate) == activation.packet_chars and packet_sha256(candidate) == activation.packet_sha256:
            return candidate
        start = text.find(opening, start + 1)
    return None
