"""proxy.relay.streaming: whole SSE events out of bytes split anyhow, verbatim, and a framed error at the end."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.errors import UpstreamError
from proxy.relay import streaming
from proxy.relay.streaming import EventBuffer, relay, relay_bytes, relay_events

TERMINATORS = {"LF": b"\n", "CRLF": b"\r\n", "CR": b"\r"}


def sse(lines: list[bytes], eol: bytes) -> bytes:
    """One event: its lines, each ended by `eol`, then the blank line that ends the event."""
    return b"".join(line + eol for line in lines) + eol


def feed_all(chunks: list[bytes]) -> tuple[list[bytes], bytes]:
    buffer = EventBuffer()
    return [buffer.feed(chunk) for chunk in chunks], buffer.rest


# Line text as an upstream sends it: no CR or LF inside a line, and never empty (an empty line ends the event).
line_text = st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"\r", b"x").replace(b"\n", b"x"))
event_lines = st.lists(st.one_of(line_text.map(lambda b: b"data: " + b), line_text.map(lambda b: b":" + b),
                                 line_text), min_size=1, max_size=4)


@st.composite
def split_stream(draw):
    """A stream in one terminator style, the offsets where each event ends, and cut points for the reads."""
    eol = draw(st.sampled_from(list(TERMINATORS.values())))
    events = [sse(lines, eol) for lines in draw(st.lists(event_lines, min_size=1, max_size=6))]
    tail = draw(st.one_of(st.just(b""), event_lines.map(lambda lines: b"".join(line + eol for line in lines)),
                          line_text))  # nothing, whole lines without their blank line, or half a line
    stream = b"".join(events) + tail
    ends, offset = [], 0
    for event in events:
        offset += len(event)
        ends.append(offset)
    cuts = sorted(draw(st.sets(st.integers(1, max(len(stream) - 1, 1)), max_size=12)))
    return stream, ends, [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]


@settings(max_examples=300, deadline=None)
@given(split_stream())
def test_after_every_read_exactly_the_whole_events_received_so_far_have_come_out_verbatim(case):
    stream, ends, chunks = case
    buffer, out, fed = EventBuffer(), b"", 0
    for chunk in chunks:
        out += buffer.feed(chunk)
        fed += len(chunk)
        whole_so_far = max((end for end in ends if end <= fed), default=0)
        assert out == stream[:whole_so_far], "an event is sent as soon as it is whole, and nothing before"
        assert buffer.rest == stream[whole_so_far:fed]
    assert out + buffer.rest == stream


@pytest.mark.parametrize("style", TERMINATORS)
def test_a_stream_cut_into_two_reads_at_every_byte_gives_the_same_events_as_one_read(style):
    eol = TERMINATORS[style]
    stream = (sse([b"data: {\"a\": 1}"], eol) + sse([b": keep-alive"], eol)
              + sse([b"event: delta", b"data: {\"b\": \"\xc3\xa9\"}", b"id: 7"], eol) + b"data: {\"c\"")
    whole_events = stream[:stream.rindex(eol * 2) + 2 * len(eol)]
    for cut in range(len(stream) + 1):
        outs, rest = feed_all([stream[:cut], stream[cut:]])
        assert b"".join(outs) == whole_events, f"cut at byte {cut}"
        assert rest == b'data: {"c"'
        assert all(out.endswith(eol * 2) for out in outs if out), "what comes out ends at an event end"


@pytest.mark.parametrize("style", TERMINATORS)
def test_a_stream_fed_one_byte_at_a_time_comes_out_one_event_each_time_one_is_complete(style):
    eol = TERMINATORS[style]
    events = [sse([b"data: 1"], eol), sse([b": comment"], eol), sse([b"data: 2", b"data: 3"], eol)]
    stream = b"".join(events)
    outs, rest = feed_all([stream[i:i + 1] for i in range(len(stream))])
    assert [out for out in outs if out] == events and rest == b""


def test_a_terminator_of_each_style_ends_an_event_and_a_single_line_end_does_not():
    for eol in TERMINATORS.values():
        buffer = EventBuffer()
        assert buffer.feed(b"data: x" + eol) == b"", "one line end is the end of a line, not of the event"
        assert buffer.rest == b"data: x" + eol
        assert buffer.feed(eol) == b"data: x" + eol + eol
        assert buffer.rest == b""


def test_several_whole_events_in_one_read_come_out_together_and_the_partial_one_stays():
    buffer = EventBuffer()
    assert buffer.feed(b"data: 1\n\ndata: 2\n\ndata: 3\ndata: ") == b"data: 1\n\ndata: 2\n\n"
    assert buffer.rest == b"data: 3\ndata: "
    assert buffer.feed(b"4\n\n") == b"data: 3\ndata: 4\n\n"


def test_comments_blank_lines_and_odd_lines_pass_as_the_same_bytes():
    raw = b": keep-alive\n\n\n\nretry: 10\ngarbage line\ndata: [DONE]\n\n"
    assert EventBuffer().feed(raw) == raw


def test_an_empty_read_gives_nothing_and_changes_nothing():
    buffer = EventBuffer()
    assert buffer.feed(b"") == b"" and buffer.rest == b""
    buffer.feed(b"data: half")
    assert buffer.feed(b"") == b"" and buffer.rest == b"data: half"


def test_rest_is_a_copy_that_feeding_does_not_change():
    buffer = EventBuffer()
    buffer.feed(b"data: 1")
    rest = buffer.rest
    buffer.feed(b"\n\n")
    assert rest == b"data: 1" and buffer.rest == b""


def test_a_multi_megabyte_event_in_small_reads_comes_out_whole_once_scanning_each_byte_once(monkeypatch):
    scanned, pattern = [], streaming.EVENT_END

    class CountingPattern:
        """The event-end pattern, counting the bytes each search is asked to read."""

        def finditer(self, data, pos=0):
            scanned.append(len(data) - pos)
            return pattern.finditer(data, pos)

    monkeypatch.setattr(streaming, "EVENT_END", CountingPattern())
    image = b"data: {\"b64\": \"" + b"A" * (8 * 1024 * 1024) + b"\"}"
    stream = image + b"\n\n" + b"data: next\n\n"
    size = 1024
    outs, rest = feed_all([stream[i:i + size] for i in range(0, len(stream), size)])
    first = next(i for i, out in enumerate(outs) if out)
    assert outs[first].startswith(image + b"\n\n"), "the event comes out whole, in one piece"
    assert first == len(image + b"\n\n") // size, "and no sooner or later than the read that completed it"
    assert b"".join(outs) == stream and rest == b""
    # 8,000 reads; scanning the whole pending event again on each would read ~32 GB.
    assert sum(scanned) < 2 * len(stream), f"{sum(scanned)} bytes scanned for {len(stream)}: each once, not per read"


class FakeUpstream:
    """An upstream answer reduced to what the relay uses: its reads, its URL, and closing it."""

    def __init__(self, chunks: list[bytes], error: Exception | None = None, event_stream: bool = True,
                 hang: bool = False, ndjson: bool = False) -> None:
        self.chunks, self.error, self.hang = chunks, error, hang
        self.is_event_stream = event_stream
        self.is_ndjson = ndjson
        self.url = "http://model.test/v1/chat/completions"
        self.closed = 0

    async def iter_bytes(self):
        for chunk in self.chunks:
            yield chunk
        if self.hang:
            await asyncio.sleep(3600)
        if self.error is not None:
            raise self.error

    async def aclose(self) -> None:
        self.closed += 1


def collect(upstream: FakeUpstream) -> list[bytes]:
    async def run():
        return [piece async for piece in relay(upstream)]

    return asyncio.run(run())


def error_events(pieces: list[bytes]) -> list[bytes]:
    return b"".join(pieces).split(b"\n\n")


def test_a_relayed_stream_yields_whole_events_then_the_unfinished_tail_and_closes_the_upstream():
    upstream = FakeUpstream([b"data: 1\n\ndata: ", b"2\n\n", b"data: 3"])
    assert collect(upstream) == [b"data: 1\n\n", b"data: 2\n\n", b"data: 3"]
    assert upstream.closed == 1


def test_a_stream_that_ends_without_an_event_becomes_an_empty_stream_error_then_done():
    for chunks in ([], [b""], [b"\n", b"  \r\n"]):
        upstream = FakeUpstream(chunks)
        pieces = collect(upstream)
        data, done = pieces[-1].split(b"\n\n")[:2]
        error = json.loads(data.removeprefix(b"data: "))["error"]
        assert error["code"] == "upstream_empty_stream" and "http://model.test" in error["message"]
        assert done == b"data: [DONE]" and upstream.closed == 1


def test_a_failure_mid_stream_is_framed_after_the_last_whole_event_and_the_partial_one_is_dropped():
    upstream = FakeUpstream([b"data: 1\n\ndata: {\"half"], UpstreamError("upstream closed the connection"))
    pieces = collect(upstream)
    assert pieces[0] == b"data: 1\n\n"
    assert b"half" not in b"".join(pieces), "a broken event never reaches the client"
    frame = pieces[-1]
    assert frame.startswith(b"data: {") and frame.endswith(b"\n\ndata: [DONE]\n\n")
    assert json.loads(frame.split(b"\n\n")[0].removeprefix(b"data: "))["error"]["message"] == (
        "upstream closed the connection")
    assert upstream.closed == 1


def test_a_relay_the_client_abandons_still_closes_the_upstream():
    upstream = FakeUpstream([b"data: 1\n\n"], hang=True)

    async def run():
        events = relay_events(upstream)
        assert await events.__anext__() == b"data: 1\n\n"
        pending = asyncio.ensure_future(events.__anext__())
        await asyncio.sleep(0.01)
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending
        await events.aclose()

    asyncio.run(run())
    assert upstream.closed == 1


def test_a_body_that_is_not_an_event_stream_passes_chunk_by_chunk_unbuffered_and_is_closed():
    upstream = FakeUpstream([b'{"a"', b": 1}", b""], event_stream=False)
    assert collect(upstream) == [b'{"a"', b": 1}", b""]
    assert upstream.closed == 1


def test_a_failure_in_a_body_that_is_not_an_event_stream_propagates_and_still_closes_the_upstream():
    upstream = FakeUpstream([b'{"a"'], UpstreamError("broke off"), event_stream=False)

    async def run():
        return [piece async for piece in relay_bytes(upstream)]

    with pytest.raises(UpstreamError):
        asyncio.run(run())
    assert upstream.closed == 1
