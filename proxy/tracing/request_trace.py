"""What the shell calls on a request's trace, and the trace every request has while tracing is off.

What lives here: `RequestTrace`, the calls the request's steps make (the
preprocessing step, each upstream chat call, the skill tools the proxy
runs, the context a forwarded request carries upstream), as a no-op:
`NO_TRACE`, which `request_trace(scope)` returns unless the tracing
middleware put a live one in the ASGI scope. Each call returns a shared
object or its argument, so a request pays a few plain calls and nothing
else while tracing is off. `start_tracing` is where tracing starts: it
imports `proxy.tracing.otel` (and with it OpenTelemetry's SDK) only when
the `tracing:` key turns it on, and says how to install the extra when it
is missing.

What must not: import OpenTelemetry at module level.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

from proxy.tracing.config import TracingConfig, tracing_on

if TYPE_CHECKING:
    from proxy.core.tools.rounds import ToolRunner
    from proxy.request_record import RequestRecord
    from proxy.surfaces.surface import Surface
    from proxy.upstream.client import Upstream, UpstreamResponse

TRACE_KEY = "skillproxy.trace"  # where a live trace sits in the ASGI scope
TraceHeaders = tuple[tuple[str, str], ...]
INSTALL_HINT = "pip install 'skillproxy[otel]'"
NEEDED_MODULES = {"sdk": "opentelemetry.sdk.trace", "otlp": "opentelemetry.exporter.otlp.proto.http.trace_exporter"}


class PreprocessStep:
    """The preprocessing of one request, as a context manager; `decided` notes what it decided."""

    def __enter__(self) -> PreprocessStep:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def decided(self, record: RequestRecord) -> None:
        """What the request's record says preprocessing decided (mode, skills, scores, injection)."""


class ChatCall:
    """One request to the upstream's chat endpoint: the headers it carries, and its answer as it is read."""

    upstream_headers: TraceHeaders = ()

    def answered(self, answer: UpstreamResponse) -> UpstreamResponse:
        """The answer to hand on (a live call watches it until it is closed)."""
        return answer

    def failed(self, error: BaseException) -> None:
        """The request failed before an answer came."""


class RequestTrace:
    """A request's trace; this one, `NO_TRACE`, records nothing."""

    def upstream_headers(self) -> TraceHeaders:
        """`traceparent` (and `tracestate`) for a request the proxy forwards as it is."""
        return ()

    def preprocessing(self) -> PreprocessStep:
        return NO_STEP

    def chat_call(self, surface: Surface, upstream: Upstream, body: dict[str, Any]) -> ChatCall:
        """A chat request about to go upstream on `surface` (which reads the body again only to capture it)."""
        return NO_CALL

    def tool_runner(self, runner: ToolRunner) -> ToolRunner:
        """`runner` as the tool loop should call it (a live trace gives each call a span)."""
        return runner


NO_STEP = PreprocessStep()
NO_CALL = ChatCall()
NO_TRACE = RequestTrace()


def request_trace(scope: MutableMapping[str, Any]) -> RequestTrace:
    trace: RequestTrace = scope.get(TRACE_KEY, NO_TRACE)
    return trace


class Tracing(Protocol):
    """Tracing that is on: the middleware that gives each request its trace, and the flush at shutdown."""

    def middleware(self, app: Any, routes: Mapping[str, Any]) -> Any:
        """The ASGI app `app` with a server span around each request; `routes` the chat paths (span names)."""
        ...

    def shutdown(self) -> None:
        """Send what is still queued, and stop."""
        ...


def start_tracing(config: TracingConfig, exporter: Any = None) -> Tracing | None:
    """The app's tracing, or None when it is off (`enabled: false`, or `OTEL_SDK_DISABLED=true`).

    `exporter` (an SDK SpanExporter) replaces the configured one and gets each span as it ends (tests)."""
    if not tracing_on(config, os.environ):
        return None
    missing_extra(config)
    from proxy.tracing.otel import OtelTracing  # the only import of OpenTelemetry's SDK, and only here

    return OtelTracing(config, exporter)


def missing_extra(config: TracingConfig) -> None:
    """Raises SettingsError when tracing is on and the packages it needs are not installed."""
    from proxy.settings import SettingsError

    needed = [NEEDED_MODULES["sdk"]] + ([NEEDED_MODULES["otlp"]] if config.exporter == "otlp" else [])
    for module in needed:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise SettingsError(f"configuration key 'tracing': tracing is on, but {module} is not installed; "
                                f"install the extra ({INSTALL_HINT}) or turn tracing off")
