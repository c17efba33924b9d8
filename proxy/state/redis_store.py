"""Turn records in Redis (`state: redis://...`), shared by every worker and replica.

What lives here: `RedisTurnStore`, a `TurnStore` (`proxy.state.turn_store`)
over the `redis` client. Records are JSON (`proxy.core.turns.record_json`)
under `skillproxy:turn:v1:<key>`, written with `SET key value PX state_ttl`;
Redis's own memory policy bounds them. A request reads all its records in one
`MGET`.

- Every record is also kept in a local mirror (a `MemoryTurnStore` of
  `state_max_entries`; `local` reads it). `put` and `put_many` (from the
  preprocessing thread) write to Redis before they return, so a turn is in
  Redis before the upstream sees it;
  `put_later` (from the event loop: fallback and tool-exchange records) only
  queues it for one writer thread, which sends queued records in a pipeline.
  The event loop never waits on Redis. Writes take turns, and a `put` drops
  what is still queued for its keys, so Redis keeps the newest record.
- Reads ask Redis, but a record still queued here wins (it is newer); a key
  Redis lacks or any Redis error falls back to the mirror, and beyond that to
  a miss: the preprocessor recomputes. Redis errors never reach a request: they are logged by
  `StoreHealth` (`state_unavailable`, URL redacted, rate-limited), which also
  keeps requests from trying a dead Redis for a moment.
- Socket timeouts are short (well under `scan_timeout`), with no retries.

What must not: decide anything about turns, or log a password.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from typing import Any, cast

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from proxy.core.turns.record_json import decode_record, encode_record
from proxy.core.turns.records import TurnRecord, TurnRecordReader
from proxy.settings import Settings, SettingsError
from proxy.state.health import StoreHealth
from proxy.state.memory_store import MemoryTurnStore
from proxy.state.turn_store import StateSummary, TurnStore

KEY_PREFIX = "skillproxy:turn:v1:"
MAX_TIMEOUT = 0.5  # seconds: a socket wait, at most; scan_timeout / 6 when that is shorter
MAX_QUEUED = 10_000
_STOP = object()


def redis_timeout(scan_timeout: float) -> float:
    return min(MAX_TIMEOUT, scan_timeout / 6)


def connect(url: str, timeout: float) -> redis.Redis:
    """A client for `url` that gives up after `timeout` seconds and never retries; SettingsError for a bad URL."""
    try:
        return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                    retry=Retry(NoBackoff(), 0), client_name="skillproxy")
    except ValueError as exc:
        raise SettingsError(f"configuration key 'state': not a usable Redis URL ({exc})") from None


class RedisTurnStore(TurnStore):
    def __init__(self, client: redis.Redis, health: StoreHealth, ttl: float, max_entries: int = 10_000) -> None:
        self.client = client
        self.health = health
        self._ttl_ms = max(1, int(ttl * 1000))
        self._mirror = MemoryTurnStore(max_entries, ttl)  # this process's view, used when Redis cannot answer
        self._queue: queue.Queue[Any] = queue.Queue(MAX_QUEUED)
        self._pending: dict[str, TurnRecord] = {}  # queued, not yet in Redis: newer than what Redis says
        self._pending_lock = threading.Lock()
        self._write_lock = threading.Lock()  # one write at a time, so a newer record is never overwritten
        self._writer = threading.Thread(target=self._write_loop, name="skillproxy-redis-writer", daemon=True)
        self._writer.start()
        self._closed = False
        self._close_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> RedisTurnStore:
        client = connect(settings.state, redis_timeout(settings.scan_timeout))
        return cls(client, StoreHealth(settings.state), settings.state_ttl, settings.state_max_entries)

    def get(self, key: str, now: float) -> TurnRecord | None:
        return self.get_many([key], now).get(key)

    def get_many(self, keys: Sequence[str], now: float) -> dict[str, TurnRecord]:
        payloads = self._fetch(keys)
        with self._pending_lock:
            pending = {k: self._pending[k] for k in keys if k in self._pending}
        found: dict[str, TurnRecord] = {}
        for key, payload in zip(keys, payloads):
            record = pending.get(key) or (_decoded(payload) if payload is not None else None)
            if record is not None:
                self._mirror.put(key, record, now)
            else:
                record = self._mirror.get(key, now)
            if record is not None:
                found[key] = record
        return found

    def put(self, key: str, record: TurnRecord, now: float) -> None:
        """Kept here and written to Redis now (blocking: call it from a worker thread)."""
        self.put_many([(key, record)], now)

    def put_many(self, items: Sequence[tuple[str, TurnRecord]], now: float) -> None:
        """Like `put` for several records, in one round trip."""
        with self._write_lock:
            with self._pending_lock:
                for key, record in items:
                    self._pending.pop(key, None)  # newer than anything queued for the key
                    self._mirror.put(key, record, now)
            if items:
                self._send(dict(items))

    def put_later(self, key: str, record: TurnRecord, now: float) -> None:
        """Kept here and queued for the writer thread: never blocks."""
        self._mirror.put(key, record, now)
        with self._pending_lock:
            self._pending[key] = record
        try:
            self._queue.put_nowait(key)
        except queue.Full:
            self._sent({key: record})
            self.health.failed("put", RuntimeError(f"{MAX_QUEUED} writes queued; Redis is not keeping up"))

    @property
    def local(self) -> TurnRecordReader:
        """The local mirror: what this process wrote or read, without asking Redis."""
        return self._mirror

    def summary(self) -> StateSummary:
        return {"state": self.health.shown_url, "state_reachable": self.ping()}

    def ping(self) -> bool:
        """True when Redis answers now (for the start banner)."""
        try:
            return bool(self.client.ping())
        except redis.RedisError as exc:
            self.health.failed("ping", exc)
            return False

    def flush(self, timeout: float = 2.0) -> None:
        """Wait (at most `timeout` seconds) for queued writes to be sent."""
        done = threading.Event()
        try:
            self._queue.put(done, timeout=timeout)
        except queue.Full:
            return
        done.wait(timeout)

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self.flush()
        self._queue.put(_STOP)
        self._writer.join(timeout=2.0)
        self.client.close()

    def _fetch(self, keys: Sequence[str]) -> list[bytes | None]:
        if not keys or not self.health.should_try():
            return [None] * len(keys)
        try:
            payloads = self.client.mget([KEY_PREFIX + k for k in keys])
        except redis.RedisError as exc:
            self.health.failed("get", exc)
            return [None] * len(keys)
        self.health.succeeded()
        return cast("list[bytes | None]", payloads)  # the client is built without decode_responses

    def _write_loop(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < 500 and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            with self._write_lock:
                with self._pending_lock:
                    writes = {k: self._pending[k] for k in batch if isinstance(k, str) and k in self._pending}
                if writes:
                    self._send(writes)
                    self._sent(writes)
            for item in batch:
                if isinstance(item, threading.Event):
                    item.set()
            if _STOP in batch:
                return

    def _sent(self, writes: dict[str, TurnRecord]) -> None:
        """Queued records are Redis's now (or dropped with a warning): reads ask Redis again."""
        with self._pending_lock:
            for key, record in writes.items():
                if self._pending.get(key) is record:
                    del self._pending[key]

    def _send(self, writes: dict[str, TurnRecord]) -> None:
        if not self.health.should_try():
            return  # kept in the local mirror only; other replicas recompute
        try:
            pipe = self.client.pipeline(transaction=False)
            for key, record in writes.items():
                pipe.set(KEY_PREFIX + key, encode_record(record), px=self._ttl_ms)
            pipe.execute()
        except redis.RedisError as exc:
            self.health.failed("put", exc)
            return
        self.health.succeeded()


def _decoded(payload: bytes) -> TurnRecord | None:
    try:
        return decode_record(payload)
    except ValueError:
        return None  # another version's record, or damaged: recomputed like a missing one
