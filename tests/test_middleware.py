"""proxy.middleware.DisconnectWatch: guarded work ends with the client, in the caller's task, one watcher a request."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from proxy.errors import ClientDisconnected
from proxy.middleware import DisconnectWatch

DISCONNECT = {"type": "http.disconnect"}
BODY = {"type": "http.request", "body": b"late", "more_body": False}


class Client:
    """A scripted ASGI `receive`: it returns the messages put on its queue, waiting while there are none."""

    def __init__(self, *messages: dict) -> None:
        self.queue: asyncio.Queue[dict] = asyncio.Queue()
        for message in messages:
            self.queue.put_nowait(message)

    async def receive(self) -> dict:
        return await self.queue.get()

    def leave(self) -> None:
        self.queue.put_nowait(DISCONNECT)


async def settle() -> None:
    """Lets every task that is ready run until none is (the watcher, a cancellation)."""
    for _ in range(5):
        await asyncio.sleep(0)


async def answer(value: object = "answer") -> object:
    await asyncio.sleep(0)
    return value


def test_guard_returns_the_works_result_while_the_client_stays():
    async def run():
        client = Client()
        async with DisconnectWatch(client.receive) as watch:
            return [await watch.guard(answer(n)) for n in range(3)]

    assert asyncio.run(run()) == [0, 1, 2]


def test_an_error_of_the_work_itself_comes_out_of_guard_unchanged():
    async def failing():
        await asyncio.sleep(0)
        raise ValueError("the work's own failure")

    async def run():
        async with DisconnectWatch(Client().receive) as watch:
            await watch.guard(failing())

    with pytest.raises(ValueError, match="the work's own failure"):
        asyncio.run(run())


def test_a_disconnect_during_the_work_cancels_it_and_guard_raises_client_disconnected():
    seen = []

    async def slow():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def run():
        client = Client()
        async with DisconnectWatch(client.receive) as watch:
            asyncio.get_running_loop().call_later(0.01, client.leave)
            with pytest.raises(ClientDisconnected):
                await watch.guard(slow())
            me = asyncio.current_task()
            assert me is not None and me.cancelling() == 0, "the caller's task is not left half-cancelled"
            await asyncio.sleep(0.01)  # and it goes on awaiting as usual
            return "went on"

    assert asyncio.run(run()) == "went on"
    assert seen == ["cancelled"], "the work saw the cancellation, so its own cleanup ran"


def test_work_guarded_after_the_client_left_is_never_started_and_guard_raises():
    async def run():
        client = Client(DISCONNECT)
        async with DisconnectWatch(client.receive) as watch:
            await settle()
            work = answer()
            with pytest.raises(ClientDisconnected):
                await watch.guard(work)
            assert inspect.getcoroutinestate(work) == inspect.CORO_CLOSED, "closed, not left to warn unawaited"
            assert work.cr_frame is None
            with pytest.raises(ClientDisconnected):
                await watch.guard(answer())

    asyncio.run(run())


def test_a_disconnect_between_guarded_steps_does_not_cancel_the_caller_only_the_next_guard():
    async def run():
        client = Client()
        async with DisconnectWatch(client.receive) as watch:
            assert await watch.guard(answer(1)) == 1
            client.leave()
            await settle()
            await asyncio.sleep(0.01)  # unguarded work in between is not interrupted
            with pytest.raises(ClientDisconnected):
                await watch.guard(answer(2))

    asyncio.run(run())


def test_body_messages_before_the_disconnect_are_read_past_and_the_disconnect_still_seen():
    async def run():
        client = Client(BODY, {"type": "http.request", "body": b"", "more_body": False}, DISCONNECT)
        async with DisconnectWatch(client.receive) as watch:
            with pytest.raises(ClientDisconnected):
                await watch.guard(asyncio.sleep(3600))
            assert client.queue.empty()

    asyncio.run(asyncio.wait_for(run(), 5))


def test_body_messages_alone_are_not_a_disconnect():
    async def run():
        client = Client(BODY, BODY)
        async with DisconnectWatch(client.receive) as watch:
            await settle()
            assert client.queue.empty(), "the watcher read them"
            return await watch.guard(answer())

    assert asyncio.run(run()) == "answer"


def test_receive_is_not_read_until_the_body_is_done():
    async def run():
        client, body_done = Client(DISCONNECT), asyncio.Event()
        async with DisconnectWatch(client.receive, body_done) as watch:
            await settle()
            assert client.queue.qsize() == 1, "the handler still reads the body from receive"
            assert await watch.guard(answer()) == "answer"
            body_done.set()
            await settle()
            assert client.queue.empty()
            with pytest.raises(ClientDisconnected):
                await watch.guard(answer())

    asyncio.run(run())


def test_guard_starts_no_task_per_call_only_the_one_watcher_per_request():
    async def count_tasks():
        await asyncio.sleep(0)
        return len(asyncio.all_tasks())

    async def run():
        before = len(asyncio.all_tasks())
        async with DisconnectWatch(Client().receive) as watch:
            inside = {await watch.guard(count_tasks()) for _ in range(50)}
        await settle()
        after = len(asyncio.all_tasks())
        return before, inside, after

    before, inside, after = asyncio.run(run())
    assert inside == {before + 1}, "the watcher, and nothing per guard"
    assert after == before, "leaving the block stops the watcher"


def test_the_guarded_work_runs_in_the_callers_own_task():
    async def which_task():
        return asyncio.current_task()

    async def run():
        async with DisconnectWatch(Client().receive) as watch:
            return await watch.guard(which_task()) is asyncio.current_task()

    assert asyncio.run(run())


def test_after_the_block_a_disconnect_is_no_longer_read():
    async def run():
        client = Client()
        async with DisconnectWatch(client.receive):
            await settle()
        await settle()
        client.leave()
        await settle()
        return client.queue.qsize()

    assert asyncio.run(run()) == 1


def test_a_cancellation_from_elsewhere_is_not_mistaken_for_a_disconnect():
    async def run():
        client = Client()
        async with DisconnectWatch(client.receive) as watch:
            guarded = asyncio.ensure_future(watch.guard(asyncio.sleep(3600)))
            await settle()
            guarded.cancel()
            with pytest.raises(asyncio.CancelledError):
                await guarded
            assert await watch.guard(answer()) == "answer", "the client is still there"

    asyncio.run(run())


def test_a_cancellation_from_elsewhere_at_the_moment_the_client_leaves_still_cancels():
    async def guarded_call(watch):
        async with watch:
            await watch.guard(asyncio.sleep(3600))

    async def run():
        client = Client()
        watch = DisconnectWatch(client.receive)
        task = asyncio.ensure_future(guarded_call(watch))
        await settle()
        client.leave()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled()

    assert asyncio.run(run()), "the outer cancellation wins: the task ends cancelled, not with ClientDisconnected"


def test_a_disconnect_inside_nested_guards_comes_out_of_both_as_client_disconnected():
    async def run():
        client = Client()
        async with DisconnectWatch(client.receive) as watch:
            async def inner_step():
                assert await watch.guard(answer("inner")) == "inner"
                await watch.guard(asyncio.sleep(3600))

            asyncio.get_running_loop().call_later(0.01, client.leave)
            with pytest.raises(ClientDisconnected):
                await watch.guard(inner_step())
            with pytest.raises(ClientDisconnected):
                await watch.guard(answer())

    asyncio.run(asyncio.wait_for(run(), 5))
