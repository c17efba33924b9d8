"""One contract for both turn stores: the calls the engine makes mean the same in memory and in Redis.

Each test runs against `MemoryTurnStore` and against a `RedisTurnStore` over a
real `redis-server` (installed by .ci/run).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from proxy.core.turns.records import TurnRecord, TurnRecordReader
from proxy.settings import Settings
from proxy.state.memory_store import MemoryTurnStore
from proxy.state.redis_store import RedisTurnStore
from proxy.state.turn_store import TurnStore, turn_store
from tests.integration.redis_server import RedisServer

NOW = 1_000.0


def record(text: str) -> TurnRecord:
    return TurnRecord({"role": "user", "content": text}, "none")


@pytest.fixture(params=["memory", "redis"])
def settings(request: pytest.FixtureRequest, tmp_path) -> Iterator[Settings]:
    """`state: memory`, or `state:` the URL of a Redis started for the test."""
    if request.param == "memory":
        yield Settings(roots=())
        return
    server = RedisServer(tmp_path).start()
    try:
        yield Settings(state=server.url, roots=())
    finally:
        server.stop()


@pytest.fixture
def store(settings: Settings) -> Iterator[TurnStore]:
    made = turn_store(settings)
    try:
        yield made
    finally:
        made.close()


def settled(store: TurnStore) -> None:
    """Queued writes sent (Redis), so that a read shows what another process would see."""
    if isinstance(store, RedisTurnStore):
        store.flush()


@pytest.mark.parametrize("kind", [MemoryTurnStore, RedisTurnStore])
def test_each_store_implements_every_call_of_the_protocol_itself(kind):
    calls = {name for protocol in (TurnStore, TurnRecordReader) for name in vars(protocol)
             if not name.startswith("_")}
    assert calls == {"get_many", "put_many", "put_later", "local", "summary", "close"}
    assert TurnStore in kind.__mro__, "declared, so that a type checker holds it to the protocol"
    missing = [name for name in calls if all(name not in vars(cls) for cls in kind.__mro__
                                             if cls not in (TurnStore, TurnRecordReader))]
    assert missing == [], f"{kind.__name__} inherits the protocol's empty stub for {missing}"


def test_the_settings_pick_the_store(settings, store):
    assert isinstance(store, MemoryTurnStore if settings.state == "memory" else RedisTurnStore)


def test_records_put_together_are_read_together_and_only_keys_with_a_record_come_back(store):
    store.put_many([("a", record("one")), ("b", record("two"))], NOW)
    assert store.get_many(["a", "b", "never"], NOW) == {"a": record("one"), "b": record("two")}
    assert store.get_many([], NOW) == {}
    store.put_many([], NOW)


def test_a_record_put_later_is_read_back_at_once_and_from_the_local_view(store):
    store.put_later("k", record("queued"), NOW)
    assert store.get_many(["k"], NOW) == {"k": record("queued")}
    assert store.local.get_many(["k"], NOW) == {"k": record("queued")}
    settled(store)
    assert store.get_many(["k"], NOW) == {"k": record("queued")}


def test_the_newest_write_of_a_key_is_the_one_read(store):
    store.put_later("k", record("queued first"), NOW)
    store.put_many([("k", record("written second"))], NOW)
    assert store.get_many(["k"], NOW) == {"k": record("written second")}
    store.put_later("k", record("queued third"), NOW)
    settled(store)
    assert store.get_many(["k"], NOW) == {"k": record("queued third")}


def test_the_local_view_holds_what_this_process_wrote(store):
    store.put_many([("mine", record("kept here"))], NOW)
    assert store.local.get_many(["mine", "other"], NOW) == {"mine": record("kept here")}


def test_the_summary_says_where_records_live(store):
    summary = store.summary()
    if isinstance(store, MemoryTurnStore):
        assert summary == {"state": "memory"}
    else:
        assert summary["state"].startswith("redis://127.0.0.1:") and summary["state_reachable"] is True


def test_closing_sends_what_is_queued_and_closing_again_does_nothing(settings, store):
    store.put_later("k", record("queued"), NOW)
    store.close()
    started = time.monotonic()
    store.close()
    assert time.monotonic() - started < 0.5, "a second close returns at once"
    if settings.state != "memory":
        reader = turn_store(settings)  # another process's store over the same Redis
        try:
            assert reader.get_many(["k"], NOW) == {"k": record("queued")}, "the queued write reached Redis"
        finally:
            reader.close()
