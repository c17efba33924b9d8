"""A tiny OTLP/HTTP trace receiver: `POST /v1/traces` on 127.0.0.1, each body decoded as a collector would.

It runs `http.server` in a thread, decodes every export with the protobuf
message the OTLP/HTTP exporter sends (`ExportTraceServiceRequest`, from
opentelemetry-proto), and keeps each span as a plain `ReceivedSpan`: hex
ids, its kind's name, its attributes as Python values, and its resource's
and scope's names, so a test asserts on what really went over the wire.
"""

from __future__ import annotations

import gzip
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    kind: str  # SPAN_KIND_SERVER, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    status: str  # STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR
    start_ns: int
    end_ns: int
    service: str
    scope: str


def value_of(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: value_of(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


def decoded(body: bytes) -> list[ReceivedSpan]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {a.key: value_of(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(ReceivedSpan(
                    span.name, Span.SpanKind.Name(span.kind), span.trace_id.hex(), span.span_id.hex(),
                    span.parent_span_id.hex(), {a.key: value_of(a.value) for a in span.attributes},
                    span.status.StatusCode.Name(span.status.code), span.start_time_unix_nano, span.end_time_unix_nano,
                    str(resource.get("service.name")), scope_spans.scope.name))
    return spans


class OtlpReceiver:
    """`with OtlpReceiver() as receiver:` listens on `receiver.url`; `spans` are all it decoded so far."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.exports: list[dict[str, str]] = []  # each export's request headers
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                spans = decoded(body)
                with receiver.lock:
                    receiver.spans.extend(spans)
                    receiver.exports.append({k.lower(): v for k, v in self.headers.items()})
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                """Quiet: the test reads the spans, not an access log."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, name: str, seconds: float = 10.0) -> list[ReceivedSpan]:
        """Every span so far, once one named `name` has come."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                if any(span.name == name for span in self.spans):
                    return list(self.spans)
            time.sleep(0.02)
        raise AssertionError(f"no span {name!r} reached the receiver; got {[s.name for s in self.spans]}")
