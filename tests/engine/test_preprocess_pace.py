"""Preprocessing inline or in a thread: inline only once it has been fast, back to the thread after a slow run."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from proxy.core.turns.conversation import Conversation
from proxy.core.turns.modes import TurnMode
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.engine.preprocess_runner import PACE_WINDOW, PreprocessPace, run_preprocessor
from proxy.request_record import RequestRecord
from proxy.surfaces.chat_messages import read_messages


class TimedEngine:
    """Preprocesses in `delay` seconds (sleeping: the timing is what matters), noting the thread of each run."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.threads: list[int] = []

    def preprocess(self, conversation: Conversation, options: Any = None) -> Preprocessed:
        self.threads.append(threading.get_ident())
        if self.delay:
            time.sleep(self.delay)
        return Preprocessed(conversation, TurnMode.ROUTED, "demo=90", ("demo",))

    def fallback(self, conversation: Conversation, reason: str, options: Any = None) -> Preprocessed:
        return Preprocessed(conversation, TurnMode.FALLBACK, "fallback")


def conversation() -> Conversation:
    return read_messages([{"role": "user", "content": "hello"}])


def run(engine: TimedEngine, pace: PreprocessPace | None, times: int, timeout: float = 1.0) -> list[Preprocessed]:
    async def runs() -> tuple[list[Preprocessed], int]:
        results = [await run_preprocessor(engine, conversation(), timeout, None, RequestRecord(), pace)  # type: ignore[arg-type]
                   for _ in range(times)]
        return results, threading.get_ident()

    results, loop_thread = asyncio.run(runs())
    engine.loop_thread = loop_thread  # type: ignore[attr-defined]
    return results


def inline_runs(engine: TimedEngine) -> int:
    return sum(thread == engine.loop_thread for thread in engine.threads)  # type: ignore[attr-defined]


def test_fast_runs_go_inline_once_a_whole_window_of_them_was_fast():
    engine, pace = TimedEngine(), PreprocessPace(scan_timeout=1.0)
    run(engine, pace, PACE_WINDOW + 10)
    assert inline_runs(engine) == 10, "the first window runs in the thread, every later one inline"
    assert pace.inline


def test_without_a_pace_every_run_is_in_a_thread():
    engine = TimedEngine()
    run(engine, None, PACE_WINDOW + 10)
    assert inline_runs(engine) == 0


def test_one_slow_run_sends_the_next_ones_to_the_thread_until_it_leaves_the_window():
    pace = PreprocessPace(scan_timeout=1.0)
    for _ in range(PACE_WINDOW):
        pace.took(0.0001)
    assert pace.inline
    pace.took(0.05)  # a long message, a catalog that grew
    assert not pace.inline
    for _ in range(PACE_WINDOW - 1):
        pace.took(0.0001)
        assert not pace.inline
    pace.took(0.0001)
    assert pace.inline, "the slow run has left the window"


def test_a_slow_engine_stays_in_the_thread_and_still_falls_back_at_the_scan_timeout():
    engine, pace = TimedEngine(delay=0.05), PreprocessPace(scan_timeout=0.01)
    results = run(engine, pace, 3, timeout=0.01)
    assert [r.mode for r in results] == [TurnMode.FALLBACK] * 3 and not pace.inline
    assert inline_runs(engine) == 0


def test_never_inline_when_the_turn_store_may_block_on_the_network():
    pace = PreprocessPace(scan_timeout=1.0, may_block=True)
    for _ in range(PACE_WINDOW * 2):
        pace.took(0.00001)
    assert not pace.inline


def test_the_inline_limit_is_a_tenth_of_a_short_scan_timeout():
    assert PreprocessPace(scan_timeout=0.005).limit == 0.0005
    assert PreprocessPace(scan_timeout=2.0).limit == 0.002


def test_an_error_inline_falls_back_as_it_does_in_the_thread():
    class Failing(TimedEngine):
        def preprocess(self, conversation: Conversation, options: Any = None) -> Preprocessed:
            raise ValueError("broken catalog")

    pace = PreprocessPace(scan_timeout=1.0)
    for _ in range(PACE_WINDOW):
        pace.took(0.0001)
    record = RequestRecord()

    async def once() -> Preprocessed:
        return await run_preprocessor(Failing(), conversation(), 1.0, None, record, pace)  # type: ignore[arg-type]

    assert asyncio.run(once()).mode == TurnMode.FALLBACK and record.fallback == "error"
