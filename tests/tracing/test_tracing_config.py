"""The `tracing:` key: parsed once at start, the environment laid over the file, errors that name the key."""

from __future__ import annotations

import io

import pytest

from proxy.cli.serve_cmd import print_banner
from proxy.settings import Settings, SettingsError, load_settings
from proxy.tracing import request_trace
from proxy.tracing.config import TracingConfig, export_target, otlp_endpoint, parse_tracing
from proxy.tracing.request_trace import NO_TRACE, missing_extra, start_tracing
from proxy.tracing.request_trace import request_trace as trace_of


def test_off_by_default_and_the_shipped_file_says_so():
    assert Settings().tracing == TracingConfig() and not TracingConfig().enabled
    assert load_settings(env={}).tracing == TracingConfig()


@pytest.mark.parametrize("raw", [True, 1, "1", "true", "on", {"enabled": "yes"}])
def test_a_switch_or_a_mapping_turns_it_on(raw):
    assert parse_tracing(raw).enabled


def test_skillproxy_tracing_1_turns_on_what_the_file_configured(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("tracing:\n  service_name: edge-proxy\n  endpoint: http://collector:4318/\n")
    settings = load_settings(config, env={"SKILLPROXY_TRACING": "1"})
    assert settings.tracing == TracingConfig(enabled=True, service_name="edge-proxy",
                                             endpoint="http://collector:4318")
    nested = load_settings(config, env={"SKILLPROXY_TRACING__CAPTURE_CONTENT": "true", "SKILLPROXY_TRACING": "on"})
    assert nested.tracing.enabled and nested.tracing.capture_content and nested.tracing.service_name == "edge-proxy"
    assert not load_settings(config, env={}).tracing.enabled


@pytest.mark.parametrize("content, needle", [
    ("tracing: {sample_rate: 0.5}\n", "'tracing': unknown key 'sample_rate'; tracing takes enabled"),
    ("tracing: {exporter: zipkin}\n", "'tracing': key 'exporter': expected one of otlp, console, none"),
    ("tracing: {endpoint: collector:4318}\n", "'tracing': key 'endpoint': expected the collector's OTLP/HTTP URL"),
    ("tracing: {enabled: maybe}\n", "'tracing': key 'enabled': expected true or false"),
    ("tracing: [on]\n", "'tracing': expected true/false or a mapping"),
    ("tracing: {service_name: ''}\n", "'tracing': key 'service_name': expected non-empty text"),
])
def test_a_bad_tracing_key_names_what_is_wrong(tmp_path, content, needle):
    config = tmp_path / "c.yaml"
    config.write_text(content)
    with pytest.raises(SettingsError, match=needle.replace("(", r"\(").replace("[", r"\[")):
        load_settings(config, env={})


def test_the_otel_endpoint_variables_win_over_the_configured_endpoint():
    config = TracingConfig(enabled=True, endpoint="http://collector:4318")
    assert otlp_endpoint(config, {}) == "http://collector:4318/v1/traces"
    assert otlp_endpoint(TracingConfig(endpoint="http://c:4318/v1/traces"), {}) == "http://c:4318/v1/traces"
    assert otlp_endpoint(config, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"}) is None  # the SDK reads it
    assert export_target(config, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318/"}) == \
        "OTLP/HTTP to http://env:4318/v1/traces"
    assert export_target(config, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:1/x"}) == "OTLP/HTTP to http://t:1/x"
    assert export_target(TracingConfig(), {}) == "OTLP/HTTP to http://localhost:4318/v1/traces"
    assert export_target(TracingConfig(exporter="console"), {}) == "printed to stderr"


def test_off_starts_nothing_and_every_request_has_the_no_op_trace(monkeypatch):
    assert start_tracing(TracingConfig()) is None
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert start_tracing(TracingConfig(enabled=True, exporter="none")) is None
    assert trace_of({}) is NO_TRACE
    call = NO_TRACE.chat_call(None, None, {})
    assert call.upstream_headers == () and call.answered("answer") == "answer"
    runner = object()
    assert NO_TRACE.tool_runner(runner) is runner and NO_TRACE.upstream_headers() == ()


def test_tracing_on_without_the_extra_says_how_to_install_it(monkeypatch):
    real_find_spec = request_trace.importlib.util.find_spec

    def without_sdk(name, *args):
        return None if name.startswith("opentelemetry.sdk") else real_find_spec(name, *args)

    monkeypatch.setattr(request_trace.importlib.util, "find_spec", without_sdk)
    with pytest.raises(SettingsError, match=r"opentelemetry.sdk.trace is not installed; install the extra "
                                            r"\(pip install 'skillproxy\[otel\]'\)"):
        missing_extra(TracingConfig(enabled=True))
    with pytest.raises(SettingsError, match="skillproxy\\[otel\\]"):
        start_tracing(TracingConfig(enabled=True))


def test_the_banner_says_where_spans_go_and_nothing_when_tracing_is_off(monkeypatch):
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)

    def banner(tracing: TracingConfig) -> str:
        out = io.StringIO()
        print_banner(Settings(tracing=tracing), {}, out)
        return out.getvalue()

    on = TracingConfig(enabled=True, endpoint="http://collector:4318", capture_content=True)
    assert "traces:   OTLP/HTTP to http://collector:4318/v1/traces, with prompt and answer text" in banner(on)
    assert "traces:" not in banner(TracingConfig())
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert "traces:" not in banner(on)
