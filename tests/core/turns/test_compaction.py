"""Skills that survive compaction: a history the client rewrote gets the skills it dropped back, once.

A five-turn Chat conversation (turn 1 routed to sql-query-tuning, turn 2 `$pdf-tools`) is
shortened the ways clients do it, and each request is preprocessed and its records kept as
the engine keeps them.

- Detection: turns 1-3 replaced by a summary, or simply dropped, or the middle cut out;
  `compaction_detected` says how many turns went and what was put back. A new conversation,
  one that only grew, one whose records are gone and one with a changed system prompt are
  not compactions; nor is a new conversation sharing a short message with a known one.
- The block: `<skills_after_compaction>` in front of the first kept user turn, with the
  original packet when it fits `compaction_reinject_chars`, the skill named only when it does
  not (or its record is gone), nothing at 0. An activation in a kept turn, or quoted by the
  summary, is not put back twice.
- Replay: the same request again, and the next one, forward the same bytes and do not put
  the block back again; a second compaction finds the packet in the first one's turn.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from proxy.core.catalog.scope import SkillScope
from proxy.core.turns.compaction import looks_like_summary
from proxy.core.turns.conversation import Role, TextForm, TextPart, Turn
from proxy.core.turns.preprocessor import preprocess
from proxy.core.turns.record_json import decode_record, encode_record
from proxy.core.turns.turn_decision import PreprocessConfig
from proxy.state.memory_store import MemoryTurnStore
from proxy.surfaces.chat_messages import message_text
from proxy.surfaces.responses_input import read_input
from tests.core.skill_factory import SKILLS, context_for, write_catalog
from tests.core.turns.chat_wire import assistant, run, user

SQL = "my SQL query is slow, how do I read the EXPLAIN plan"
TEXTS = [SQL, "$pdf-tools merge a.pdf and b.pdf into report.pdf", "now add page numbers to report.pdf",
         "and split it into one file per chapter", "what about bookmarks for each chapter?"]
SUMMARY = "Summary: the user tuned a slow SQL query, then merged two PDFs and numbered the pages."
NEXT = "now compress the chapter files"
PACKET = "<skill_invocation_packet "
BLOCK = "<skills_after_compaction "
CONFIG = PreprocessConfig()


@pytest.fixture
def context(tmp_path):
    return context_for(write_catalog(tmp_path / "skills"))


def converse(context: Any, store: Any, texts: list[str] = TEXTS, config: PreprocessConfig = CONFIG,
             start: list[dict] | None = None) -> list[dict]:
    """Each text as a new turn through the store; the history as the client holds it (answers included)."""
    history = list(start or [])
    for number, text in enumerate(texts):
        history.append(user(text))
        run(list(history), context, store, 10.0 * number, config)
        history.append(assistant(f"answer {len(history) // 2}"))
    return history


def events(result: Any, name: str) -> list[dict]:
    return [e for e in result.events if e["event"] == name]


def texts_of(messages: list[dict]) -> list[str]:
    return [message_text(m) for m in messages]


def compacted(history: list[dict], keep_from: int, *head: dict) -> list[dict]:
    """`head` (a summary, or nothing) in place of the messages before `keep_from`, then the next turn."""
    return [*head, *history[keep_from:], user(NEXT)]


# ---- detection -------------------------------------------------------------------------------------

def test_turns_replaced_by_a_summary_get_the_packet_back_once_where_the_history_resumes(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    request = compacted(history, 6, user(SUMMARY))  # turns 1-3 (six messages) become one summary
    result = run(request, context, store, 100.0, CONFIG)
    [event] = events(result, "compaction_detected")
    assert event == {"event": "compaction_detected", "dropped_turns": 5, "resumed_at": 1, "summary": True,
                     "reinjected": ["pdf-tools:packet"], "chars": event["chars"]}
    sent = texts_of(result.messages)
    assert sent[1].startswith('<skills_after_compaction dropped_turns="5" reinjected_packets="1">')
    assert sent[1].endswith(TEXTS[3]), "the kept turn follows the block"
    assert event["chars"] == sent[1].index("</skills_after_compaction>") + len("</skills_after_compaction>")
    assert sum(text.count(PACKET) for text in sent) == 1, "the packet once, and only there"
    assert "Task: merge a.pdf and b.pdf into report.pdf" in sent[1], "the packet as it was forwarded in turn 2"
    assert "<n>sql-query-tuning</n>" not in sent[1], "routed again by the summary itself: not listed twice"


def test_dropped_turns_without_a_summary_are_detected_too(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    result = run(compacted(history, 4), context, store, 100.0, CONFIG)  # turns 1-2 gone, nothing in their place
    [event] = events(result, "compaction_detected")
    assert (event["dropped_turns"], event["resumed_at"], event["summary"]) == (4, 0, False)
    assert event["reinjected"] == ["pdf-tools:packet", "sql-query-tuning:compact"]
    first = texts_of(result.messages)[0]
    assert first.startswith(BLOCK) and 'activation="routed" reinjected="compact"' in first
    assert "earlier turns were dropped" in first


def test_the_middle_cut_out_resumes_after_the_kept_first_turn(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    result = run([*history[:2], *compacted(history, 6)], context, store, 100.0, CONFIG)
    [event] = events(result, "compaction_detected")
    assert (event["dropped_turns"], event["resumed_at"]) == (4, 2)
    sent = texts_of(result.messages)
    assert "<routed_skills>" in sent[0], "the first turn, kept, is replayed from its record"
    assert sent[2].startswith(BLOCK) and PACKET in sent[2]


def test_the_summary_wordings_clients_use_are_recognised():
    def said(text: str) -> Turn:
        return Turn(Role.USER, (TextPart(text),), TextForm.PLAIN)

    for text in ("Summary: x", "<summary>x</summary>", "## Summary\nx", "**Conversation summary**",
                 "This session is being continued from a previous conversation that ran out of context."):
        assert looks_like_summary(said(text)), text
    assert not looks_like_summary(said("please merge the PDFs"))


def test_a_new_conversation_is_not_a_compaction(context):
    store = MemoryTurnStore()
    converse(context, store)
    stranger = [user("Summary: we talked about PDFs."), assistant("ok"), user("$pdf-tools split x.pdf"),
                assistant("done"), user(NEXT)]
    result = run(stranger, context, store, 100.0, CONFIG)
    assert not events(result, "compaction_detected")
    assert BLOCK not in json.dumps(result.messages)


def test_a_short_message_another_conversation_also_sent_does_not_make_a_compaction(context):
    store = MemoryTurnStore()
    converse(context, store, [*TEXTS[:2], "yes", "yes", "go on"])
    other = [user("hello"), assistant("hi"), user("yes"), assistant("something else entirely"), user(NEXT)]
    result = run(other, context, store, 100.0, CONFIG)
    assert not events(result, "compaction_detected")


def test_a_conversation_that_only_grew_is_not_a_compaction(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    result = run([*history, user(NEXT)], context, store, 100.0, CONFIG)
    assert not events(result, "compaction_detected") and not events(result, "replay_recomputed")


def test_records_gone_but_exchanges_kept_is_not_a_compaction(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    exchanges_only = MemoryTurnStore()
    for key, (_at, record) in store._records.items():
        if record.forwarded is None:
            exchanges_only.put(key, record, 0.0)
    result = run([*history, user(NEXT)], context, exchanges_only, 100.0, CONFIG)
    assert events(result, "replay_recomputed") and not events(result, "compaction_detected")


def test_a_changed_system_prompt_is_not_a_compaction(context):
    store = MemoryTurnStore()
    history = converse(context, store, start=[{"role": "system", "content": "today is Monday"}])
    request = [{"role": "system", "content": "today is Tuesday"}, *history[1:], user(NEXT)]
    result = run(request, context, store, 100.0, CONFIG)
    assert events(result, "replay_recomputed") and not events(result, "compaction_detected")


# ---- the block and its budget ------------------------------------------------------------------------

def test_a_packet_over_the_budget_leaves_its_skill_named_with_how_to_read_it(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    small = PreprocessConfig(compaction_reinject_chars=900)
    result = run(compacted(history, 6, user(SUMMARY)), context, store, 100.0, small)
    [event] = events(result, "compaction_detected")
    assert event["reinjected"] == ["pdf-tools:compact"] and 0 < event["chars"] <= 900
    block = texts_of(result.messages)[1]
    assert PACKET not in block and "call read_skill_file with its name" in block
    assert f"<description>{SKILLS['pdf-tools'][0]}</description>" in block


def test_the_packet_goes_in_when_the_whole_block_fits_the_budget(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    roomy = run(compacted(history, 6, user(SUMMARY)), context, store, 100.0, CONFIG)
    chars = events(roomy, "compaction_detected")[0]["chars"]
    for budget, form in ((chars, "packet"), (chars - 1, "compact")):
        fresh = MemoryTurnStore()
        converse(context, fresh)
        result = run(compacted(history, 6, user(SUMMARY)), context, fresh, 100.0,
                     PreprocessConfig(compaction_reinject_chars=budget))
        assert events(result, "compaction_detected")[0]["reinjected"] == [f"pdf-tools:{form}"]


def test_a_budget_of_zero_puts_no_block_in_but_still_says_what_happened(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    result = run(compacted(history, 6, user(SUMMARY)), context, store, 100.0,
                 PreprocessConfig(compaction_reinject_chars=0))
    [event] = events(result, "compaction_detected")
    assert (event["dropped_turns"], event["reinjected"], event["chars"]) == (5, [], 0)
    assert BLOCK not in json.dumps(result.messages)


def test_a_packet_whose_record_is_gone_is_named_only(context):
    store = MemoryTurnStore(ttl=50.0)
    history = converse(context, store)  # turn 2's record is written at t=10, the exchanges up to t=40
    result = run(compacted(history, 6, user(SUMMARY)), context, store, 70.0, CONFIG)
    assert events(result, "compaction_detected")[0]["reinjected"] == ["pdf-tools:compact"]


def test_an_activation_in_a_kept_turn_is_not_put_back_twice(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    result = run(compacted(history, 2), context, store, 100.0, CONFIG)  # only turn 1 dropped
    [event] = events(result, "compaction_detected")
    assert event["reinjected"] == ["sql-query-tuning:compact"]
    assert sum(text.count(PACKET) for text in texts_of(result.messages)) == 1, "turn 2's own, replayed"


def test_a_summary_that_quotes_the_activation_is_not_followed_by_the_packet_again(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    quoting = user("Summary: the user asked `$pdf-tools merge a.pdf and b.pdf into report.pdf` and more.")
    result = run(compacted(history, 6, quoting), context, store, 100.0, CONFIG)
    [event] = events(result, "compaction_detected")
    assert "pdf-tools:packet" not in event["reinjected"]
    assert sum(text.count(PACKET) for text in texts_of(result.messages)) == 1, "the summary's own packet"


def test_a_skill_out_of_the_requests_scope_is_not_put_back(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    narrowed = context.narrowed(SkillScope.of(deny=["pdf-*"]))  # X-Skills-Deny: pdf-*
    result = run(compacted(history, 4), narrowed, store, 100.0, CONFIG)
    [event] = events(result, "compaction_detected")
    assert event["reinjected"] == ["sql-query-tuning:compact"]
    assert PACKET not in texts_of(result.messages)[0]


# ---- replay --------------------------------------------------------------------------------------------

def test_the_same_request_again_and_the_next_one_replay_the_block_and_do_not_put_it_back_again(context):
    store = MemoryTurnStore()
    history = converse(context, store)
    request = compacted(history, 6, user(SUMMARY))
    first = run(request, context, store, 100.0, CONFIG)
    again = run(request, context, store, 101.0, CONFIG)
    assert json.dumps(again.messages) == json.dumps(first.messages)
    following = run([*request, assistant("compressed"), user("thanks, now rotate page 2")], context, store, 102.0,
                    CONFIG)
    assert following.messages[: len(first.messages)] == first.messages, "the prompt extends the compacted one"
    for result in (again, following):
        assert not events(result, "compaction_detected") and not events(result, "replay_recomputed")
    assert sum(text.count(BLOCK) for text in texts_of(following.messages)) == 1


def test_a_second_compaction_finds_the_packet_in_the_turn_the_first_one_put_it_in(context):
    store = MemoryTurnStore(ttl=95.0)
    history = converse(context, store)
    request = compacted(history, 6, user(SUMMARY))
    run(request, context, store, 100.0, CONFIG)
    grown = [*request, assistant("compressed")]
    for number, text in enumerate(["rotate page 2", "and page 3", "now export it"]):
        grown.append(user(text))
        run(list(grown), context, store, 110.0 + number, CONFIG)
        grown.append(assistant(f"done {number}"))
    # turn 2's own record has expired (t=10 + 95): the packet now lives only in the first block's turn
    second = run([user("Summary: PDFs merged, numbered, split, compressed, rotated."), *grown[-4:], user(NEXT)],
                 context, store, 120.0, CONFIG)
    [event] = events(second, "compaction_detected")
    assert event["reinjected"][0] == "pdf-tools:packet"
    assert "Task: merge a.pdf and b.pdf into report.pdf" in texts_of(second.messages)[1]


def test_records_read_back_from_json_give_the_same_bytes(context):
    """What a Redis store keeps is the JSON of each record: the compaction is found and put back the same way."""

    class JsonStore(MemoryTurnStore):
        def put(self, key, record, now):
            super().put(key, decode_record(encode_record(record)), now)

    plain, through_json = MemoryTurnStore(), JsonStore()
    history = converse(context, plain)
    converse(context, through_json)
    request = compacted(history, 6, user(SUMMARY))
    a = run(request, context, plain, 100.0, CONFIG)
    b = run(request, context, through_json, 100.0, CONFIG)
    assert json.dumps(a.messages) == json.dumps(b.messages) and events(b, "compaction_detected")


def test_a_responses_input_is_compacted_and_put_back_the_same_way(context):
    """The core reads turns through each surface's wire: the Responses `input` list, with `instructions`."""
    def item(role: str, text: str) -> dict:
        kind = "input_text" if role == "user" else "output_text"
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    store, items = MemoryTurnStore(), []
    for number, text in enumerate(TEXTS):
        items.append(item("user", text))
        result = preprocess(read_input({"instructions": "be brief", "input": list(items)}), context, store, CONFIG,
                            10.0 * number)
        for key, record in result.records:
            store.put(key, record, 10.0 * number)
        items.append({"id": f"msg_{number}", "status": "completed", **item("assistant", f"answer {number}")})
    request = [item("user", SUMMARY), *items[6:], item("user", NEXT)]
    result = preprocess(read_input({"instructions": "be brief", "input": request}), context, store, CONFIG, 100.0)
    [event] = events(result, "compaction_detected")
    assert (event["dropped_turns"], event["resumed_at"], event["reinjected"]) == (5, 1, ["pdf-tools:packet"])
    sent = result.messages
    assert sent[1]["content"][0]["text"].startswith(BLOCK) and json.dumps(sent).count(PACKET) == 1
