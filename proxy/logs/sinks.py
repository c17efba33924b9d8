"""Where rendered log lines go: the sinks of the structlog pipeline, swapped by `configure_logging`.

What lives here: `LineSinks`, the one process-wide list of (renderer, stream)
pairs; `SinkLogger`, the logger structlog hands every finished event to (each
sink renders it in its own format and writes one line, flushed, under a lock);
`json_line`, the JSON renderer (the app's JSON codec, anything JSON has no
type for written as its `str`); and `StdlibBridge`, the logging.Handler that feeds stdlib records
(uvicorn's, httpx's) into the same pipeline.

Loggers built earlier keep working after a reconfiguration: they hold the one
`SINKS` object, and only its contents change.

What must not: decide what is logged or redact anything (see proxy.logs.setup).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import IO, Any

import structlog

from proxy.core import json_codec

Renderer = Callable[[dict[str, Any]], str]


def json_line(event: dict[str, Any]) -> str:
    return json_codec.dumps(event, default=str).decode("utf-8")


def console_renderer(colors: bool) -> Renderer:
    render = structlog.dev.ConsoleRenderer(colors=colors, exception_formatter=structlog.dev.plain_traceback)
    return lambda event: render(None, "", dict(event))


class LineSinks:
    def __init__(self) -> None:
        self.sinks: tuple[tuple[Renderer, IO[str]], ...] = ()
        self.lock = threading.Lock()

    def replace(self, sinks: list[tuple[Renderer, IO[str]]]) -> list[IO[str]]:
        """Install `sinks`; returns the streams no longer used, for the caller to close if it opened them."""
        with self.lock:
            old, self.sinks = self.sinks, tuple(sinks)
        kept = {id(stream) for _, stream in self.sinks}
        return [stream for _, stream in old if id(stream) not in kept]

    def write(self, event: dict[str, Any]) -> None:
        for render, stream in self.sinks:
            line = render(event)
            with self.lock:
                stream.write(line + "\n")
                stream.flush()


SINKS = LineSinks()


class SinkLogger:
    """The structlog logger: every level writes the processed event to the sinks."""

    def __init__(self, name: str = "") -> None:
        self.name = name

    def msg(self, **event: Any) -> None:
        SINKS.write(event)

    log = debug = info = warn = warning = error = err = critical = exception = fatal = failure = msg


def sink_logger_factory(*args: Any) -> SinkLogger:
    return SinkLogger(str(args[0]) if args else "")


class StdlibBridge(logging.Handler):
    """Sends a stdlib record through structlog, so it is stamped, redacted and rendered like ours."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            logger = structlog.get_logger(record.name)
            fields: dict[str, Any] = {"exc_info": record.exc_info} if record.exc_info else {}
            logger.log(record.levelno, record.getMessage(), **fields)
        except Exception:  # noqa: BLE001 - logging must not raise into the caller
            self.handleError(record)
