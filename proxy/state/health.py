"""Whether the shared state store (Redis) is usable now, and saying so in the log without flooding it.

What lives here: `redacted_url` (a Redis URL fit for a log line or the start
banner: no password, in the user part or the query) and `StoreHealth`, a
small circuit breaker. After a failure the store is left alone for
`retry_after` seconds (requests recompute instead of each waiting for a
timeout); the first failure logs `state_unavailable`, a still-failing store
logs it again at most every `repeat_after` seconds, and the first success
after that logs `state_recovered`.

What must not: talk to Redis itself, or know what a turn record is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

import structlog

log = structlog.get_logger("proxy.state")

HIDDEN = "***"
_SECRET_QUERY_KEYS = ("password", "pass", "passwd", "auth", "token")


def url_secrets(url: str) -> tuple[str, ...]:
    """The password in `url` as written and as decoded (what a client may echo), for redaction."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    found = [parts.password or ""] + [v for k, v in parse_qsl(parts.query) if k.lower() in _SECRET_QUERY_KEYS]
    return tuple(sorted({form for raw in found if raw for form in (raw, unquote(raw))}, key=len, reverse=True))


def redacted_url(url: str) -> str:
    """`url` with its password (and any password-like query value) replaced by ***."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return f"{url.split(':', 1)[0]}://{HIDDEN}"
    host = f"[{host}]" if ":" in host else host
    netloc = host + (f":{port}" if port is not None else "")
    if parts.username or parts.password is not None:
        user = parts.username or ""
        netloc = f"{user}:{HIDDEN}@{netloc}" if parts.password is not None else f"{user}@{netloc}"
    query = urlencode([(k, HIDDEN if k.lower() in _SECRET_QUERY_KEYS else v)
                       for k, v in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


class StoreHealth:
    def __init__(self, url: str, retry_after: float = 2.0, repeat_after: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.shown_url = redacted_url(url)
        self._secrets = url_secrets(url)
        self._retry_after = retry_after
        self._repeat_after = repeat_after
        self._clock = clock
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._retry_at = 0.0
        self._warned_at = 0.0
        self._failures = 0

    @property
    def is_down(self) -> bool:
        return self._down_since is not None

    def should_try(self) -> bool:
        """False while the store is left alone after a failure."""
        return self._down_since is None or self._clock() >= self._retry_at

    def failed(self, operation: str, error: BaseException) -> None:
        now = self._clock()
        with self._lock:
            first = self._down_since is None
            self._down_since = now if first else self._down_since
            self._retry_at = now + self._retry_after
            self._failures += 1
            if not first and now - self._warned_at < self._repeat_after:
                return
            self._warned_at = now
            failures = self._failures
        log.warning("state_unavailable", state=self.shown_url, operation=operation, failures=failures,
                    error=self._scrubbed(error), retry_after_s=self._retry_after,
                    effect="replay records are recomputed; requests go through")

    def succeeded(self) -> None:
        if self._down_since is None:
            return
        with self._lock:
            if self._down_since is None:
                return
            down_s = round(self._clock() - self._down_since, 1)
            failures, self._down_since, self._failures = self._failures, None, 0
        log.info("state_recovered", state=self.shown_url, down_s=down_s, failures=failures)

    def _scrubbed(self, error: BaseException) -> str:
        text = f"{type(error).__name__}: {error}"
        for secret in self._secrets:
            text = text.replace(secret, HIDDEN)
        return text
