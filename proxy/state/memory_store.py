"""Turn records in this process's memory (`state: memory`, the default).

What lives here: `MemoryTurnStore`, a `TurnStore` that is a bounded LRU with a
time-to-live (the clock is passed in, as `now`). Threads share it (the
preprocessing threads and the event loop), so every call holds its lock. It is
also the Redis store's local mirror.

What must not: decide anything about turns, or talk to anything outside the process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from proxy.core.turns.records import TurnRecord, TurnRecordReader
from proxy.state.turn_store import StateSummary, TurnStore


class MemoryTurnStore(TurnStore):
    """An in-memory LRU of turn records with a size cap and a time-to-live."""

    def __init__(self, max_entries: int = 10_000, ttl: float = 86_400.0) -> None:
        self._max_entries = max_entries
        self._ttl = ttl
        self._records: OrderedDict[str, tuple[float, TurnRecord]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, now: float) -> TurnRecord | None:
        with self._lock:
            return self._get(key, now)

    def get_many(self, keys: Sequence[str], now: float) -> dict[str, TurnRecord]:
        with self._lock:
            found = {key: self._get(key, now) for key in keys}
        return {key: record for key, record in found.items() if record is not None}

    def put(self, key: str, record: TurnRecord, now: float) -> None:
        with self._lock:
            self._put(key, record, now)

    def put_many(self, items: Sequence[tuple[str, TurnRecord]], now: float) -> None:
        with self._lock:
            for key, record in items:
                self._put(key, record, now)

    def put_later(self, key: str, record: TurnRecord, now: float) -> None:
        """In memory a write never waits, so later is now."""
        self.put(key, record, now)

    @property
    def local(self) -> TurnRecordReader:
        return self

    def summary(self) -> StateSummary:
        return {"state": "memory"}

    def close(self) -> None:
        """Nothing is queued and nothing is connected: nothing to do."""

    def __len__(self) -> int:
        return len(self._records)

    def _get(self, key: str, now: float) -> TurnRecord | None:
        entry = self._records.get(key)
        if entry is None:
            return None
        stored_at, record = entry
        if now - stored_at > self._ttl:
            del self._records[key]
            return None
        self._records.move_to_end(key)
        return record

    def _put(self, key: str, record: TurnRecord, now: float) -> None:
        self._records[key] = (now, record)
        self._records.move_to_end(key)
        while len(self._records) > self._max_entries:
            self._records.popitem(last=False)
