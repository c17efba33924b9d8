"""Per-conversation state, keyed by content: no conversation id from the client.

A user turn's key is a hash of every original message before it plus its own
original content, so the same history always finds the same record. A record
holds exactly what the proxy forwarded for that turn (and any internal skill
tool exchange it ran after it), so the next request can replay it byte for
byte. Where records are kept is the shell's business (`proxy.state`): the
core only reads them, every record a request may need in one call
(`TurnRecordReader`), and returns new ones as values.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from proxy.core.turns.conversation import Conversation, Role, Turn
from proxy.core.turns.skills_state import SkillsState


@dataclass(frozen=True)
class MixedCall:
    """An answer that called the proxy's tools and the client's at once.

    The client got `assistant` without the proxy's calls. When that copy comes
    back (its tool-call ids are `client_call_ids`), the replay puts the whole
    `assistant` and the proxy's `results` in its place, so the model sees what
    it really asked for and what it got. `assistant` and `results` are wire
    objects, written by the surface from the tool loop's neutral `MixedRound`.
    """

    assistant: Any
    results: tuple[Any, ...]
    client_call_ids: tuple[str, ...]

    def answered_by(self, turn: Turn) -> bool:
        """True when `turn` is the client's copy of this answer."""
        return turn.role == Role.ASSISTANT and turn.call_ids == self.client_call_ids


@dataclass(frozen=True)
class TurnRecord:
    """What was forwarded for one message the model answered: a user turn, or client tool results.

    `mode` is the preprocessing mode; `fingerprint` the route fingerprint
    (empty when nothing was routed); `full_injection_at` the time of a full
    routed injection (None for other modes). `tool_exchange` is the proxy's
    own tool rounds that followed the message (assistant tool calls and tool
    results), and `mixed_call` the answer that ended them when it also
    called client tools. `tool_mode` is the mode the blocks were written for;
    `context_mode` and `model` what an activated skill's frontmatter asked
    for (`fork`, and the upstream model that replaces the request's).
    `forwarded`, `tool_exchange` and the mixed call's messages are wire objects,
    exactly as they went out, in the format of the surface that sent them.
    """

    forwarded: Any
    mode: str
    fingerprint: str = ""
    full_injection_at: float | None = None
    tool_exchange: tuple[Any, ...] = ()
    mixed_call: MixedCall | None = None
    tool_mode: str = ""
    context_mode: str | None = None
    model: str | None = None
    skills: SkillsState | None = None
    # `forwarded` as a turn, kept by the process that made the record so its replay need not read the wire
    # object again; a record from another process (Redis) has none.
    turn: Turn | None = field(default=None, compare=False, repr=False)

    def sent_as(self, forwarded: Any, turn: Turn | None, tool_mode: str) -> TurnRecord:
        """`replace(self, forwarded=..., turn=..., tool_mode=...)` for every new turn, at a third of the cost
        (tests/core/turns/test_turn_values.py checks that it keeps every other field)."""
        return TurnRecord(forwarded, self.mode, self.fingerprint, self.full_injection_at, self.tool_exchange,
                          self.mixed_call, tool_mode, self.context_mode, self.model, self.skills, turn)

    def with_skills(self, skills: SkillsState) -> TurnRecord:
        """`replace(self, skills=skills)`, as cheap as `sent_as` (checked beside it)."""
        return TurnRecord(self.forwarded, self.mode, self.fingerprint, self.full_injection_at, self.tool_exchange,
                          self.mixed_call, self.tool_mode, self.context_mode, self.model, skills, self.turn)


class TurnRecordReader(Protocol):
    """Where the preprocessor reads earlier turns' records: all of a request's keys in one call.

    The result holds the keys that have a record (at time `now`), and no others.
    """

    def get_many(self, keys: Sequence[str], now: float) -> Mapping[str, TurnRecord]: ...


# What `json.dumps(..., sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)` makes
# one for each call: made once, as every request spells each of its messages.
_COMPACT = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def canonical_message(message: Any) -> str:
    """A Chat Completions message's identity: the fields that say what was said, in one spelling."""
    if isinstance(message, dict):
        kept = {k: message.get(k) for k in ("role", "content", "tool_calls", "tool_call_id", "name") if k in message}
        return _COMPACT.encode(kept)
    return json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)


def prefix_keys(messages: Sequence[Any], identity: Callable[[Any], str] = canonical_message,
                chain: str = "") -> list[str]:
    """keys[i] is the hash of messages[0..i] (inclusive): the key of a user turn at index i.

    `identity` spells each message; `chain`, when set, is the held history the messages continue.
    """
    keys: list[str] = []
    running = hashlib.sha256(b"skillproxy-turn-v1")
    if chain:
        running.update(b"chain\x1f" + chain.encode("utf-8", "surrogatepass") + b"\x1e")
    for message in messages:
        running.update(identity(message).encode("utf-8", "surrogatepass"))
        running.update(b"\x1e")
        keys.append(running.copy().hexdigest()[:32])
    return keys

def turn_keys(conversation: Conversation) -> list[str]:
    """keys[i] is the key of `conversation.turns[i]`: the hash of the wire objects up to it, the system first."""
    keys = prefix_keys([turn.raw for turn in conversation.wire_turns()], conversation.wire.identity,
                       conversation.chain)
    return keys if conversation.system is None else keys[1:]


def chain_key(response_id: str) -> str:
    """The key of what the proxy decided last in a history the upstream holds, by the response that ended it."""
    return hashlib.sha256(b"skillproxy-chain-v1\x1e" + response_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
