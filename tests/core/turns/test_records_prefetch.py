"""Every store is read through `get_many`, once per request (one round trip to Redis), and forwards the same bytes.

The same read holds what the newest two exchanges were kept with (tests/core/turns/test_compaction.py); only a
history the client rewrote reads once more, for its older exchanges and the packets it dropped.
"""

from __future__ import annotations

import json

from proxy.core.turns.turn_decision import PreprocessConfig
from proxy.state.memory_store import MemoryTurnStore
from tests.core.skill_factory import context_for, write_catalog
from tests.core.turns.chat_wire import fallback, preprocess


class BatchStore(MemoryTurnStore):
    """The memory store, with `get_many` and a count of how it was read."""

    def __init__(self) -> None:
        super().__init__()
        self.single_gets = 0
        self.batches: list[list[str]] = []

    def get(self, key, now):
        self.single_gets += 1
        return super().get(key, now)

    def get_many(self, keys, now):
        self.batches.append(list(keys))
        return {k: r for k in keys if (r := MemoryTurnStore.get(self, k, now)) is not None}


def conversation() -> list[dict]:
    messages = [{"role": "system", "content": "be brief"}]
    for text in ("my SQL query is slow, EXPLAIN plan, which index", "$pdf-tools merge a.pdf and b.pdf",
                 "and the query again, which index?"):
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return messages[:-1]


def test_a_batch_store_is_read_once_per_request_and_forwards_the_same_bytes(tmp_path):
    context, config = context_for(write_catalog(tmp_path)), PreprocessConfig()
    plain, batch = MemoryTurnStore(), BatchStore()
    messages = conversation()
    for store in (plain, batch):
        for end in (2, 4):
            for key, record in preprocess(messages[:end], context, store, config, 1.0).records:
                store.put(key, record, 1.0)
    batch.batches.clear()
    a = preprocess(messages, context, plain, config, 2.0)
    b = preprocess(messages, context, batch, config, 2.0)
    assert json.dumps(a.messages) == json.dumps(b.messages)
    assert [e["event"] for e in a.events] == [e["event"] for e in b.events]
    assert len(batch.batches) == 1 and len(batch.batches[0]) == 5, "the three user turns, two exchanges: one read"
    assert batch.single_gets == 0


def test_a_history_whose_newest_earlier_turn_is_unknown_is_still_read_once(tmp_path):
    context, config, batch = context_for(write_catalog(tmp_path)), PreprocessConfig(), BatchStore()
    for key, record in preprocess(conversation()[:2], context, batch, config, 1.0).records:
        batch.put(key, record, 1.0)
    batch.batches.clear()
    result = preprocess(conversation(), context, batch, config, 2.0)
    assert [len(keys) for keys in batch.batches] == [5]
    assert not any(e["event"] == "compaction_detected" for e in result.events)


def test_a_compacted_history_reads_once_more_for_its_older_exchanges_and_dropped_packets(tmp_path):
    context, config, batch = context_for(write_catalog(tmp_path)), PreprocessConfig(), BatchStore()
    messages = [*conversation(), {"role": "assistant", "content": "ok"}, {"role": "user", "content": "is that all?"}]
    for end in range(2, len(messages) + 1, 2):  # every turn, as the client sent it
        for key, record in preprocess(messages[:end], context, batch, config, 1.0).records:
            batch.put(key, record, 1.0)
    batch.batches.clear()
    compacted = [messages[0], {"role": "user", "content": "Summary: SQL and PDFs."}, *messages[5:],
                 {"role": "assistant", "content": "ok"}, {"role": "user", "content": "and now?"}]
    result = preprocess(compacted, context, batch, config, 2.0)
    assert any(e["event"] == "compaction_detected" for e in result.events)
    assert [len(keys) for keys in batch.batches] == [6, 2], "records and 2 exchanges; the summary's one, the packet"


def test_the_fallback_reads_a_batch_store_once_too(tmp_path):
    batch = BatchStore()
    result = fallback(conversation(), batch, 1.0, "scan timeout")
    assert result.mode == "fallback" and len(batch.batches) == 1 and batch.single_gets == 0
