"""Elapsed time as the log lines carry it (`upstream_ms`, `preprocess_ms`): milliseconds, one decimal."""

from __future__ import annotations

import time


def ms_since(started: float) -> float:
    """Milliseconds since `started`, a `time.perf_counter()` reading."""
    return round((time.perf_counter() - started) * 1000, 1)
