"""The `tracing:` config key: whether the proxy sends OpenTelemetry traces, and where.

What lives here: `TracingConfig` (on or off, the service name, whether prompt
and answer text go into spans, the exporter and its endpoint, the GenAI
provider name when the upstream's address does not tell it), `parse_tracing`,
which checks the key once at start (a mapping of those keys, or just `true` /
`1`, as `SKILLPROXY_TRACING=1` gives it), and `merged_tracing`, which lays
the environment's part of the key over the file's, so `SKILLPROXY_TRACING=1`
turns on the tracing a file configured. A problem is a ValueError naming the
key; `settings` turns it into a SettingsError. And where the OTLP exporter
sends (`otlp_endpoint`, `export_target`): OpenTelemetry's own
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` when
set (the environment wins over the file, as `SKILLPROXY_*` does), else the
configured `endpoint` with `/v1/traces`, else the SDK's default.

What must not: import OpenTelemetry (`proxy.tracing.otel` does, and only when tracing is on).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

EXPORTERS = ("otlp", "console", "none")
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
TRACES_PATH = "/v1/traces"
SDK_DEFAULT_ENDPOINT = "http://localhost:4318" + TRACES_PATH
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


@dataclass(frozen=True)
class TracingConfig:
    enabled: bool = False
    service_name: str = "skillproxy"
    capture_content: bool = False  # prompt, answer and tool text in span attributes
    exporter: str = "otlp"  # otlp (OTLP over HTTP), console (stdout), none (context propagated, nothing sent)
    endpoint: str | None = None  # the collector's OTLP/HTTP base URL; OTEL_EXPORTER_OTLP_* win over it
    provider_name: str | None = None  # gen_ai.provider.name; None: told by the upstream's address


KEYS = tuple(f.name for f in fields(TracingConfig))


def parse_tracing(raw: Any) -> TracingConfig:
    """The key checked: a TracingConfig, a mapping of its keys, a switch (true, 1, "on"), or null (off)."""
    if isinstance(raw, TracingConfig):
        return raw
    values = _as_mapping(raw)
    unknown = sorted(str(key) for key in values if key not in KEYS)
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r}; tracing takes {', '.join(KEYS)}")
    config = TracingConfig(
        enabled=_switch("enabled", values.get("enabled", False)),
        service_name=_text("service_name", values.get("service_name", "skillproxy")),
        capture_content=_switch("capture_content", values.get("capture_content", False)),
        exporter=_text("exporter", values.get("exporter", "otlp")).lower(),
        endpoint=_endpoint(values.get("endpoint")),
        provider_name=_optional_text("provider_name", values.get("provider_name")),
    )
    if config.exporter not in EXPORTERS:
        raise ValueError(f"key 'exporter': expected one of {', '.join(EXPORTERS)}, got {config.exporter!r}")
    return config


def merged_tracing(earlier: Any, later: Any) -> Any:
    """The key from a later source (the environment) laid over an earlier one's (the file), key by key."""
    if earlier is None or later is None:
        return later if earlier is None else earlier
    if isinstance(earlier, TracingConfig):
        earlier = {f: getattr(earlier, f) for f in KEYS}
    return {**_as_mapping(earlier), **_as_mapping(later)}


def tracing_on(config: TracingConfig, env: Mapping[str, str]) -> bool:
    """`enabled`, unless OpenTelemetry's own `OTEL_SDK_DISABLED=true` says no."""
    return config.enabled and env.get("OTEL_SDK_DISABLED", "").strip().lower() != "true"


def otlp_endpoint(config: TracingConfig, env: Mapping[str, str]) -> str | None:
    """The URL to give the OTLP exporter; None when the SDK should find it (in the environment, or its default)."""
    if config.endpoint is None or any(env.get(name) for name in ENDPOINT_VARIABLES):
        return None
    return config.endpoint if config.endpoint.endswith(TRACES_PATH) else config.endpoint + TRACES_PATH


def export_target(config: TracingConfig, env: Mapping[str, str]) -> str:
    """Where spans go, for the start banner."""
    if config.exporter != "otlp":
        return {"console": "printed to stderr", "none": "not sent (context propagated only)"}[config.exporter]
    endpoint = env.get(ENDPOINT_VARIABLES[0]) or otlp_endpoint(config, env)
    if endpoint is None:
        base = env.get(ENDPOINT_VARIABLES[1])
        endpoint = base.rstrip("/") + TRACES_PATH if base else SDK_DEFAULT_ENDPOINT
    return f"OTLP/HTTP to {endpoint}"


def _as_mapping(raw: Any) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return {str(key): value for key, value in raw.items()}
    if isinstance(raw, (bool, int, str)):
        return {"enabled": _switch("enabled", raw)}
    raise ValueError(f"expected true/false or a mapping of {', '.join(KEYS)}, got {type(raw).__name__}")


def _switch(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise ValueError(f"key {key!r}: expected true or false, got {value!r}")


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"key {key!r}: expected non-empty text, got {value!r}")
    return value.strip()


def _optional_text(key: str, value: Any) -> str | None:
    return None if value is None else _text(key, value)


def _endpoint(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ValueError("key 'endpoint': expected the collector's OTLP/HTTP URL (such as http://127.0.0.1:4318), "
                         f"got {value!r}")
    return value.rstrip("/")
