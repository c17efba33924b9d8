"""The last N finished requests, newest first, in memory: what the inspect page lists.

`RequestHistory.observe` is a request observer (see `proxy.middleware`): it
gets every finished request's record and keeps a `KeptRequest` of it,
references only (the text is cut at `TEXT_CAP`), so a request pays a deque
append. The page's own calls and health probes are not kept: they would push
the requests an operator is looking for out of the buffer.

Observers and the page's endpoints both run on the event loop, so no lock.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from proxy.inspect.request_view import KeptRequest, record_of
from proxy.request_record import RequestRecord

NOT_KEPT_PREFIXES = ("/_skillproxy", "/healthz", "/readyz")


class RequestHistory:
    def __init__(self, size: int, clock: Callable[[], float] = time.time) -> None:
        self.size = size
        self._kept: deque[KeptRequest] = deque(maxlen=size or 1)
        self._clock = clock

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def observe(self, request: RequestRecord) -> None:
        if self.enabled and not (request.path or "").startswith(NOT_KEPT_PREFIXES):
            self._kept.append(record_of(request, self._clock()))

    def recent(self, limit: int | None = None) -> list[KeptRequest]:
        """Newest first."""
        newest_first = list(reversed(self._kept)) if self.enabled else []
        return newest_first if limit is None else newest_first[:limit]

    def find(self, request_id: str) -> KeptRequest | None:
        """The newest request with this id (a client may send the same X-Request-ID twice)."""
        return next((kept for kept in self.recent() if kept.request.request_id == request_id), None)
