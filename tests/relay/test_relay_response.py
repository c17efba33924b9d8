"""proxy.relay.relay_response: a relayed stream stops and closes its source the moment the client leaves."""

from __future__ import annotations

import asyncio

from starlette.background import BackgroundTask

from proxy.relay.relay_response import RelayResponse
from proxy.request_record import RECORD_KEY, RequestRecord


def test_a_client_leaving_mid_stream_stops_the_pump_and_closes_the_body():
    sent, closed, left = [], asyncio.Event(), asyncio.Event()

    async def endless():
        try:
            while True:  # an upstream that never ends, as the abort runs use
                await asyncio.sleep(0.001)
                yield b"data: {}\n\n"
        finally:
            closed.set()

    async def receive():
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)
        if len(sent) == 4:
            left.set()  # the client hangs up after three chunks

    async def run():
        scope = {"type": "http", RECORD_KEY: RequestRecord()}
        response = RelayResponse(endless(), 200, [(b"content-type", b"text/event-stream")])
        await asyncio.wait_for(response(scope, receive, send), 5)
        return scope

    scope = asyncio.run(run())
    assert closed.is_set()
    assert sent[0] == {"type": "http.response.start", "status": 200,
                       "headers": [(b"content-type", b"text/event-stream")]}
    assert 4 <= len(sent) <= 6 and all(m.get("more_body") for m in sent[1:])
    assert scope[RECORD_KEY].client_disconnected is True


def test_a_finished_stream_ends_the_body_and_runs_the_background_task():
    sent, done = [], []

    async def three():
        for n in range(3):
            yield b"%d" % n

    async def receive():
        await asyncio.sleep(10)

    async def send(message):
        sent.append(message)

    async def background():
        done.append(True)

    asyncio.run(RelayResponse(three(), 201, [], BackgroundTask(background))({"type": "http"}, receive, send))
    assert [m.get("body") for m in sent[1:]] == [b"0", b"1", b"2", b""]
    assert sent[-1]["more_body"] is False and sent[0]["status"] == 201 and done == [True]
