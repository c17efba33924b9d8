"""Running the preprocessor for one request without ever failing that request.

What lives here: `ChatPreprocessor`, the seam between the web shell and the
skill engine, and `run_preprocessor`, which runs `preprocess` in a worker
thread under `scan_timeout`, or inline when `PreprocessPace` has seen it
decide well inside that limit (a small catalog: the hop to a thread and
back cost about as much as the routing itself). On a timeout or any exception it logs
`preprocess_fallback` and returns `fallback(conversation, reason)` instead. Cancelling
the caller (a client that went away) stops waiting for the thread. The time
it took (`preprocess_ms`) and why it fell back go into the request's record.

What must not: know what the engine does inside, or touch the network.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, Protocol

import structlog

from proxy.core.catalog.catalog import Catalog
from proxy.core.tools.skill_tools import SkillTools
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.turns.records import MixedCall, TurnRecord
from proxy.core.turns.request_options import RequestOptions
from proxy.engine.live_catalog import LiveCatalog
from proxy.logs.timing import ms_since
from proxy.request_record import RequestRecord

log = structlog.get_logger("proxy.preprocess")


class ChatPreprocessor(Protocol):
    @property
    def live(self) -> LiveCatalog | None:
        """The catalog the engine serves and watches (metrics count its skills and reloads); None for an
        engine without one."""
        ...

    def preprocess(self, conversation: Conversation, options: RequestOptions | None = None) -> Preprocessed:
        """The rewritten conversation of a chat request (sync, CPU-bound; may raise or be slow)."""
        ...

    def fallback(self, conversation: Conversation, reason: str,
                 options: RequestOptions | None = None) -> Preprocessed:
        """The conversation with the fallback reminder; never raises."""
        ...

    def preview(self, conversation: Conversation, options: RequestOptions | None = None) -> Preprocessed:
        """What `preprocess` would do, with nothing stored."""
        ...

    def skills(self, options: RequestOptions | None = None) -> Catalog:
        """The skills in scope for a request."""
        ...

    def skill_tools(self, options: RequestOptions | None = None) -> SkillTools | None:
        """The proxy's skill tools over the current catalog, or None when there are none to offer."""
        ...

    def record_tool_exchange(self, anchor: tuple[str, TurnRecord], exchange: list[dict[str, Any]],
                             mixed: MixedCall | None) -> None:
        """Keep a request's tool rounds so the next request can replay them, in the surface's wire form."""
        ...

    def record_chain(self, response_id: str, record: TurnRecord) -> None:
        """Keep what a request continuing the answer `response_id` by its id alone needs (`chain_record`)."""
        ...

    def startup_summary(self) -> dict[str, Any]:
        """`{"skills": int, "warnings": int, "roots": [str, ...]}` for the start banner."""
        ...

    def start(self) -> None:
        """Begin what runs beside the requests (the catalog watcher): the app's lifespan calls it at start."""
        ...

    def close(self) -> None:
        """Stop it and let go of the turn store (queued writes are sent): the lifespan calls it at shutdown."""
        ...


INLINE_LIMIT_S = 0.002  # decided inline only while every recent run took less (and a tenth of the scan timeout)
PACE_WINDOW = 64  # the recent runs that count


class PreprocessPace:
    """Whether to preprocess inline, on the event loop, or in a thread under the scan timeout.

    Inline while each of the last `PACE_WINDOW` runs (inline or not) finished within the inline limit: a thread
    hop costs about 0.1 ms and a turn of the loop, more than routing a small catalog takes. One slow run (a big
    catalog, a long message, a timeout) sends the next runs to the thread, where the timeout can cut them off,
    until it has left the window. The first runs go to the thread: nothing is known yet. Never inline with
    `may_block` (the turn store is Redis: a read waits on the network, which the loop must not)."""

    def __init__(self, scan_timeout: float, may_block: bool = False) -> None:
        self.limit = 0.0 if may_block else min(INLINE_LIMIT_S, scan_timeout / 10)
        self._recent: deque[float] = deque(maxlen=PACE_WINDOW)
        self._slow = 0  # runs in the window over the limit

    @property
    def inline(self) -> bool:
        return self.limit > 0 and len(self._recent) == PACE_WINDOW and not self._slow

    def took(self, seconds: float) -> None:
        if len(self._recent) == PACE_WINDOW and self._recent[0] > self.limit:
            self._slow -= 1
        self._recent.append(seconds)
        self._slow += seconds > self.limit


async def run_preprocessor(engine: ChatPreprocessor, conversation: Conversation, timeout: float,
                           options: RequestOptions | None = None,
                           record: RequestRecord | None = None, pace: PreprocessPace | None = None) -> Preprocessed:
    """`engine.preprocess(conversation, options)` within `timeout` seconds, else `engine.fallback`.

    `record` (the request's) gets `preprocess_ms` and, on a fallback, `fallback`: `timeout` or `error`.
    With `pace`, inline when it says so (and what each run took is told to it); else always in a thread.
    """
    record = RequestRecord() if record is None else record
    started = time.perf_counter()
    try:
        if pace is not None and pace.inline:
            result, took = _timed(engine, conversation, options)
        else:
            # The thread cannot be stopped on timeout, and it may still be reading the conversation while the
            # fallback goes out: safe because neither the engine nor the shell ever changes a request in place.
            result, took = await asyncio.wait_for(asyncio.to_thread(_timed, engine, conversation, options), timeout)
        if pace is not None:
            pace.took(took)  # the engine's own time, without the hop to the thread and back
        record.preprocess_ms = ms_since(started)
        return result
    except TimeoutError:
        record.fallback = "timeout"
        reason = f"scan timeout: preprocessing took longer than scan_timeout={timeout}s"
    except Exception as exc:  # the preprocessor must never fail the request (logged with its traceback)
        record.fallback = "error"
        reason = f"routing error: {type(exc).__name__}: {exc}"
        log.warning("preprocess_error", error_type=type(exc).__name__, exc_info=exc)
    elapsed_ms = record.preprocess_ms = ms_since(started)
    if pace is not None:
        pace.took(max(timeout, elapsed_ms / 1000) if record.fallback == "timeout" else elapsed_ms / 1000)
    log.warning("preprocess_fallback", reason=reason, elapsed_ms=elapsed_ms)
    return engine.fallback(conversation, reason, options)


def _timed(engine: ChatPreprocessor, conversation: Conversation,
           options: RequestOptions | None) -> tuple[Preprocessed, float]:
    started = time.perf_counter()
    return engine.preprocess(conversation, options), time.perf_counter() - started


def log_decision_events(result: Preprocessed) -> None:
    """Each of the preprocessor's decision events as its own log line, at debug (written with `log_events`)."""
    if not log.is_enabled_for(logging.DEBUG):
        return
    for event in result.events:
        fields = {k: v for k, v in event.items() if k != "event"}
        log.debug(str(event.get("event", "preprocess_event")), **fields)
