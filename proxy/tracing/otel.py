"""The proxy's spans, made with OpenTelemetry's SDK: the one module that imports it.

What lives here: `OtelTracing`, the app's tracer provider (its own, never the
process-wide global, so FastAPI's built-in telemetry stays off and two apps
in one process do not share spans) with the configured exporter, its
middleware, and each request's `LiveTrace`:
- a SERVER span per HTTP request (`POST /v1/chat/completions`), continuing
  the client's `traceparent` (W3C trace context), with the status and the
  request id at its end;
- an INTERNAL `preprocess` span, with what the request's record says was
  decided: mode, selected skills, scores, the best rejected candidate,
  route, injection size and hash (the `request` log line's fields);
- a CLIENT `chat {model}` span per upstream call, in the GenAI semantic
  conventions (`gen_ai.operation.name`, `gen_ai.provider.name`,
  `gen_ai.request.model`, `gen_ai.response.id`,
  `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`,
  `gen_ai.usage.output_tokens`), its context sent upstream as
  `traceparent`, ended when its answer is closed (a stream at its end);
- an INTERNAL `execute_tool {name}` span per skill tool call the proxy runs.
Prompt, answer and tool text go into spans only with `capture_content: true`.

What must not: be imported unless tracing is on (see `proxy.tracing.request_trace`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from opentelemetry.context import Context
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, SpanExporter
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, set_span_in_context
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from proxy import __version__
from proxy.errors import ProxyError
from proxy.middleware import ASGIApp, Receive, Scope, Send
from proxy.request_record import RequestRecord, request_record
from proxy.surfaces.answer_facts import CHAT_FACTS, FACT_READERS, AnswerFacts
from proxy.tracing import genai
from proxy.tracing.config import TracingConfig, otlp_endpoint
from proxy.tracing.request_trace import TRACE_KEY, ChatCall, PreprocessStep, RequestTrace, TraceHeaders
from proxy.tracing.traced_answer import AnswerTap, TracedAnswer

if TYPE_CHECKING:
    from proxy.core.tools.rounds import ToolOutcome, ToolRunner
    from proxy.surfaces.surface import Surface
    from proxy.upstream.client import Upstream, UpstreamResponse

SCOPE = "skillproxy"
FIXED_ROUTES = frozenset({"/healthz", "/readyz", "/metrics", "/v1/models"})
ROUTE_PREFIXES = ("/v1/", "/api/", "/_skillproxy/")  # a path under one: named by the prefix (bounded names)
TRACE_HEADERS = (b"traceparent", b"tracestate")
# The request record's fields the preprocess span carries, under `skillproxy.`: the `request` log line's names.
DECISION_FIELDS = ("mode", "selected", "scores", "rejected_best", "route", "injection_chars", "injection_sha256",
                   "fallback", "preprocess_ms")
SUMMARY_FIELDS = ("surface", "model", "stream", "upstream", "upstream_model", "tool_mode", "tool_rounds", "tool_calls")


class OtelTracing:
    """The app's tracer provider and exporter; `middleware` gives each request its trace."""

    def __init__(self, config: TracingConfig, exporter: SpanExporter | None = None) -> None:
        self.config = config
        self.provider = TracerProvider(resource=_resource(config))
        processor = SimpleSpanProcessor(exporter) if exporter is not None else _processor(config)
        if processor is not None:
            self.provider.add_span_processor(processor)
        self.tracer: Tracer = self.provider.get_tracer(SCOPE, __version__)
        self.propagator = TraceContextTextMapPropagator()
        self._providers: dict[tuple[str, str], str] = {}  # (upstream, surface): gen_ai.provider.name

    def middleware(self, app: ASGIApp, routes: Mapping[str, Any]) -> ASGIApp:
        return ServerSpans(app, self, routes)

    def shutdown(self) -> None:
        self.provider.shutdown()

    def headers_for(self, context: Context) -> TraceHeaders:
        carrier: dict[str, str] = {}
        self.propagator.inject(carrier, context=context)
        return tuple(carrier.items())

    def provider_name(self, upstream: Upstream, surface: str) -> str:
        key = (upstream.name, surface)
        name = self._providers.get(key)
        if name is None:
            name = self._providers[key] = genai.provider_name(self.config.provider_name, upstream.name,
                                                              upstream.base_url, surface)
        return name


class ServerSpans:
    """Pure ASGI middleware, outermost: a SERVER span around each HTTP request, and its trace in the scope."""

    def __init__(self, app: ASGIApp, tracing: OtelTracing, routes: Mapping[str, Any]) -> None:
        self.app = app
        self._tracing = tracing
        self._routes = routes  # the chat paths (read per request: filled once the routes are made)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        carrier = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope.get("headers", ())
                   if name in TRACE_HEADERS}
        parent = self._tracing.propagator.extract(carrier)
        method, path = scope["method"], scope["path"]
        route = path if path in self._routes or path in FIXED_ROUTES else None
        attributes = {"http.request.method": method, "url.path": path, "url.scheme": scope.get("scheme", "http")}
        if route is not None:
            attributes["http.route"] = route
        span = self._tracing.tracer.start_span(_server_span_name(method, path, route), context=parent,
                                               kind=SpanKind.SERVER, attributes=attributes)
        scope[TRACE_KEY] = LiveTrace(self._tracing, set_span_in_context(span, parent))
        try:
            await self.app(scope, receive, send)
        except BaseException as exc:
            _failed(span, exc)
            raise
        finally:
            _end_server_span(span, request_record(scope))


def _server_span_name(method: str, path: str, route: str | None) -> str:
    if route is not None:
        return f"{method} {route}"
    prefix = next((p for p in ROUTE_PREFIXES if path.startswith(p)), None)
    return f"{method} {prefix}{{path}}" if prefix else method


def _end_server_span(span: Span, record: RequestRecord) -> None:
    status = record.status
    attributes: dict[str, Any] = {"skillproxy.request_id": record.request_id}
    if status is not None:
        attributes["http.response.status_code"] = status
    attributes.update(_prefixed(record, SUMMARY_FIELDS))
    if record.client_disconnected:
        attributes["skillproxy.client_disconnected"] = True
    if record.error is not None:
        attributes["skillproxy.error"] = record.error
    if status is not None and status >= 500:
        attributes["error.type"] = record.error or str(status)
        span.set_status(Status(StatusCode.ERROR))
    span.set_attributes(attributes)
    span.end()


class LiveTrace(RequestTrace):
    """One request's trace: its spans are children of the request's SERVER span (`context`)."""

    def __init__(self, tracing: OtelTracing, context: Context) -> None:
        self._tracing = tracing
        self._context = context

    def upstream_headers(self) -> TraceHeaders:
        return self._tracing.headers_for(self._context)

    def preprocessing(self) -> PreprocessStep:
        return PreprocessSpan(self._tracing.tracer, self._context)

    def chat_call(self, surface: Surface, upstream: Upstream, body: dict[str, Any]) -> ChatCall:
        tracing = self._tracing
        attributes = genai.request_attributes(body)
        attributes[genai.PROVIDER] = tracing.provider_name(upstream, surface.name)
        attributes.update(_server_address(upstream.base_url))
        attributes["skillproxy.upstream"] = upstream.name
        if tracing.config.capture_content:
            attributes.update(_captured_input(surface, body))
        model = attributes.get(genai.REQUEST_MODEL)
        span = tracing.tracer.start_span(f"chat {model}" if model else "chat", context=self._context,
                                         kind=SpanKind.CLIENT, attributes=attributes)
        headers = tracing.headers_for(set_span_in_context(span, self._context))
        return ChatSpan(span, headers, surface.name, tracing.config.capture_content)

    def tool_runner(self, runner: ToolRunner) -> ToolRunner:
        return TracedTools(runner, self._tracing.tracer, self._context, self._tracing.config.capture_content)


class PreprocessSpan(PreprocessStep):
    def __init__(self, tracer: Tracer, context: Context) -> None:
        self._span = tracer.start_span("preprocess", context=context, kind=SpanKind.INTERNAL)

    def __exit__(self, *exc_info: object) -> None:
        error = exc_info[1] if len(exc_info) > 1 else None
        if isinstance(error, BaseException):
            _failed(self._span, error)
        self._span.end()

    def decided(self, record: RequestRecord) -> None:
        self._span.set_attributes(_prefixed(record, DECISION_FIELDS))


class ChatSpan(ChatCall):
    def __init__(self, span: Span, headers: TraceHeaders, surface: str, capture: bool) -> None:
        self.upstream_headers = headers
        self._span = span
        self._surface = surface
        self._capture = capture

    def answered(self, answer: UpstreamResponse) -> UpstreamResponse:
        self._span.set_attribute("http.response.status_code", answer.status)
        reader = FACT_READERS.get(self._surface, CHAT_FACTS)
        tap = AnswerTap(reader, answer, self._capture, lambda facts, error: self._end(answer.status, facts, error))
        return TracedAnswer.of(answer, tap)

    def failed(self, error: BaseException) -> None:
        _failed(self._span, error)
        self._span.end()

    def _end(self, status: int, facts: AnswerFacts, error: ProxyError | None) -> None:
        span = self._span
        span.set_attributes(genai.answer_attributes(facts, self._capture))
        failure = error.code if error is not None else facts.error or (str(status) if status >= 400 else None)
        if failure is not None:
            span.set_attribute("error.type", failure)
            span.set_status(Status(StatusCode.ERROR, error.message if error is not None else None))
        span.end()


class TracedTools:
    """The skill tools, each call under an `execute_tool {name}` span."""

    def __init__(self, runner: ToolRunner, tracer: Tracer, context: Context, capture: bool) -> None:
        self._runner = runner
        self._tracer = tracer
        self._context = context
        self._capture = capture

    def call(self, name: str, arguments: str) -> ToolOutcome:
        attributes: dict[str, Any] = {genai.OPERATION: "execute_tool", genai.TOOL_NAME: name,
                                      genai.TOOL_TYPE: "function"}
        if self._capture:
            attributes[genai.TOOL_ARGUMENTS] = arguments if isinstance(arguments, str) else json.dumps(arguments)
        span = self._tracer.start_span(f"execute_tool {name}", context=self._context, kind=SpanKind.INTERNAL,
                                       attributes=attributes)
        try:
            outcome = self._runner.call(name, arguments)
        except BaseException as exc:
            _failed(span, exc)
            span.end()
            raise
        event = outcome.event
        span.set_attributes({f"skillproxy.{key}": value for key in ("skill", "path", "result_chars", "truncated")
                             if _attribute_value(value := event.get(key))})
        if event.get("ok") is False:
            span.set_attribute("error.type", str(event.get("error") or "tool_error"))
            span.set_status(Status(StatusCode.ERROR))
        if self._capture:
            span.set_attribute(genai.TOOL_RESULT, outcome.content)
        span.end()
        return outcome


def _captured_input(surface: Surface, body: dict[str, Any]) -> dict[str, str]:
    """The conversation as the upstream gets it (tool rounds included), read from the body sent."""
    try:
        return genai.input_attributes(surface.conversation(body))
    except Exception:  # noqa: BLE001 - a body the surface cannot read again goes without its text in the span
        return {}


def _prefixed(record: RequestRecord, names: tuple[str, ...]) -> dict[str, Any]:
    values = ((name, getattr(record, name)) for name in names)
    return {f"skillproxy.{name}": str(value) if isinstance(value, str) else value  # a StrEnum as its text
            for name, value in values if _attribute_value(value)}


def _attribute_value(value: Any) -> bool:
    """Whether `value` can be a span attribute: text, a number, a flag, or a list of texts."""
    if isinstance(value, (str, bool, int, float)):
        return True
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _server_address(base_url: str) -> dict[str, Any]:
    parts = urlsplit(base_url)
    attributes: dict[str, Any] = {}
    if parts.hostname:
        attributes["server.address"] = parts.hostname
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return attributes
    attributes["server.port"] = port
    return attributes


def _failed(span: Span, error: BaseException) -> None:
    code = error.code if isinstance(error, ProxyError) else type(error).__name__
    span.set_attribute("error.type", code)
    span.set_status(Status(StatusCode.ERROR, str(error) or None))
    if isinstance(error, Exception):
        span.record_exception(error)


def _resource(config: TracingConfig) -> Resource:
    """service.name from the config, unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names it: the SDK
    reads those, and the environment wins over the file."""
    attributes: dict[str, str] = {SERVICE_VERSION: __version__}
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not named:
        attributes[SERVICE_NAME] = config.service_name
    return Resource.create(attributes)


def _processor(config: TracingConfig) -> SpanProcessor | None:
    if config.exporter == "console":  # stderr: stdout carries the log lines
        return SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr))
    if config.exporter == "none":
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return BatchSpanProcessor(OTLPSpanExporter(endpoint=otlp_endpoint(config, os.environ)))
