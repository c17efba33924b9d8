"""Keeping Python's cycle collector off the skill catalog.

The catalog and the router's index are a few hundred thousand long-lived
objects. Left in the collector's oldest generation, every full collection walks
them all (about 86 ms over the 396-skill corpus), stalling whichever requests
are in flight: that was the proxy's p99. `settle` collects once and then
freezes what is alive, so later collections only look at objects made since.
It runs once at start and after each catalog reload (the old catalog is
unfrozen and collected first, so a reload leaks nothing). And
`collector_paused`, held while a catalog and its router are rebuilt.

What must not: run per request.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def settle(*_changed: Any) -> None:
    """Collect everything, then move the survivors out of the collector's sight (a catalog listener too)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection while a catalog and its router are rebuilt.

    A rebuild makes a few hundred thousand small objects; with the collector on, they set
    off full collections of the whole process several times per rebuild (measured: half of
    a 400-skill reload). Paused, the collector runs once afterwards, off the reload's path.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
