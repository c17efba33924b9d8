"""An upstream answer whose reading is watched: every byte on its way, and the moment it is closed.

What lives here: `TracedAnswer`, the same `UpstreamResponse` (whoever reads it
reads it as before: relayed, read whole, or by the tool loop) that also hands
what is read to an `AnswerWatcher`, and `AnswerTap`, the watcher that reads
what the answer says about itself (`AnswerFacts`, by the surface's reader):
a stream's events or lines as they come (only those that may matter, unless
the answer's text is wanted), a whole answer's JSON; then, once, when the
answer is closed, hands the facts on. An answer is always closed (a
streamed one at its end, or when the client leaves), so a chat span ends
when its answer does.

What must not: change the bytes, or import OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from proxy.core import json_codec
from proxy.errors import ProxyError
from proxy.relay.ndjson import LineBuffer, iter_lines
from proxy.relay.streaming import EventBuffer
from proxy.surfaces.answer_facts import AnswerFacts, FactReader
from proxy.surfaces.sse_rounds import event_data, iter_events
from proxy.upstream.client import UpstreamResponse

MAX_BUFFERED_JSON = 4 << 20  # a JSON answer relayed as bytes is read for its facts up to this size


class AnswerWatcher(Protocol):
    def read(self, chunk: bytes) -> None: ...

    def read_whole(self, raw: bytes) -> None: ...

    def broke(self, error: ProxyError) -> None: ...

    def closed(self) -> None: ...


@dataclass
class TracedAnswer(UpstreamResponse):
    watcher: AnswerWatcher | None = field(default=None, repr=False)

    @classmethod
    def of(cls, answer: UpstreamResponse, watcher: AnswerWatcher) -> TracedAnswer:
        values = {f.name: getattr(answer, f.name) for f in fields(UpstreamResponse)}
        return cls(**values, watcher=watcher)

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        assert self.watcher is not None
        try:
            async for chunk in super().iter_bytes():
                self.watcher.read(chunk)
                yield chunk
        except ProxyError as error:
            self.watcher.broke(error)
            raise

    async def read(self) -> bytes:
        assert self.watcher is not None
        try:
            raw = await super().read()
        except ProxyError as error:
            self.watcher.broke(error)
            raise
        self.watcher.read_whole(raw)
        return raw

    async def aclose(self) -> None:
        try:
            await super().aclose()
        finally:
            if self.watcher is not None:
                self.watcher.closed()


class AnswerTap:
    """Reads an answer's facts as it goes by; `on_close(facts, error)` once, when the answer is closed."""

    def __init__(self, reader: FactReader, answer: UpstreamResponse, text: bool,
                 on_close: Callable[[AnswerFacts, ProxyError | None], None]) -> None:
        self.facts = AnswerFacts()
        self._reader = reader
        self._text = text  # the answer's text is wanted: every event is read
        self._ok = answer.status < 400
        self._units: _Units | None = None
        if answer.is_event_stream:
            self._units = _Units(EventBuffer(), iter_events, self._event)
        elif answer.is_ndjson:
            self._units = _Units(LineBuffer(), iter_lines, self._line)
        self._buffered: bytearray | None = bytearray() if self._units is None and self._ok else None
        self._error: ProxyError | None = None
        self._on_close: Callable[[AnswerFacts, ProxyError | None], None] | None = on_close

    def read(self, chunk: bytes) -> None:
        if self._units is not None:
            self._units.feed(chunk)
        elif self._buffered is not None:
            self._buffered += chunk
            if len(self._buffered) > MAX_BUFFERED_JSON:
                self._buffered = None

    def read_whole(self, raw: bytes) -> None:
        self._buffered = None  # read whole: the bytes are all here
        data = _json_object(raw) if self._ok else None
        if data is not None:
            self.facts = AnswerFacts()  # an answer read twice is read afresh
            self._reader.whole(data, self.facts, self._text)

    def broke(self, error: ProxyError) -> None:
        self._error = error

    def closed(self) -> None:
        if self._on_close is None:
            return
        on_close, self._on_close = self._on_close, None
        if self._units is not None:
            self._units.flush()
        elif self._buffered:
            self.read_whole(bytes(self._buffered))
        on_close(self.facts, self._error)

    def _event(self, raw: bytes) -> None:
        if self._text or self._reader.may_matter(raw):
            data = _json_object(event_data(raw))
            if data is not None:
                self._reader.event(data, self.facts, self._text)

    def _line(self, raw: bytes) -> None:
        if self._text or self._reader.may_matter(raw):
            data = _json_object(raw)
            if data is not None:
                self._reader.event(data, self.facts, self._text)


@dataclass
class _Units:
    """Whole events (or lines) out of a stream's chunks, each handed to `take`."""

    buffer: EventBuffer | LineBuffer
    split: Callable[[bytes], Any]
    take: Callable[[bytes], None]

    def feed(self, chunk: bytes) -> None:
        for unit in self.split(self.buffer.feed(chunk)):
            self.take(unit)

    def flush(self) -> None:
        rest = self.buffer.rest
        if rest.strip():
            self.take(rest)


def _json_object(raw: bytes | str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        data = json_codec.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
