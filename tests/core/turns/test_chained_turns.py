"""A conversation the upstream holds (a chain): only the new turn is sent, and what was decided last comes
from the record kept under the response id it continues."""

from dataclasses import replace

import pytest

from proxy.core.turns.preprocessor import preprocess
from proxy.core.turns.records import chain_key, turn_keys
from proxy.core.turns.turn_decision import PreprocessConfig
from proxy.state.memory_store import MemoryTurnStore
from proxy.surfaces.chat_messages import read_messages
from tests.core.skill_factory import context_for, write_catalog
from tests.core.turns.chat_wire import user

CONFIG = PreprocessConfig(refresh_interval=1800)
SQL = "my SQL query is slow, how do I read the EXPLAIN plan and which index should I add"
SQL_AGAIN = "the slow query still does a seq scan after adding an index on the SQL table"


@pytest.fixture
def context(tmp_path):
    return context_for(write_catalog(tmp_path / "skills"))


def chained(text, chain):
    return replace(read_messages([user(text)]), chain=chain)


def answer(result, store, response_id, now):
    """What the shell does once the upstream answered with `response_id`: keep the records and the chain's."""
    for key, record in result.records:
        store.put(key, record, now)
    store.put(chain_key(response_id), result.chain_record, now)


def test_a_chained_turn_on_the_same_route_gets_the_reminder_not_a_second_block(context):
    store = MemoryTurnStore()
    first = preprocess(read_messages([user(SQL)]), context, store, CONFIG, 0.0)
    answer(first, store, "resp_1", 0.0)
    second = preprocess(chained(SQL_AGAIN, "resp_1"), context, store, CONFIG, 10.0)
    assert first.mode == "routed" and second.mode == "reminder"
    assert second.conversation.turns[-1].text.startswith("<skills_runtime_reminder")


def test_the_chain_record_carries_the_last_full_injection_past_a_reminder(context):
    store = MemoryTurnStore()
    first = preprocess(read_messages([user(SQL)]), context, store, CONFIG, 0.0)
    answer(first, store, "resp_1", 0.0)
    second = preprocess(chained(SQL_AGAIN, "resp_1"), context, store, CONFIG, 10.0)
    answer(second, store, "resp_2", 10.0)
    third = preprocess(chained(SQL + " once more", "resp_2"), context, store, CONFIG, 20.0)
    assert third.mode == "reminder", "the full block of turn 1 is still in the upstream's history"
    later = preprocess(chained(SQL_AGAIN, "resp_2"), context, store, CONFIG, 1900.0)
    assert later.mode == "routed", "past refresh_interval the block goes out again"


def test_a_chain_the_proxy_never_saw_decides_the_turn_afresh(context):
    result = preprocess(chained(SQL, "resp_unknown"), context, MemoryTurnStore(), CONFIG, 0.0)
    assert result.mode == "routed" and "<routed_skills>" in result.conversation.turns[-1].text


def test_the_same_text_in_two_chains_has_two_keys():
    one, two = chained("hello", "resp_a"), chained("hello", "resp_b")
    assert turn_keys(one) != turn_keys(two) != turn_keys(read_messages([user("hello")]))
    assert turn_keys(one) == turn_keys(chained("hello", "resp_a"))
