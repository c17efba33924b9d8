"""OpenTelemetry traces of the proxy's requests, in the GenAI semantic conventions; off by default.

`config` is the `tracing:` key; `request_trace` what the shell calls on each
request's trace (a no-op while tracing is off) and `start_tracing`, which
turns it on; `otel` the spans themselves, the only module that imports
OpenTelemetry's SDK (with the `skillproxy[otel]` extra, and only once
tracing is on); `genai` the conventions' attributes; `traced_answer` the
upstream answer whose reading ends its chat span.

This package's `__init__` imports nothing: `proxy.settings` reads `config`.
"""
