"""The `upstreams:` config key: several model servers, each serving some models.

What lives here: `UpstreamConfig` (one entry: `name`, `base_url`, `api_key`,
`models` glob patterns, and `native_url`, the server's own root for a native
API such as Ollama's `/api/...` when it is not `base_url` without its `/v1`)
and `parse_upstreams`, which checks every entry once at start and reads
`api_key_env` from the environment, so keys need not live in the file. A
problem is a ValueError naming the entry and its key; `settings` turns it
into a SettingsError.

What must not: open connections or choose upstreams per request (see
`proxy.upstream.upstreams` and `proxy.core.upstream_choice`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ENTRY_KEYS = ("name", "base_url", "api_key", "api_key_env", "models", "native_url")


@dataclass(frozen=True)
class UpstreamConfig:
    name: str
    base_url: str
    models: tuple[str, ...]
    api_key: str | None = field(default=None, repr=False)
    native_url: str | None = None


def parse_upstreams(raw: Any, env: Mapping[str, str]) -> tuple[UpstreamConfig, ...]:
    """Every entry checked; names unique. Entries already parsed pass as they are."""
    if not isinstance(raw, (list, tuple)):
        raise ValueError(f"expected a list of upstreams, got {type(raw).__name__}")
    parsed = tuple(item if isinstance(item, UpstreamConfig) else _entry(number, item, env)
                   for number, item in enumerate(raw, start=1))
    seen: set[str] = set()
    for entry in parsed:
        if entry.name in seen:
            raise ValueError(f"two upstreams are named {entry.name!r}; give each a different `name`")
        seen.add(entry.name)
    return parsed


def _entry(number: int, item: Any, env: Mapping[str, str]) -> UpstreamConfig:
    where = f"entry {number}"
    if not isinstance(item, Mapping):
        raise ValueError(f"{where} must be a mapping with name, base_url and models, "
                         f"not {type(item).__name__}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}: key 'name' must be non-empty text (it names the upstream in logs)")
    where = f"entry {number} ({name!r})"
    unknown = sorted(str(key) for key in item if key not in ENTRY_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; an upstream takes {', '.join(ENTRY_KEYS)}")
    return UpstreamConfig(name=name.strip(), base_url=_base_url(where, item.get("base_url")),
                          models=_models(where, item.get("models")), api_key=_api_key(where, item, env),
                          native_url=_native_url(where, item.get("native_url")))


def _base_url(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ValueError(f"{where}: key 'base_url': expected an http(s) URL with its /v1, got {value!r}")
    return value.rstrip("/")


def _native_url(where: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ValueError(f"{where}: key 'native_url': expected an http(s) URL of the server's root (where "
                         f"Ollama's /api lives, such as http://127.0.0.1:11434), got {value!r}")
    return value.rstrip("/")


def _models(where: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f"{where}: key 'models': expected a list of model name patterns such as "
                         f"['qwen*'] (or ['*'] for every model), got {value!r}")
    for pattern in value:
        if not isinstance(pattern, str) or not pattern.strip():
            raise ValueError(f"{where}: key 'models': every pattern must be non-empty text, got {pattern!r}")
    return tuple(pattern.strip() for pattern in value)


def _api_key(where: str, item: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    key, variable = item.get("api_key"), item.get("api_key_env")
    if key is not None and variable is not None:
        raise ValueError(f"{where}: give 'api_key' or 'api_key_env', not both")
    if variable is not None:
        if not isinstance(variable, str) or not variable.strip():
            raise ValueError(f"{where}: key 'api_key_env' must name an environment variable")
        key = env.get(variable.strip())
        if not key or not key.strip():
            raise ValueError(f"{where}: key 'api_key_env': environment variable {variable.strip()} is not set "
                             "or is empty")
        return key.strip()
    if key is None:
        return None
    if not isinstance(key, str) or not key.strip():
        shown = "blank" if isinstance(key, str) else f"not text but {type(key).__name__} (quote it)"
        raise ValueError(f"{where}: key 'api_key' is {shown}; give it a value or remove it")
    return key.strip()
