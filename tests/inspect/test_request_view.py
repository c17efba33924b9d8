"""request_view: a record keeps references, cut at the cap; the injected text is worked out when asked."""

from __future__ import annotations

from proxy.core.turns.preprocess_result import Preprocessed
from proxy.inspect.request_view import TurnTexts, chat_turn, detail, injected, record_of, summary, turn_texts
from proxy.request_record import RequestRecord
from proxy.surfaces.chat_messages import CHAT_MESSAGES, read_messages

turn_of = CHAT_MESSAGES.read_turn

BLOCK = "<routed_skills>\n<skill>pdf</skill>\n</routed_skills>\n\n---\n\n"


def test_a_prepended_block_is_the_injected_text():
    turn = turn_texts(turn_of({"role": "user", "content": "fill the form"}),
                      turn_of({"role": "user", "content": BLOCK + "fill the form"}))
    assert injected(turn).how == "prepended" and injected(turn).text == BLOCK
    assert injected(turn).chars == len(BLOCK) and not injected(turn).truncated


def test_a_replaced_message_shows_the_whole_forwarded_text():
    packet = "<skill_invocation_packet>...</skill_invocation_packet>\n<task_payload>fill it</task_payload>"
    turn = turn_texts(turn_of({"role": "user", "content": "$pdf fill it"}),
                      turn_of({"role": "user", "content": packet}))
    assert injected(turn).how == "replaced" and injected(turn).text == packet and injected(turn).chars == len(packet)


def test_an_untouched_message_injected_nothing():
    message = {"role": "user", "content": "hello"}
    assert injected(turn_texts(turn_of(message), turn_of(dict(message)))).how == "none"
    assert injected(None).how == "none" and injected(None).chars == 0


def test_text_parts_are_read_and_images_ignored():
    sent = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x"}},
                                        {"type": "text", "text": "what is this?"}]}
    forwarded = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x"}},
                                             {"type": "text", "text": BLOCK + "what is this?"}]}
    assert injected(turn_texts(turn_of(sent), turn_of(forwarded))).text == BLOCK


def test_long_messages_are_cut_at_the_cap_and_the_injection_still_found():
    user = "x" * 1000
    turn = turn_texts(turn_of({"content": user}), turn_of({"content": BLOCK + user}), cap=100)
    assert len(turn.sent) == len(turn.forwarded) == 100 and turn.sent_chars == 1000
    assert injected(turn).text == BLOCK and not injected(turn).truncated
    huge_block = "B" * 300
    cut = injected(turn_texts(turn_of({"content": user}), turn_of({"content": huge_block + user}), cap=100))
    assert cut.how == "prepended" and cut.text == "B" * 100 and cut.chars == 300 and cut.truncated


def test_a_record_keeps_references_not_copies():
    content = "please fill the form " * 10
    sent = {"role": "user", "content": content}
    result = Preprocessed(read_messages([{"role": "user", "content": BLOCK + content}]), "routed", "pdf=80",
                          selected=("pdf",))
    turn = chat_turn(read_messages([sent]), result)
    record = record_of(RequestRecord(request_id="r1", path="/v1/chat/completions", chat_turn=turn), 5.0)
    assert record.turn is not None and record.turn.sent is content


def test_a_record_does_not_hold_the_conversation():
    """The history keeps hundreds of records: none may pin a request's messages (images can be megabytes)."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 100_000}}
    sent = {"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]}
    forwarded = {"role": "user", "content": [{"type": "text", "text": BLOCK + "what is this?"}, image]}
    result = Preprocessed(read_messages([forwarded]),
                          "routed", "pdf=80", selected=("pdf",))
    turn = chat_turn(read_messages([sent]), result)
    record = record_of(RequestRecord(request_id="r1", status=200, chat_turn=turn), 5.0)
    assert record.line == {"request_id": "r1", "status": 200} and record.request.chat_turn is None
    assert record.turn is not None and record.turn.sent == "what is this?" and injected(record.turn).chars == len(BLOCK)


def test_summary_and_detail_leave_out_the_chat_turn():
    result = Preprocessed(read_messages([{"role": "user", "content": BLOCK + "hi"}]), "routed", "pdf=80",
                          selected=("pdf",),
                          events=({"event": "prompt_route"},))
    line = RequestRecord(request_id="r1", method="POST", path="/v1/chat/completions", status=200, mode="routed",
                         selected=["pdf"],
                         chat_turn=chat_turn(read_messages([{"role": "user", "content": "hi"}]), result))
    record = record_of(line, 12.5)
    row = summary(record)
    assert row["at"] == 12.5 and row["injected_chars"] == len(BLOCK) and row["selected"] == ["pdf"]
    assert "chat_turn" not in row and "chat_turn" not in detail(record)["line"]
    assert detail(record)["events"] == [{"event": "prompt_route"}] and detail(record)["sent_text"] == "hi"


def test_a_request_that_is_not_a_chat_has_no_turn():
    record = record_of(RequestRecord(request_id="r2", method="GET", path="/v1/models", status=200), 1.0)
    assert record.turn is None and summary(record)["injected_chars"] == 0
    assert detail(record)["injected"]["how"] == "none" and detail(record)["sent_text"] is None


def test_turn_texts_of_odd_messages_are_empty():
    assert turn_texts(None, turn_of({"content": 3})) == TurnTexts("", "", 0, 0)
