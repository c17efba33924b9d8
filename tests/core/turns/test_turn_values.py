"""Copies of the turn values that change a few fields: every other field is kept.

Turns, conversations, records and outcomes are copied several times per request by methods
that name each field (cheaper than `dataclasses.replace`). Each is checked against `replace`
on a value whose every field holds its own marker, so a field added later and forgotten by
the method fails here.
"""

from dataclasses import fields, replace
from typing import Any

from proxy.core.turns.conversation import Conversation, Turn
from proxy.core.turns.records import TurnRecord
from proxy.core.turns.turn_decision import TurnOutcome


class Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


def marked(cls: type) -> Any:
    """An instance of `cls` whose every field holds a marker of its own."""
    return cls(**{f.name: Marker(f.name) for f in fields(cls)})


def every_field(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in fields(value)}


def test_a_turn_with_new_parts_keeps_every_other_field_and_is_marked_rewritten() -> None:
    turn, parts, form = marked(Turn), [Marker("new part")], Marker("new form")
    assert every_field(turn.with_parts(parts, form)) == every_field(
        replace(turn, parts=tuple(parts), form=form, rewritten=True))


def test_a_turn_written_as_its_wire_object_keeps_every_other_field_and_is_no_longer_rewritten() -> None:
    turn, raw = marked(Turn), Marker("sent")
    assert every_field(turn.written_as(raw)) == every_field(replace(turn, raw=raw, rewritten=False))


def test_a_conversation_with_other_turns_keeps_its_wire_system_raw_and_chain() -> None:
    conversation, turns = marked(Conversation), [Marker("a"), Marker("b")]
    assert every_field(conversation.with_turns(turns)) == every_field(replace(conversation, turns=tuple(turns)))


def test_a_record_of_what_was_sent_keeps_every_other_field() -> None:
    record, forwarded, turn, tool_mode = marked(TurnRecord), Marker("forwarded"), Marker("turn"), Marker("mode")
    assert every_field(record.sent_as(forwarded, turn, tool_mode)) == every_field(
        replace(record, forwarded=forwarded, turn=turn, tool_mode=tool_mode))


def test_a_record_with_its_skills_keeps_every_other_field() -> None:
    record, skills = marked(TurnRecord), Marker("skills")
    assert every_field(record.with_skills(skills)) == every_field(replace(record, skills=skills))


def test_an_outcome_with_its_written_record_keeps_every_other_field() -> None:
    outcome, record = marked(TurnOutcome), Marker("record")
    assert every_field(outcome.with_record(record)) == every_field(replace(outcome, record=record))
