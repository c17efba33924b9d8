"""Load, shortened for CI: many streams byte-identical, many aborts cleaned up.

The full run (200 clients for 60 s, 1,000 aborts, proxy and upstream in their own
processes) is `python -m bench.load_bench`; see the README. Here all three parts
share this process: the load upstream and the real proxy (real engine over
skills/) each under uvicorn on 127.0.0.1, the clients in an event loop of their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from bench.load_clients import AbortResult, abort_storm, get_json, stream_soak, wait_until_closed
from bench.load_upstream import LoadUpstream
from bench.probed_proxy import Probed
from proxy.app import create_app
from proxy.logs.setup import configure_logging
from proxy.settings import Settings
from proxy.upstream.client import MAX_IDLE_CONNECTIONS as KEEPALIVE_POOL

from .engines import real_engine
from .servers import ServerThread


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    upstream = LoadUpstream(gap=0.005)
    engine = real_engine()
    with ExitStack() as stack:
        log_file = stack.enter_context(open(tmp_path_factory.mktemp("load") / "proxy.log", "w"))
        up = stack.enter_context(ServerThread(upstream))
        settings = Settings(upstream=up.url + "/v1", roots=(), log_format="json")
        configure_logging(settings, stream=log_file)
        proxy = stack.enter_context(ServerThread(Probed(create_app(settings, engine))))
        yield {"upstream": upstream, "upstream_url": up.url, "proxy_url": proxy.url,
               "port": up.port}
    engine.close()


def probe(pair: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(get_json(f"{pair['proxy_url']}/_probe?port={pair['port']}"))


def test_concurrent_streams_arrive_complete_and_byte_identical(pair):
    result = asyncio.run(stream_soak(pair["proxy_url"] + "/v1", clients=50, seconds=4, events=8))
    print(f"\nstreams: {result.streams} by 50 clients in {result.seconds:.1f} s, "
          f"{result.identical} byte-identical, {len(result.errors)} errors")
    assert result.errors == [] and result.mismatched == []
    assert result.identical == result.streams > 50


def test_aborted_streams_close_upstream_within_a_second_and_leave_nothing_behind(pair):
    asyncio.run(abort_storm(pair["proxy_url"] + "/v1", count=50, concurrency=25, tag="warm"))
    asyncio.run(wait_until_closed(pair["upstream_url"], AbortResult()))
    before = probe(pair)
    aborted = asyncio.run(abort_storm(pair["proxy_url"] + "/v1", count=300, concurrency=50))
    stats = asyncio.run(wait_until_closed(pair["upstream_url"], aborted))
    after = probe(pair)
    delays = aborted.close_delays(stats["closed_at"])
    slowest = max(d for d in delays.values() if d is not None)
    print(f"\naborts: {len(delays)}, slowest upstream close {slowest * 1000:.0f} ms, tasks {before['tasks']} -> "
          f"{after['tasks']}, upstream connections {after['connections']}, "
          f"RSS {before['rss'] / 2**20:.1f} -> {after['rss'] / 2**20:.1f} MiB")
    assert aborted.errors == [] and len(delays) == 300
    assert all(d is not None and d <= 1.0 for d in delays.values())
    assert stats["open"] == 0
    assert after["tasks"] <= before["tasks"]
    assert after["connections"] <= KEEPALIVE_POOL
    assert after["rss"] <= before["rss"] * 1.10

