"""The preprocessor over whole conversations: replay, reminders, refresh, fallback."""

import pytest

from proxy.core.turns.records import prefix_keys
from proxy.core.turns.turn_decision import PreprocessConfig
from proxy.state.memory_store import MemoryTurnStore
from proxy.surfaces.chat_messages import message_text
from tests.core.skill_factory import context_for, write_catalog
from tests.core.turns import chat_wire
from tests.core.turns.chat_wire import assistant, fallback, preprocess, user

CONFIG = PreprocessConfig(refresh_interval=1800)
SQL = "my SQL query is slow, how do I read the EXPLAIN plan and which index should I add"


@pytest.fixture
def context(tmp_path):
    return context_for(write_catalog(tmp_path / "skills"))


def run(messages, context, store, now, config=CONFIG):
    return chat_wire.run(messages, context, store, now, config)


def test_six_turn_conversation_is_prefix_stable(context):
    store = MemoryTurnStore()
    turns = [
        (SQL, "routed"),
        ("the slow query still does a seq scan after adding an index on the SQL table", "reminder"),
        ("thanks! what's the capital of France?", "none"),
        ("$pdf-tools merge a.pdf and b.pdf", "explicit"),
        ("back to the slow SQL query: the EXPLAIN plan shows a nested loop", "reminder"),
        ("write release notes and a changelog entry from these commits", "routed"),
    ]
    history, previous_forwarded, modes = [], None, []
    for number, (text, _expected_mode) in enumerate(turns):
        history.append(user(text))
        result = run(list(history), context, store, now=100.0 * number)
        modes.append(result.mode)
        forwarded = result.messages
        assert len(forwarded) == len(history)
        if previous_forwarded is not None:
            assert forwarded[: len(previous_forwarded)] == previous_forwarded, f"turn {number} broke the prefix"
        history.append(assistant(f"answer {number}"))
        previous_forwarded = [*forwarded, assistant(f"answer {number}")]
    assert modes == [mode for _, mode in turns]
    assert "<routed_skills>" in message_text(previous_forwarded[0])
    assert 'reason="route unchanged"' in message_text(previous_forwarded[2])
    assert "<skill_invocation_packet" in message_text(previous_forwarded[6])


def test_refresh_interval_forces_a_full_injection(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    second = run([user(SQL), assistant("a"), user(SQL + " again")], context, store, now=1801.0)
    assert first.mode == "routed" and second.mode == "routed"
    assert any(e.get("reason") == "refresh_interval" for e in second.events)


def test_missing_record_is_recomputed_to_the_same_text(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    fresh_store = MemoryTurnStore()  # a restart
    second = run([user(SQL), assistant("a"), user("and the index is not used")], context, fresh_store, now=5.0)
    assert second.messages[0] == first.messages[-1]
    assert any(e["event"] == "replay_recomputed" for e in second.events)


def test_identical_request_gets_identical_forwarded_text(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    again = run([user(SQL)], context, store, now=50.0)
    assert again.messages == first.messages


def test_client_tool_exchange_is_not_a_new_turn(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    messages = [user(SQL), {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
                {"role": "tool", "tool_call_id": "c1", "content": "42"}]
    result = run(messages, context, store, now=1.0)
    assert result.mode == "passthrough" and result.messages[0] == first.messages[0]
    assert result.messages[1:] == messages[1:]


def test_recorded_tool_exchange_is_replayed_after_its_turn(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    key, record = first.records[-1]
    exchange = ({"role": "assistant", "content": None, "tool_calls": [{"id": "sp_1"}]},
                {"role": "tool", "tool_call_id": "sp_1", "content": "# SQL"})
    from dataclasses import replace
    store.put(key, replace(record, tool_exchange=exchange), 0.0)
    result = run([user(SQL), assistant("done"), user("more")], context, store, now=1.0)
    assert result.messages[1:3] == list(exchange) and result.messages[3] == assistant("done")


def test_passthrough_cases(context):
    store = MemoryTurnStore()
    assert preprocess([], context, store, CONFIG, 0).mode == "passthrough"
    assert preprocess("nope", context, store, CONFIG, 0).messages == "nope"
    empty = preprocess([user("   ")], context, store, CONFIG, 0)
    assert empty.mode == "passthrough" and empty.messages == [user("   ")]


def test_original_messages_are_never_mutated(context):
    messages = [user(SQL)]
    snapshot = [dict(m) for m in messages]
    preprocess(messages, context, MemoryTurnStore(), CONFIG, 0)
    assert messages == snapshot


def test_fallback_adds_reminder_and_replays_known_turns(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    result = fallback([user(SQL), assistant("a"), user("next")], store, now=1.0, reason="timeout")
    assert result.mode == "fallback" and result.messages[0] == first.messages[-1]
    assert message_text(result.messages[-1]).startswith(
        '<skills_runtime_reminder reason="scan timeout or routing error">')
    assert result.events[0] == {"event": "preprocess_fallback", "reason": "timeout"}
    assert fallback(None, None, 0.0).mode == "fallback"


def _stored_with(store, result, **changes):
    from dataclasses import replace

    key, record = result.anchor
    store.put(key, replace(record, **changes), 0.0)


def test_a_mixed_answer_is_replayed_whole_in_place_of_the_clients_copy(context):
    from proxy.core.turns.records import MixedCall

    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    whole = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "skp_1", "type": "function", "function": {"name": "read_skill_file", "arguments": "{}"}},
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}
    ours = {"role": "tool", "tool_call_id": "skp_1", "content": "# SQL"}
    _stored_with(store, first, mixed_call=MixedCall(whole, (ours,), ("c1",)))
    clients_copy = {"role": "assistant", "content": None, "tool_calls": [whole["tool_calls"][1]]}
    theirs = {"role": "tool", "tool_call_id": "c1", "content": "sunny"}
    result = run([user(SQL), clients_copy, theirs], context, store, now=1.0)
    assert result.messages[1:] == [whole, ours, theirs]
    assert result.anchor[0] == prefix_keys([user(SQL), clients_copy, theirs])[-1]


def test_a_mixed_record_only_replaces_the_matching_answer(context):
    from proxy.core.turns.records import MixedCall

    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    _stored_with(store, first, mixed_call=MixedCall({"role": "assistant", "tool_calls": []}, (), ("other",)))
    different = {"role": "assistant", "content": "plain answer"}
    result = run([user(SQL), different, user("thanks")], context, store, now=1.0)
    assert result.messages[1] == different


def test_our_rounds_after_client_tool_results_are_replayed_after_them(context):
    store = MemoryTurnStore()
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]}
    result_msg = {"role": "tool", "tool_call_id": "c1", "content": "42"}
    history = [user(SQL), call, result_msg]
    run([user(SQL)], context, store, now=0.0)
    ends_in_tool = run(history, context, store, now=1.0)
    assert ends_in_tool.anchor[1].forwarded == result_msg
    exchange = ({"role": "assistant", "content": None, "tool_calls": [{"id": "skp_9"}]},
                {"role": "tool", "tool_call_id": "skp_9", "content": "# SQL"})
    _stored_with(store, ends_in_tool, tool_exchange=exchange)
    later = run([*history, assistant("done"), user("next")], context, store, now=2.0)
    assert later.messages[3:6] == [*exchange, assistant("done")]
    again = run(history, context, store, now=3.0)
    assert again.messages[1:] == history[1:], "the newest message is never followed by an old exchange"


def test_an_identical_request_in_another_tool_mode_is_decided_again(context):
    from dataclasses import replace

    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    inline = run([user(SQL)], context, store, now=1.0, config=replace(CONFIG, tool_mode="inline"))
    assert first.route_header != "replayed" and inline.route_header != "replayed"
    assert message_text(inline.messages[-1]) != message_text(first.messages[-1])
    inline_again = run([user(SQL)], context, store, now=2.0, config=replace(CONFIG, tool_mode="inline"))
    assert inline_again.route_header == "replayed"


def test_fallback_replays_known_turns_and_keeps_an_anchor_for_tool_results(context):
    store = MemoryTurnStore()
    first = run([user(SQL)], context, store, now=0.0)
    history = [user(SQL), {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
               {"role": "tool", "tool_call_id": "c1", "content": "42"}]
    result = fallback(history, store, 1.0, "timeout")
    assert result.messages[0] == first.messages[0] and result.messages[1:] == history[1:]
    assert result.anchor is not None and result.anchor[1].forwarded == history[-1]


class _BrokenStore:
    """A turn store whose every read fails."""

    def get_many(self, keys, now):
        raise RuntimeError("store unreachable")


def test_a_failed_replay_in_the_fallback_still_adds_the_reminder_and_becomes_an_event():
    history = [user(SQL), assistant("a"), user("next")]
    result = fallback(history, _BrokenStore(), 1.0, "timeout")
    assert result.mode == "fallback" and result.messages[:-1] == history[:-1]
    assert message_text(result.messages[-1]).startswith(
        '<skills_runtime_reminder reason="scan timeout or routing error">')
    assert result.events == (
        {"event": "preprocess_fallback", "reason": "timeout"},
        {"event": "fallback_replay_failed", "error_type": "RuntimeError",
         "error_message": "store unreachable"},
    )


def test_a_fallback_whose_replay_succeeds_reports_no_failure():
    result = fallback([user(SQL), assistant("a"), user("next")], MemoryTurnStore(), 1.0, "timeout")
    assert [event["event"] for event in result.events] == ["preprocess_fallback"]
