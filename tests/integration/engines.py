"""Test doubles for the preprocessor seam (`ChatPreprocessor`)."""

from __future__ import annotations

import threading
import time
from typing import Any

from proxy.core.turns.conversation import Conversation, TextForm, TextPart
from proxy.core.turns.preprocess_result import Preprocessed

MARKER = "[skills:demo] "
FALLBACK = '<skills_runtime_reminder reason="scan timeout or routing error">'


def prepend_to_last_user(conversation: Conversation, text: str) -> Conversation:
    """The conversation whose last user turn starts with `text` (one text, or a text part first), in any wire."""
    turns = list(conversation.turns)
    for index in range(len(turns) - 1, -1, -1):
        turn = turns[index]
        if not turn.is_user:
            continue
        if turn.form == TextForm.PLAIN:
            turns[index] = turn.with_parts([TextPart(text + turn.text)], TextForm.PLAIN)
        elif turn.form == TextForm.PARTS:
            turns[index] = turn.with_parts([TextPart(text), *turn.parts], TextForm.PARTS)
        break
    return conversation.with_turns(turns)


class MarkerEngine:
    """Prepends MARKER to the last user message and reports a routed `demo` skill."""

    live = None  # no catalog: the metrics have no skills gauge

    def __init__(self) -> None:
        self.seen: list[Any] = []  # the conversations' wire values (Chat: the `messages` lists)

    def preprocess(self, conversation: Conversation, options: Any = None) -> Preprocessed:
        self.seen.append(conversation.raw)
        return Preprocessed(
            conversation=prepend_to_last_user(conversation, MARKER),
            mode="routed", route_header="demo=90", selected=("demo",), injected_chars=len(MARKER),
            events=({"event": "prompt_route", "top": "demo", "score": 90, "confidence": "high"},
                    {"event": "context_injection", "chars": len(MARKER)}),
        )

    def fallback(self, conversation: Conversation, reason: str, options: Any = None) -> Preprocessed:
        return Preprocessed(conversation=prepend_to_last_user(conversation, FALLBACK + " "),
                            mode="fallback", route_header="fallback")

    def startup_summary(self) -> dict[str, Any]:
        return {"skills": 1, "warnings": 0, "roots": ["skills"]}

    def start(self) -> None:
        """Nothing runs beside the requests."""

    def close(self) -> None:
        """Nothing to stop."""

    def skill_tools(self, options: Any = None) -> None:
        return None  # no tools: requests go through untouched apart from the marker

    def record_tool_exchange(self, anchor: Any, exchange: Any, mixed: Any) -> None:
        raise AssertionError("no tool loop runs without skill tools")

    def record_chain(self, response_id: str, record: Any) -> None:
        """Nothing is kept."""


class SlowEngine(MarkerEngine):
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def preprocess(self, conversation: Conversation, options: Any = None) -> Preprocessed:
        time.sleep(self.seconds)
        return super().preprocess(conversation)


class RaisingEngine(MarkerEngine):
    def preprocess(self, conversation: Conversation, options: Any = None) -> Preprocessed:
        raise RuntimeError("router exploded")


class BlockingEngine(MarkerEngine):
    """Blocks until `release` is set; `started` tells the test it is running."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()

    def preprocess(self, conversation: Conversation, options: Any = None) -> Preprocessed:
        self.started.set()
        self.release.wait(10)
        return super().preprocess(conversation)


def real_engine(roots: tuple[str, ...] | None = None, **overrides: Any):
    """The real skill engine, not watching for changes: the project's own skills/ unless `roots` says."""
    from proxy.engine.skill_engine import SkillEngine
    from proxy.settings import Settings
    from tests.conftest import REPO

    roots = tuple(roots) if roots is not None else (str(REPO / "skills"),)
    return SkillEngine.from_settings(Settings(roots=roots, **overrides), watch=False)
