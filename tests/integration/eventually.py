"""Waiting for something a server does in its own time (a reload, a log line), with a generous limit."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def eventually(check: Callable[[], Any], seconds: float = 10.0, pause: float = 0.02) -> Any:
    """`check()`'s first true result; an AssertionError if none comes within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(pause)
    raise AssertionError(f"not true within {seconds} s: {check.__doc__ or check}")
