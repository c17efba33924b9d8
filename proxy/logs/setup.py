"""Log configuration: structlog events (and stdlib loggers such as uvicorn's) as one stream.

What lives here: `configure_logging`, which sends every log line to stdout as a
JSON object (or a console rendering on a terminal, or as `log_format` says) and,
when `log_file` is set, as JSON lines to that file too; and `SecretRedactor`,
the processor every line passes through so that no Authorization header, API
key or configured secret reaches a log line.

What must not: decide what is logged; the modules that log do.
"""

from __future__ import annotations

import functools
import logging
import re
import sys
from collections.abc import Iterable, MutableMapping
from typing import IO, Any

import structlog

from proxy.logs.sinks import SINKS, Renderer, StdlibBridge, console_renderer, json_line, sink_logger_factory
from proxy.settings import Settings
from proxy.state.health import url_secrets

REDACTED = "[redacted]"
SECRET_KEYS = re.compile(
    r"(?:.*[_-])?(?:authorization|api[_-]?keys?|apikey|token|secret|password|passwd|cookie)",
    re.IGNORECASE,
)
SECRET_PATTERNS = (
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]+"),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
)
# A key in a URL's query (`?key=AIza…`, `&api_key=…`), as Gemini-style and some self-hosted servers take it.
QUERY_SECRET = re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|secret|password)=)[^&#\s\"']*")
_OUR_HANDLER = "_skillproxy_handler"
_OUR_FILE = "_skillproxy_log_file"


_EMPTY: tuple[object, ...] = (None, "", [], ())
_ATOMS = frozenset({int, float, bool, type(None)})


class SecretRedactor:
    """A structlog processor: secret-looking keys and known secret values become `[redacted]`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def __call__(self, _logger: Any, _name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
        clean = self._clean
        return {key: clean(key, value) for key, value in event_dict.items()}

    def _clean(self, key: Any, value: Any) -> Any:
        if key.__class__ is str and _is_secret_key(key) and value not in _EMPTY:
            return REDACTED
        kind = value.__class__
        if kind is str:
            return self._clean_text(value)
        if kind in _ATOMS:  # the most common values: nothing to look at
            return value
        if isinstance(value, str):
            return self._clean_text(value)
        if isinstance(value, dict):
            return {k: self._clean(k, v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return self._clean_sequence(value)
        return value

    def _clean_sequence(self, items: list[Any] | tuple[Any, ...]) -> list[Any]:
        if len(items) == 2 and isinstance(items[0], (str, bytes)) and SECRET_KEYS.fullmatch(str(items[0])):
            return [items[0], REDACTED]  # a (header name, value) pair
        return [self._clean(None, item) for item in items]

    def _clean_text(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if not _may_hold_a_secret(text):  # most text: a few substring checks, and nothing to replace
            return text
        text = QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, text)
        for pattern in SECRET_PATTERNS:
            text = pattern.sub(lambda m: f"{m.group(1)} {REDACTED}" if m.groups() else REDACTED, text)
        return text


def _may_hold_a_secret(text: str) -> bool:
    """False only when none of the patterns above can match: no `bearer`/`basic`, no `sk-`, no `?x=`/`&x=`."""
    if "sk-" in text or ("=" in text and ("?" in text or "&" in text)):
        return True
    lowered = text.lower()
    return "bearer" in lowered or "basic" in lowered


@functools.lru_cache(maxsize=1024)
def _is_secret_key(key: str) -> bool:
    return SECRET_KEYS.fullmatch(key) is not None


def configure_logging(settings: Settings, stream: IO[str] | None = None) -> None:
    """Route structlog and stdlib logging to `stream` (stdout) and `settings.log_file`.

    structlog's own pipeline renders each event once per sink (no stdlib
    LogRecord on the way): this runs several times per request, so it is kept
    short. Stdlib records (uvicorn's, httpx's warnings) join it through a bridge.
    """
    stream = stream or sys.stdout
    secrets = [*settings.api_keys, settings.upstream_api_key or "", *(u.api_key or "" for u in settings.upstreams),
               *url_secrets(settings.state)]
    structlog.configure(
        processors=[*_shared_processors(SecretRedactor(secrets)), _event_dict],
        logger_factory=sink_logger_factory,
        # The step events are logged at debug: with `log_events` off a debug call does nothing at all.
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if settings.log_events else logging.INFO),
        cache_logger_on_first_use=False,
    )
    sinks = [(_renderer(settings.log_format, stream), stream)]
    if settings.log_file:
        # Open for as long as it is a sink: replacing the sinks closes it (below).
        log_file = open(settings.log_file, "a", encoding="utf-8")  # noqa: SIM115 - outlives this call
        sinks.append((json_line, log_file))
    for unused in SINKS.replace(sinks):
        if getattr(unused, _OUR_FILE, False):
            unused.close()
    for _, sink in sinks[1:]:
        setattr(sink, _OUR_FILE, True)
    _install_bridge()


def _shared_processors(redactor: SecretRedactor) -> list[Any]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        redactor,
    ]


def _event_dict(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """The last processor: the event as keyword arguments for `SinkLogger.msg`, whose sinks render it."""
    return event_dict


def _renderer(log_format: str | None, stream: IO[str]) -> Renderer:
    use_console = log_format == "console" or (log_format is None and _is_tty(stream))
    return console_renderer(colors=_is_tty(stream)) if use_console else json_line


def _install_bridge() -> None:
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _OUR_HANDLER, False)]:
        root.removeHandler(old)
    bridge = StdlibBridge()
    setattr(bridge, _OUR_HANDLER, True)
    root.addHandler(bridge)
    root.setLevel(logging.INFO)
    for noisy in ("httpx", "httpcore", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _is_tty(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
