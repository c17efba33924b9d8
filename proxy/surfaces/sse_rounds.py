"""Reading a streamed tool-loop round's SSE events: what every SSE surface does the same way.

What lives here: `iter_events` and `event_data`, which cut whole events and
read their `data`; `EventTally`, the start of every round's `feed`: it counts
each event, lets a keep-alive (comment lines only, `: ping`) through as it is,
skips and counts an event no client could read (no data but other fields, or
data that is not a JSON object), tells `data: [DONE]` apart, and hands back
the event's JSON object; and `round_events`, the client-bound bytes of one
round: the answer's bytes cut into whole events (`EventBuffer`) and fed to
the round, a last event the upstream did not end with a blank line included.

What must not: know what any surface's events mean (the rounds do), run
tools, or decide whether the loop goes on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol

from proxy.core import json_codec
from proxy.core.sse import EVENT_END
from proxy.relay.streaming import EventBuffer
from proxy.upstream.client import UpstreamResponse


def iter_events(data: bytes) -> Iterator[bytes]:
    """Each whole SSE event in `data` (which holds only whole events), terminator included."""
    start = 0
    for match in EVENT_END.finditer(data):
        yield data[start:match.end()]
        start = match.end()
    if start < len(data):
        yield data[start:]


def event_data(raw: bytes) -> str | None:
    """The event's `data` (lines joined with newlines), or None when it has none."""
    lines = [line[5:] for line in raw.decode("utf-8", "replace").splitlines() if line.startswith("data:")]
    if not lines:
        return None
    return "\n".join(line[1:] if line.startswith(" ") else line for line in lines)


def only_comments(raw: bytes) -> bool:
    """True for a keep-alive: nothing but comment lines (`: ping`) and blank lines."""
    return all(line.startswith(b":") for line in raw.splitlines() if line.strip())


class EventTally:
    """A round's count of the events it read, and of those it skipped as unreadable."""

    def __init__(self) -> None:
        self.events = 0
        self.skipped = 0

    def read(self, raw: bytes) -> dict[str, Any] | bytes | None:
        """One whole event, counted: its JSON object; or, when it has none, the bytes the client gets
        for it now (a keep-alive as it is, nothing for an unreadable event, which is counted as
        skipped); or None for `data: [DONE]`."""
        self.events += 1
        data = event_data(raw)
        if data is None:
            return raw if only_comments(raw) else self.skip()
        if data.strip() == "[DONE]":
            return None
        try:
            event = json_codec.loads(data)
        except ValueError:
            return self.skip()
        if not isinstance(event, dict):
            return self.skip()
        return event

    def skip(self) -> bytes:
        """Count an event no client could read; the client gets nothing for it."""
        self.skipped += 1
        return b""


class EventRound(Protocol):
    def feed(self, raw: bytes) -> bytes: ...


async def round_events(answer: UpstreamResponse, round_: EventRound) -> AsyncIterator[bytes]:
    """The client-bound bytes of one streamed round, whole events at a time."""
    buffer = EventBuffer()
    async for chunk in answer.iter_bytes():
        for event in iter_events(buffer.feed(chunk)):
            out = round_.feed(event)
            if out:
                yield out
    if buffer.rest.strip():  # a last event the upstream did not end with a blank line
        out = round_.feed(buffer.rest.rstrip(b"\r\n") + b"\n\n")
        if out:
            yield out
