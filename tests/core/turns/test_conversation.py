"""The neutral conversation's values: copies that change one thing keep every other field."""

from dataclasses import fields, replace

from proxy.core.turns.conversation import Conversation, Role, TextForm, TextPart, Turn
from proxy.surfaces.chat_messages import CHAT_MESSAGES

# Every field away from its default, so a copy that forgot one would show it.
TURN = Turn(Role.USER, (TextPart("hi", {"type": "text", "text": "hi"}),), TextForm.PARTS,
            {"role": "user", "content": [{"type": "text", "text": "hi"}]}, rewritten=True)
SYSTEM = Turn(Role.SYSTEM, (TextPart("be brief"),), TextForm.PLAIN, {"role": "system", "content": "be brief"})
CONVERSATION = Conversation((TURN,), CHAT_MESSAGES, SYSTEM, [{"role": "system"}, {"role": "user"}], chain="resp_1")


def every_field(value: object) -> dict[str, object]:
    return {f.name: getattr(value, f.name) for f in fields(value)}


def test_a_turn_with_new_parts_keeps_every_other_field_and_is_marked_rewritten() -> None:
    parts = (TextPart("new"),)
    changed = TURN.written_as("raw").with_parts(parts, TextForm.PLAIN)
    assert every_field(changed) == every_field(replace(TURN, raw="raw", parts=parts, form=TextForm.PLAIN,
                                                       rewritten=True))


def test_a_turn_written_as_its_wire_object_keeps_every_other_field_and_is_no_longer_rewritten() -> None:
    assert every_field(TURN.written_as("sent")) == every_field(replace(TURN, raw="sent", rewritten=False))


def test_a_conversation_with_other_turns_keeps_its_wire_system_raw_and_chain() -> None:
    other = Turn(Role.ASSISTANT, (TextPart("ok"),), TextForm.PLAIN, {"role": "assistant", "content": "ok"})
    changed = CONVERSATION.with_turns([TURN, other])
    assert every_field(changed) == every_field(replace(CONVERSATION, turns=(TURN, other)))
    assert changed.wire is CHAT_MESSAGES
