"""Relaying an NDJSON answer (Ollama's stream): whole lines as they come, a failure framed as a line."""

from __future__ import annotations

import asyncio
import json

from proxy.errors import UpstreamError
from proxy.relay.ndjson import LineBuffer
from proxy.relay.streaming import relay
from proxy.surfaces.ollama_errors import OLLAMA_ERRORS

from .test_streaming import FakeUpstream


def relayed(upstream: FakeUpstream) -> list[bytes]:
    async def run() -> list[bytes]:
        return [piece async for piece in relay(upstream, OLLAMA_ERRORS)]
    return asyncio.run(run())


def test_a_line_split_across_reads_goes_out_once_it_is_whole():
    upstream = FakeUpstream([b'{"a":', b'1}\n{"b"', b':2}\n'], event_stream=False, ndjson=True)
    assert relayed(upstream) == [b'{"a":1}\n', b'{"b":2}\n'] and upstream.closed == 1


def test_a_failure_after_the_stream_began_is_an_error_line_and_the_partial_line_is_dropped():
    upstream = FakeUpstream([b'{"a":1}\n{"half', ], UpstreamError("upstream closed the connection"),
                            event_stream=False, ndjson=True)
    out = relayed(upstream)
    assert out[0] == b'{"a":1}\n' and json.loads(out[-1]) == {"error": "upstream closed the connection"}
    assert upstream.closed == 1


def test_a_stream_that_ends_before_its_first_line_is_an_error_line():
    out = relayed(FakeUpstream([], event_stream=False, ndjson=True))
    assert len(out) == 1 and "without sending any event" in json.loads(out[0])["error"]


def test_a_last_line_without_a_newline_still_goes_out():
    assert relayed(FakeUpstream([b'{"a":1}\n{"done":true}'], event_stream=False, ndjson=True)) == [
        b'{"a":1}\n', b'{"done":true}']


def test_the_line_buffer_keeps_what_follows_the_last_newline():
    lines = LineBuffer()
    assert lines.feed(b"abc") == b"" and lines.feed(b"d\nef") == b"abcd\n" and lines.rest == b"ef"
