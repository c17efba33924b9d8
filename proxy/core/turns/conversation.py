"""A conversation in a form no wire format owns: the system text, and turns of parts.

A turn's parts are text, opaque parts kept in place (images, files, anything
the proxy does not read), tool calls and tool results. Every value keeps the
wire object it was read from (`raw`), and a turn the proxy did not rewrite is
written back as exactly that object, so its bytes never change. Each surface
has an adapter (`TurnWire`) that reads its request into this form and writes
the rewritten form back; the conversation carries the adapter it was read
with, so the turns the proxy writes or replays come out in the same format.

What must not: know any wire format's field names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol


class Role(StrEnum):
    """The roles the proxy reads; a wire's other roles are kept as their own strings."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class TextForm(StrEnum):
    """How a turn holds its text, so a rewrite keeps the client's shape."""

    PLAIN = "plain"  # one text: a rewrite keeps it one text
    PARTS = "parts"  # a list of parts: a rewrite changes text parts, every other part keeps its place
    NONE = "none"  # nothing the proxy may rewrite (absent, null, a number, an object)


@dataclass(frozen=True)
class TextPart:
    text: str
    raw: Any = None  # the wire part; None for text the proxy wrote


@dataclass(frozen=True)
class OpaquePart:
    """A part the proxy never reads or changes: it goes back as it came, in its place."""

    raw: Any


@dataclass(frozen=True)
class ToolCallPart:
    """A call the model made: `arguments` as the wire carries them (JSON text, or an object)."""

    id: Any
    name: str
    arguments: Any = None
    raw: Any = None


@dataclass(frozen=True)
class ToolResultPart:
    """The result of the call `call_id`; its content is the wire's own."""

    call_id: Any
    raw: Any = None


Part = TextPart | OpaquePart | ToolCallPart | ToolResultPart


@dataclass(frozen=True)
class Turn:
    """One entry of the conversation. `rewritten` is set once the proxy changed its parts or made the turn;
    until then the turn is written back as its `raw` (which may be any JSON value, null included)."""

    role: str
    parts: tuple[Part, ...] = ()
    form: TextForm = TextForm.NONE
    raw: Any = None
    rewritten: bool = False

    @property
    def text(self) -> str:
        """The turn's text parts joined by newlines."""
        return "\n".join(part.text for part in self.parts if isinstance(part, TextPart))

    @property
    def is_user(self) -> bool:
        """A person's message (tool results a wire sends under the user role are not one)."""
        return self.role == Role.USER and not self.answers_tools

    @property
    def answers_tools(self) -> bool:
        for part in self.parts:  # noqa: SIM110 - a loop, not any(): asked of every turn of every request
            if isinstance(part, ToolResultPart):
                return True
        return False

    @property
    def is_system(self) -> bool:
        return self.role == Role.SYSTEM

    @property
    def call_ids(self) -> tuple[Any, ...]:
        return tuple(part.id for part in self.parts if isinstance(part, ToolCallPart))

    # These two and `Conversation.with_turns` run several times per request: each names every
    # field (a test checks they match `dataclasses.replace`), which costs a third of `replace`.
    def with_parts(self, parts: Iterable[Part], form: TextForm) -> Turn:
        return Turn(self.role, tuple(parts), form, self.raw, True)

    def written_as(self, raw: Any) -> Turn:
        """The turn as it went out: `raw`, the wire object written for it, is its own from now on."""
        return Turn(self.role, self.parts, self.form, raw, False)


class TurnWire(Protocol):
    """A wire format's adapter: its objects to turns and back."""

    def read_turn(self, raw: Any) -> Turn:
        """The turn a wire object holds; never raises, whatever the object."""
        ...

    def write_turn(self, turn: Turn) -> Any:
        """The wire object for `turn`: its `raw` itself when it was not rewritten."""
        ...

    def write(self, conversation: Conversation) -> Any:
        """The whole conversation in the wire's form."""
        ...

    def identity(self, raw: Any) -> str:
        """What names a wire object in the state keys: its content, without what a client changes from one
        request to the next for the same turn (a cache marker, a per-request attribution); one text."""
        ...


@dataclass(frozen=True)
class Conversation:
    """`system` is the leading system turn (None when there is none); `raw` the wire value read.

    `chain` names a history the upstream holds and this conversation continues (a Responses
    `previous_response_id`): the turns are only what is new, and the keys of their records start from it.
    """

    turns: tuple[Turn, ...]
    wire: TurnWire = field(compare=False, repr=False)
    system: Turn | None = None
    raw: Any = None
    chain: str = ""

    @property
    def is_empty(self) -> bool:
        return self.system is None and not self.turns

    @property
    def size(self) -> int:
        """Turns, the system turn counted."""
        return len(self.turns) + (self.system is not None)

    def with_turns(self, turns: Iterable[Turn]) -> Conversation:
        return Conversation(tuple(turns), self.wire, self.system, self.raw, self.chain)

    def with_system(self, system: Turn | None) -> Conversation:
        return replace(self, system=system)

    def wire_turns(self) -> tuple[Turn, ...]:
        """Every turn in wire order, the system turn first."""
        return self.turns if self.system is None else (self.system, *self.turns)

    def written(self) -> Any:
        return self.wire.write(self)
