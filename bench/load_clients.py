"""Load-run clients: many streams checked byte for byte, and many streams abandoned mid-way.

`stream_soak` keeps `clients` streaming requests going for `seconds`; every answer
must be byte-identical to what `bench.load_upstream` sent for that request's seed.
`abort_storm` opens `count` endless streams, reads the first bytes, hangs up, and
then asks the upstream when it saw each connection close.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.load_upstream import ENDLESS, expected_stream

PROMPTS = [
    "Write a conventional commit message for a fix to token expiry in the login flow",
    "This SQL query on orders joined with customers takes 9 seconds, how do I speed it up?",
    "Triage these nginx error logs and tell me what broke first",
    "What is the capital of Portugal?",
    "Review this pull request for missing tests",
]


@dataclass
class SoakResult:
    streams: int = 0
    identical: int = 0
    bytes: int = 0
    mismatched: list[tuple[int, int, bytes]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class AbortResult:
    aborted_at: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def close_delays(self, closed_at: dict[str, float]) -> dict[str, float | None]:
        """Seconds from each hang-up to the upstream seeing its connection close (None: never)."""
        return {rid: (closed_at[rid] - at if rid in closed_at else None) for rid, at in self.aborted_at.items()}


def chat_body(seed: int, events: int) -> dict[str, Any]:
    return {"model": "load", "stream": True, "seed": seed, "max_tokens": events,
            "messages": [{"role": "user", "content": PROMPTS[seed % len(PROMPTS)]}]}


def _client(concurrency: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(30.0))


async def stream_soak(base_url: str, clients: int, seconds: float, events: int = 8) -> SoakResult:
    result, seeds = SoakResult(), itertools.count(1)
    started = time.monotonic()
    async with _client(clients) as client:
        workers = [_stream_worker(client, base_url, started + seconds, seeds, events, result) for _ in range(clients)]
        await asyncio.gather(*workers)
    result.seconds = time.monotonic() - started
    return result


async def _stream_worker(client: httpx.AsyncClient, base_url: str, deadline: float, seeds: Any, events: int,
                         result: SoakResult) -> None:
    while time.monotonic() < deadline:
        seed = next(seeds)
        result.streams += 1
        try:
            async with client.stream("POST", base_url + "/chat/completions", json=chat_body(seed, events)) as answer:
                data = b"".join([part async for part in answer.aiter_raw()])
        except httpx.HTTPError as error:
            result.errors.append(f"seed {seed}: {error!r}")
            continue
        result.bytes += len(data)
        if answer.status_code == 200 and data == expected_stream(seed, events):
            result.identical += 1
        else:
            result.mismatched.append((seed, answer.status_code, data[:300]))


async def abort_storm(base_url: str, count: int, concurrency: int, tag: str = "abort") -> AbortResult:
    result, slots = AbortResult(), asyncio.Semaphore(concurrency)
    async with _client(concurrency) as client:
        await asyncio.gather(*(_abort_one(client, base_url, f"{tag}-{n}", n, slots, result) for n in range(count)))
    return result


async def _abort_one(client: httpx.AsyncClient, base_url: str, request_id: str, seed: int,
                     slots: asyncio.Semaphore, result: AbortResult) -> None:
    async with slots:
        try:
            async with client.stream("POST", base_url + "/chat/completions", json=chat_body(seed, ENDLESS),
                                     headers={"x-request-id": request_id}) as answer:
                async for _ in answer.aiter_raw():
                    break  # the first bytes arrived: the upstream is streaming; hang up
                result.aborted_at[request_id] = time.monotonic()
        except httpx.HTTPError as error:
            result.errors.append(f"{request_id}: {error!r}")


async def get_json(url: str) -> Any:
    async with httpx.AsyncClient(timeout=10) as client:
        answer = await client.get(url)
        answer.raise_for_status()
        return answer.json()


async def wait_until_closed(upstream_url: str, aborted: AbortResult, timeout: float = 5.0) -> dict[str, Any]:
    """The upstream's stats once no stream is open any more (or at `timeout`)."""
    deadline = time.monotonic() + timeout
    while True:
        stats = await get_json(upstream_url + "/stats")
        done = all(rid in stats["closed_at"] for rid in aborted.aborted_at)
        if (done and stats["open"] == 0) or time.monotonic() > deadline:
            return stats
        await asyncio.sleep(0.1)
