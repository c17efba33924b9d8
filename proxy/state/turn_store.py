"""The turn store: what the engine asks of the place replay records are kept, and which place settings name.

What lives here: `TurnStore`, the whole set of calls the engine makes, which
both stores implement (`proxy.state.memory_store.MemoryTurnStore`: this
process's memory; `proxy.state.redis_store.RedisTurnStore`: Redis, shared by
workers and replicas); `StateSummary`, what the start banner says about the
store; and `turn_store(settings)`, the store `state:` asks for.

What must not: decide anything about turns (that is `proxy.core.turns`, which
only reads records, through `TurnRecordReader`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, Protocol, TypedDict

from proxy.core.turns.records import TurnRecord, TurnRecordReader
from proxy.settings import Settings


class StateSummary(TypedDict):
    state: str  # "memory", or the Redis URL with its password hidden
    state_reachable: NotRequired[bool]  # a store across a network: whether it answered just now


class TurnStore(TurnRecordReader, Protocol):
    """Where the engine keeps the records the preprocessor returns, for the next request to replay.

    `get_many` (the preprocessor's read) may wait for a network: it runs in the
    preprocessing thread, as does `put_many`. The event loop uses only `local`
    and `put_later`, which never wait.
    """

    def put_many(self, items: Sequence[tuple[str, TurnRecord]], now: float) -> None:
        """Keep these records; stored when this returns (may block: call it from a worker thread)."""
        ...

    def put_later(self, key: str, record: TurnRecord, now: float) -> None:
        """Keep this record without waiting for a network: safe on the event loop."""
        ...

    @property
    def local(self) -> TurnRecordReader:
        """The records this process holds, read without waiting for a network (for the event loop)."""
        ...

    def summary(self) -> StateSummary:
        """For the start banner: where records live and, across a network, whether it answers now."""
        ...

    def close(self) -> None:
        """Send what is still queued and let go of connections; closing again does nothing."""
        ...


def turn_store(settings: Settings) -> TurnStore:
    """Where replay records live: this process's memory, or Redis shared by replicas (`state: redis://...`)."""
    if settings.state == "memory":
        from proxy.state.memory_store import MemoryTurnStore

        return MemoryTurnStore(settings.state_max_entries, settings.state_ttl)
    from proxy.state.redis_store import RedisTurnStore  # only a Redis deployment needs the client

    return RedisTurnStore.from_settings(settings)
