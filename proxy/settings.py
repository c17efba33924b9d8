"""Settings: one YAML file, overridden by `SKILLPROXY_*` variables, then by CLI flags.

Precedence, lowest first: built-in defaults, the config file, the environment,
command-line flags. Unknown keys are an error at start, with the key named.
Nested keys in the environment are joined with `__`
(`SKILLPROXY_MODEL_OVERRIDES__GEMMA=gemma-3-270m`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.modes import SkillsIndexMode
from proxy.tracing.config import TracingConfig, merged_tracing, parse_tracing
from proxy.upstream.config import UpstreamConfig, parse_upstreams

ENV_PREFIX = "SKILLPROXY_"
DEFAULT_CONFIG_PATH = Path("config/skillproxy.yaml")
DEFAULT_ROOTS = (
    "skills",
    "~/.lmstudio/skills",
    "~/.claude/skills",
    "~/.codex/skills",
    "~/.agents/skills",
)
TOOL_MODES = tuple(ToolMode)
SKILLS_INDEX_MODES = tuple(SkillsIndexMode)
LOG_FORMATS = ("json", "console")
MAX_INSPECT_HISTORY = 10_000  # each kept request may hold up to 2 x 64,000 characters of message text


class SettingsError(ValueError):
    """A configuration problem a person can fix; the message names the key."""


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8787
    upstream: str = "http://127.0.0.1:1234/v1"
    upstream_api_key: str | None = field(default=None, repr=False)
    # The server's own root for a native API (Ollama's /api/...); None: `upstream` without its /v1.
    upstream_native_url: str | None = None
    # When set, these replace `upstream`; parsed here once (see proxy.upstream.config).
    upstreams: tuple[UpstreamConfig, ...] = ()
    roots: tuple[str, ...] = DEFAULT_ROOTS
    enabled_skills: tuple[str, ...] | None = None
    disabled_skills: tuple[str, ...] = ()
    scan_timeout: float = 3.0
    max_routed_skills: int = 3
    refresh_interval: float = 1800.0
    state: str = field(default="memory", repr=False)  # a redis:// URL may hold a password
    state_max_entries: int = 10_000
    state_ttl: float = 86_400.0
    tool_mode: str = ToolMode.SERVER
    max_tool_rounds: int = 6
    slash_activation: bool = True
    skills_index: str = SkillsIndexMode.OFF
    skills_index_max_chars: int = 2600
    fork_keep_system: bool = False
    compaction_reinject_chars: int = 8000
    model_overrides: Mapping[str, Any] = field(default_factory=dict)
    api_keys: tuple[str, ...] = field(default=(), repr=False)
    max_body_bytes: int = 32 * 1024 * 1024
    max_messages: int = 10_000
    max_skill_file_bytes: int = 100 * 1024
    connect_timeout: float = 5.0
    read_timeout: float = 600.0
    log_format: str | None = None
    log_file: str | None = None
    log_events: bool = False  # the step events (prompt_route, upstream_request, ...) besides the request line
    inspect_history: int = 200
    # OpenTelemetry traces (proxy/tracing): off unless enabled; parsed here once (see proxy.tracing.config).
    tracing: TracingConfig = field(default_factory=TracingConfig)

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in fields(Settings)}
_DEFAULTS = Settings()


def load_settings(
    config_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build Settings from defaults, the config file, the environment and overrides.

    `config_path` None means `SKILLPROXY_CONFIG`, else `config/skillproxy.yaml`
    when it exists, else the built-in defaults. A path given explicitly must exist.
    """
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    values.update(_read_config_file(_config_path(config_path, env)))
    from_env = _read_env(env)
    if "tracing" in from_env:  # SKILLPROXY_TRACING=1 turns on the tracing the file configured
        from_env["tracing"] = merged_tracing(values.get("tracing"), from_env["tracing"])
    values.update(from_env)
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return _build(values, env)


def _config_path(config_path: str | Path | None, env: Mapping[str, str]) -> Path | None:
    if config_path is not None:
        return Path(config_path)
    if env.get(f"{ENV_PREFIX}CONFIG"):
        return Path(env[f"{ENV_PREFIX}CONFIG"])
    return DEFAULT_CONFIG_PATH if DEFAULT_CONFIG_PATH.is_file() else None


def _read_config_file(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise SettingsError(f"config file not found: {path}") from None
    except (OSError, yaml.YAMLError) as exc:
        raise SettingsError(f"cannot read config file {path}: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"config file {path} must hold a mapping of keys, not {type(data).__name__}")
    for key in data:
        _check_key(str(key), f"in {path}")
    return {str(k): v for k, v in data.items()}


def _read_env(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, raw in sorted(env.items()):
        if not name.startswith(ENV_PREFIX) or name == f"{ENV_PREFIX}CONFIG":
            continue
        key, _, sub = name[len(ENV_PREFIX):].lower().partition("__")
        _check_key(key, f"(environment variable {name})")
        value = _parse_env_value(key, raw)
        if sub and key == "tracing":  # SKILLPROXY_TRACING=1 beside SKILLPROXY_TRACING__ENDPOINT=...
            value = merged_tracing(values.get(key), {sub: value})
        elif sub:
            nested = dict(values.get(key) or {})
            nested[sub] = value
            value = nested
        values[key] = value
    return values


def _parse_env_value(key: str, raw: str) -> Any:
    kind = _kind(key)
    if kind in ("str", "optional_str"):
        return raw
    if kind == "tuple" and not raw.lstrip().startswith("["):
        return [part.strip() for part in raw.split(",") if part.strip()]
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw


def _check_key(key: str, where: str) -> None:
    if key not in _FIELDS:
        known = ", ".join(sorted(_FIELDS))
        raise SettingsError(f"unknown configuration key {key!r} {where}; known keys: {known}")


def _kind(key: str) -> str:
    default = getattr(_DEFAULTS, key)
    annotation = str(_FIELDS[key].type)
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        return type(default).__name__
    if annotation.startswith("tuple") or isinstance(default, tuple):
        return "tuple"
    if annotation.startswith("Mapping"):
        return "mapping"
    return "optional_str" if "None" in annotation else "str"


def _build(values: Mapping[str, Any], env: Mapping[str, str]) -> Settings:
    coerced = {key: _coerce(key, value) for key, value in values.items() if key != "tracing"}
    if "tracing" in values:
        try:
            coerced["tracing"] = parse_tracing(values["tracing"])
        except ValueError as exc:
            raise SettingsError(f"configuration key 'tracing': {exc}") from None
    if "upstreams" in coerced:
        try:
            coerced["upstreams"] = parse_upstreams(coerced["upstreams"], env)
        except ValueError as exc:
            raise SettingsError(f"configuration key 'upstreams': {exc}") from None
    settings = Settings(**coerced)
    _validate(settings)
    return settings


def _coerce(key: str, value: Any) -> Any:
    kind = _kind(key)
    if value is None:
        if kind in ("optional_str",) or key == "enabled_skills":
            return None
        raise SettingsError(f"configuration key {key!r} needs a value")
    converters = {
        "bool": _to_bool,
        "int": _to_int,
        "float": _to_float,
        "tuple": _to_tuple,
        "mapping": names_as_map,
        "str": _to_str,
        "optional_str": _to_str,
    }
    try:
        return converters[kind](value)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"configuration key {key!r}: {exc}") from None


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got {value!r}")


def _to_int(value: Any) -> int:
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(f"expected a whole number, got {value!r}")
    return int(value)


def _to_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


def _to_tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return tuple(value)


def names_as_map(value: Any) -> Mapping[str, Any]:
    """A mapping setting as given; a list maps each name to itself (`model_overrides: [a, b]` allows a and b)."""
    if isinstance(value, (list, tuple)):
        return {str(item): str(item) for item in value}
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a mapping or a list, got {type(value).__name__}")
    return dict(value)


def _to_str(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise ValueError(f"expected text, got {type(value).__name__}")
    return str(value)


def _validate(s: Settings) -> None:
    _one_of("tool_mode", s.tool_mode, TOOL_MODES)
    _one_of("skills_index", s.skills_index, SKILLS_INDEX_MODES)
    if s.log_format is not None:
        _one_of("log_format", s.log_format, LOG_FORMATS)
    if s.state != "memory" and not s.state.startswith(("redis://", "rediss://")):
        raise SettingsError(f"configuration key 'state': expected 'memory' or a redis:// URL, got {s.state!r}")
    if not s.upstream.startswith(("http://", "https://")):
        raise SettingsError(f"configuration key 'upstream': expected an http(s) URL, got {s.upstream!r}")
    if s.upstream_native_url is not None and not s.upstream_native_url.startswith(("http://", "https://")):
        raise SettingsError("configuration key 'upstream_native_url': expected an http(s) URL (the server's root, "
                            f"such as http://127.0.0.1:11434), got {s.upstream_native_url!r}")
    _check_api_keys(s.api_keys)
    if s.upstreams and s.upstream_api_key:
        raise SettingsError("configuration key 'upstream_api_key' is not used when 'upstreams' is set; "
                            "give each upstream its own api_key (or api_key_env) instead")
    if not 0 <= s.inspect_history <= MAX_INSPECT_HISTORY:
        raise SettingsError(f"configuration key 'inspect_history': {s.inspect_history} is not between 0 (off) "
                            f"and {MAX_INSPECT_HISTORY} requests")
    if s.compaction_reinject_chars < 0:
        raise SettingsError("configuration key 'compaction_reinject_chars': must be 0 (no re-injection) or more")
    if not 1 <= s.max_routed_skills <= 3:
        raise SettingsError("configuration key 'max_routed_skills': must be 1, 2 or 3")
    if not 0 <= s.port < 65536:
        raise SettingsError(f"configuration key 'port': {s.port} is not a TCP port")
    for key in ("scan_timeout", "connect_timeout", "read_timeout", "max_body_bytes", "max_messages",
                "max_skill_file_bytes", "state_max_entries", "state_ttl", "max_tool_rounds",
                "skills_index_max_chars"):
        if getattr(s, key) <= 0:
            raise SettingsError(f"configuration key {key!r}: must be greater than 0")


def _check_api_keys(keys: tuple[Any, ...]) -> None:
    """Every key is text with something in it: a blank one would read as "no auth" to a person."""
    for index, key in enumerate(keys):
        if not isinstance(key, str) or not key.strip():
            shown = "blank" if isinstance(key, str) else f"not text but {type(key).__name__} (quote it)"
            raise SettingsError(f"configuration key 'api_keys': entry {index + 1} is {shown}; "
                                "give every key a value or remove the entry")


def _one_of(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise SettingsError(f"configuration key {key!r}: expected one of {', '.join(allowed)}, got {value!r}")
