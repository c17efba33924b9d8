"""Rewriting the text of turns, over Chat Completions messages read and written by the shell's adapter."""

from proxy.core.turns import turn_text
from proxy.core.turns.turn_text import SEPARATOR
from proxy.surfaces.chat_messages import CHAT_MESSAGES, message_text


def routing_text(message):
    return turn_text.routing_text(CHAT_MESSAGES.read_turn(message))


def prepend_block(message, block):
    return CHAT_MESSAGES.write_turn(turn_text.prepend_block(CHAT_MESSAGES.read_turn(message), block))


def replace_text(message, new_text):
    return CHAT_MESSAGES.write_turn(turn_text.replace_text(CHAT_MESSAGES.read_turn(message), new_text))

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def test_text_of_string_and_parts():
    assert message_text({"role": "user", "content": "hi"}) == "hi"
    parts = {"role": "user", "content": [IMAGE, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert message_text(parts) == "a\nb"
    assert message_text({"role": "user", "content": None}) == "" and message_text("junk") == ""
    assert routing_text({"role": "user", "content": "User: do it"}) == "do it"


def test_prepend_string_and_first_text_part_keeps_images_in_place():
    original = {"role": "user", "content": [IMAGE, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    out = prepend_block(original, "BLOCK")
    assert out["content"][0] == IMAGE
    assert out["content"][1] == {"type": "text", "text": f"BLOCK{SEPARATOR}a"}
    assert out["content"][2] == {"type": "text", "text": "b"}
    assert original["content"][1]["text"] == "a"  # not mutated
    assert prepend_block({"role": "user", "content": "x"}, "B")["content"] == f"B{SEPARATOR}x"


def test_prepend_without_text_part_adds_one_first():
    out = prepend_block({"role": "user", "content": [IMAGE]}, "B")
    assert out["content"] == [{"type": "text", "text": "B"}, IMAGE]


def test_replace_text_merges_text_parts_and_keeps_other_parts_in_order():
    original = {"role": "user", "content": [{"type": "text", "text": "a"}, IMAGE, {"type": "text", "text": "b"}]}
    out = replace_text(original, "PACKET")
    assert out["content"] == [{"type": "text", "text": "PACKET"}, IMAGE]
    assert replace_text({"role": "user", "content": "x"}, "P")["content"] == "P"
