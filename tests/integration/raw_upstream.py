"""A fake upstream on a raw asyncio socket, for the faults an HTTP server library will not commit.

uvicorn keeps HTTP correct; these are not: a status line that is not HTTP,
a Content-Length shorter or longer than the body, and keep-alive connections
closed under the client (after every answer, after 100 ms idle, or just as the
next request on a connection arrives: the race a pool meets when an upstream's
idle timer fires). Chat answers come from scripted_model (its `x-fake-script`
header), as JSON or, when the request says `stream`, as chunked SSE, so the
proxy's tool loop can run against it. The request's `model` picks a fault:
`raw-bad-status`, `raw-not-http`, `raw-short-length`, `raw-long-length`
(from round `x-fault-round` of a tool loop on, 1 by default); anything else is
answered properly.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from . import scripted_model
from .fake_upstream import round_of

KEEP_ALIVE = "keep-alive"  # an ordinary HTTP/1.1 server
CLOSE_AFTER_ANSWER = "close-after-answer"  # answers without `Connection: close`, then closes the socket
IDLE_CLOSE = "idle-close"  # closes a connection that has been idle for `idle` seconds
DROP_REUSED = "drop-reused"  # a second request on a connection: closed without an answer
NOT_HTTP = b"SSH-2.0-OpenSSH_9.6\r\n"


class RawUpstream:
    """`with RawUpstream(mode) as raw:` serves on `raw.url` until the block ends; counts what happened."""

    def __init__(self, mode: str = KEEP_ALIVE, idle: float = 0.1) -> None:
        self.mode = mode
        self.idle = idle
        self.connections = 0
        self.answered = 0
        self.dropped = 0
        self.bodies: list[dict[str, Any]] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._serve(),), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> RawUpstream:
        self._thread.start()
        if not self._ready.wait(5):
            raise RuntimeError("the raw upstream did not start")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(5)
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()
        handlers = asyncio.all_tasks() - {asyncio.current_task()}
        for handler in handlers:
            handler.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        served = 0
        try:
            while True:
                idle = self.idle if self.mode == IDLE_CLOSE and served else None
                try:
                    head, body = await asyncio.wait_for(_read_request(reader), idle)
                except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
                    return
                if self.mode == DROP_REUSED and served:
                    self.dropped += 1
                    return
                served += 1
                keep_open = await self._answer(writer, head, body)
                if not keep_open or self.mode == CLOSE_AFTER_ANSWER:
                    return
        finally:
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, head: dict[str, str], body: bytes) -> bool:
        """Write one answer; False when the connection must close after it."""
        if not head["path"].endswith("/chat/completions"):
            writer.write(_response(json.dumps({"object": "list", "data": [{"id": "raw"}]}).encode()))
            self.answered += 1
            return True
        request = json.loads(body)
        self.bodies.append(request)
        fault = request.get("model") if round_of(request) >= int(head.get("x-fault-round", "1")) else None
        if fault in ("raw-bad-status", "raw-not-http"):
            writer.write(b"HTTP/1.1 abc\r\n\r\n" if fault == "raw-bad-status" else NOT_HTTP)
            return False
        if request.get("stream"):
            await _write_chunked(writer, scripted_model.stream_events(request, head), fault == "raw-long-length")
        else:
            payload = json.dumps(scripted_model.completion(request, head)).encode()
            declared = len(payload) + {"raw-short-length": -5, "raw-long-length": 100}.get(fault, 0)
            writer.write(_response(payload, declared))
        await writer.drain()
        self.answered += 1
        return fault != "raw-long-length"


async def _read_request(reader: asyncio.StreamReader) -> tuple[dict[str, str], bytes]:
    """The request line and headers (lower-case names; `path` too) and the body."""
    raw = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    request_line, *lines = raw.split("\r\n")
    head = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)}
    head["path"] = request_line.split(" ")[1]
    if head.get("transfer-encoding", "").lower() == "chunked":
        return head, await _read_chunked(reader)
    return head, await reader.readexactly(int(head.get("content-length", "0")))


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
    await reader.readuntil(b"\r\n")
    return b"".join(parts)


def _response(payload: bytes, declared: int | None = None) -> bytes:
    length = len(payload) if declared is None else declared
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % length) + payload


async def _write_chunked(writer: asyncio.StreamWriter, events: list[bytes], break_off: bool) -> None:
    """SSE in chunked encoding; `break_off`: the stream declares a length it never sends, and stops."""
    if break_off:
        events = events[:2]
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 100000\r\n\r\n")
        writer.write(b"".join(events))
        return
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    for event in events:
        writer.write(b"%x\r\n%s\r\n" % (len(event), event))
        await writer.drain()
    writer.write(b"0\r\n\r\n")
