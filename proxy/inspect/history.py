"""The last N finished requests, newest first, in memory: what the inspect page lists.

`RequestHistory.observe` is a request observer (see `proxy.middleware`): it
gets every finished request's canonical line and keeps a `RequestRecord` of it,
references only (the text is cut at `TEXT_CAP`), so a request pays a deque
append. The page's own calls and health probes are not kept: they would push
the requests an operator is looking for out of the buffer.

Observers and the page's endpoints both run on the event loop, so no lock.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from proxy.inspect.request_view import RequestRecord, record_of

NOT_KEPT_PREFIXES = ("/_skillproxy", "/healthz", "/readyz")


class RequestHistory:
    def __init__(self, size: int, clock: Callable[[], float] = time.time) -> None:
        self.size = size
        self._records: deque[RequestRecord] = deque(maxlen=size or 1)
        self._clock = clock

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def observe(self, line: dict[str, Any]) -> None:
        if self.enabled and not str(line.get("path", "")).startswith(NOT_KEPT_PREFIXES):
            self._records.append(record_of(line, self._clock()))

    def recent(self, limit: int | None = None) -> list[RequestRecord]:
        """Newest first."""
        newest_first = list(reversed(self._records)) if self.enabled else []
        return newest_first if limit is None else newest_first[:limit]

    def find(self, request_id: str) -> RequestRecord | None:
        """The newest request with this id (a client may send the same X-Request-ID twice)."""
        return next((r for r in self.recent() if r.line.get("request_id") == request_id), None)
