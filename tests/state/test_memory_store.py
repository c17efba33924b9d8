"""The in-memory turn store: a bounded LRU with a time-to-live, filled here by the real preprocessor."""

import pytest

from proxy.core.turns.records import TurnRecord, prefix_keys
from proxy.core.turns.turn_decision import PreprocessConfig
from proxy.state.memory_store import MemoryTurnStore
from tests.core.skill_factory import context_for, write_catalog
from tests.core.turns import chat_wire
from tests.core.turns.chat_wire import user

CONFIG = PreprocessConfig(refresh_interval=1800)
SQL = "my SQL query is slow, how do I read the EXPLAIN plan and which index should I add"


@pytest.fixture
def context(tmp_path):
    return context_for(write_catalog(tmp_path / "skills"))


def run(messages, context, store, now, config=CONFIG):
    return chat_wire.run(messages, context, store, now, config)


def test_eviction_by_size_and_ttl(context):
    store = MemoryTurnStore(max_entries=2, ttl=10.0)
    for i in range(3):
        run([user(f"{SQL} {i}")], context, store, now=0.0)
    assert len(store) == 2
    key = prefix_keys([user(f"{SQL} 2")])[-1]
    assert store.get(key, now=5.0) is not None
    assert store.get(key, now=20.0) is None


def test_reading_many_keys_drops_an_expired_record_and_keeps_the_read_ones_as_recently_used():
    store = MemoryTurnStore(max_entries=2, ttl=10.0)
    store.put("old", TurnRecord({"n": 1}, "none"), 0.0)
    store.put("a", TurnRecord({"n": 2}, "none"), 8.0)
    assert set(store.get_many(["old", "a", "never"], 11.0)) == {"a"}
    assert len(store) == 1, "the expired record is gone, not only hidden"
    store.put("b", TurnRecord({"n": 3}, "none"), 11.0)
    store.get_many(["a"], 11.0)
    store.put("c", TurnRecord({"n": 4}, "none"), 11.0)
    assert set(store.get_many(["a", "b", "c"], 11.0)) == {"a", "c"}, "b was the least recently used"
