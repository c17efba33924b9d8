"""Test doubles for the preprocessor seam (`ChatPreprocessor`)."""

from __future__ import annotations

import threading
import time
from typing import Any

from proxy.core.turns.preprocess_result import Preprocessed
from proxy.surfaces.chat_messages import read_messages

MARKER = "[skills:demo] "
FALLBACK = '<skills_runtime_reminder reason="scan timeout or routing error">'


def prepend_to_last_user(messages: list[Any], text: str) -> list[Any]:
    """A new list whose last user message starts with `text` (string or content-array form)."""
    result = [dict(m) for m in messages]
    for message in reversed(result):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            message["content"] = text + content
        elif isinstance(content, list):
            message["content"] = [{"type": "text", "text": text}, *content]
        break
    return result


class MarkerEngine:
    """Prepends MARKER to the last user message and reports a routed `demo` skill."""

    live = None  # no catalog: the metrics have no skills gauge

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    def preprocess(self, body: dict[str, Any], options: Any = None) -> Preprocessed:
        self.seen.append(body)
        return Preprocessed(
            conversation=read_messages(prepend_to_last_user(body["messages"], MARKER)),
            mode="routed", route_header="demo=90", selected=("demo",), injected_chars=len(MARKER),
            events=({"event": "prompt_route", "top": "demo", "score": 90, "confidence": "high"},
                    {"event": "context_injection", "chars": len(MARKER)}),
        )

    def fallback(self, body: dict[str, Any], reason: str, options: Any = None) -> Preprocessed:
        return Preprocessed(conversation=read_messages(prepend_to_last_user(body["messages"], FALLBACK + " ")),
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


class SlowEngine(MarkerEngine):
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def preprocess(self, body: dict[str, Any], options: Any = None) -> Preprocessed:
        time.sleep(self.seconds)
        return super().preprocess(body)


class RaisingEngine(MarkerEngine):
    def preprocess(self, body: dict[str, Any], options: Any = None) -> Preprocessed:
        raise RuntimeError("router exploded")


class BlockingEngine(MarkerEngine):
    """Blocks until `release` is set; `started` tells the test it is running."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()

    def preprocess(self, body: dict[str, Any], options: Any = None) -> Preprocessed:
        self.started.set()
        self.release.wait(10)
        return super().preprocess(body)


def real_engine(roots: tuple[str, ...] | None = None, **overrides: Any):
    """The real skill engine, not watching for changes: the project's own skills/ unless `roots` says."""
    from proxy.engine.skill_engine import SkillEngine
    from proxy.settings import Settings
    from tests.conftest import REPO

    roots = tuple(roots) if roots is not None else (str(REPO / "skills"),)
    return SkillEngine.from_settings(Settings(roots=roots, **overrides), watch=False)
