"""The upstream servers: one `Upstream` per configured server, chosen by the request's model.

What lives here: `Upstreams`, built once at start. Without `upstreams:` in the
config it holds the single `upstream` and every request goes there, as before.
With it, each entry gets its own `Upstream` (its own connection pool and key)
and `for_model` picks one per request (`proxy.core.upstream_choice`: first
matching pattern in config order; no model means the first upstream; a model
nothing matches is a 404 `model_not_found` listing the patterns). Also the
merged `GET /v1/models` (every upstream asked at once; one that is down or
answers badly is left out with an `upstream_models_failed` warning) and the
readiness of each upstream.

What must not: talk httpx (see `proxy.upstream.client`) or know about chat and skills.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import structlog

from proxy.core import json_codec
from proxy.core.upstream_choice import ModelRoute, choose_upstream, describe_routes, merge_model_lists
from proxy.errors import ErrorCode, NotFound, ProxyError, UpstreamError, normalise_error
from proxy.settings import Settings
from proxy.upstream.client import Headers, Upstream

log = structlog.get_logger("proxy.upstreams")

MODELS_TIMEOUT = 10.0  # seconds an upstream gets to list its models before the merged list goes without it


class Upstreams:
    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None,
                 single: Upstream | None = None) -> None:
        configs = settings.upstreams  # parsed and checked once, by `load_settings`
        if configs:
            self.members = tuple(Upstream(settings, transport, config) for config in configs)
        else:
            self.members = (single or Upstream(settings, transport),)
        self._routes = tuple(ModelRoute(config.name, config.models) for config in configs)
        self._by_name = {member.name: member for member in self.members}

    @property
    def default(self) -> Upstream:
        """The first upstream: it serves requests that name no model."""
        return self.members[0]

    @property
    def routed(self) -> bool:
        """Whether requests are routed by model (`upstreams:` is set)."""
        return bool(self._routes)

    @property
    def several(self) -> bool:
        return len(self.members) > 1

    def for_model(self, model: Any) -> Upstream:
        """The upstream serving `model`; a NotFound (404) naming every pattern when none does."""
        if not self._routes:
            return self.default
        name = choose_upstream(self._routes, model)
        if name is None:
            raise NotFound(f"no upstream serves model {str(model)[:200]!r}; the configured upstreams serve "
                           f"{describe_routes(self._routes)}. Add a pattern to `models` of the right upstream, "
                           "or models: [\"*\"] to one of them to catch every other model",
                           code=ErrorCode.MODEL_NOT_FOUND)
        return self._by_name[name]

    async def model_list(self, client_headers: Headers, request_id: str,
                         query: str) -> tuple[dict[str, Any], list[str]]:
        """Every upstream's models in one list, and the names of the upstreams that answered.

        An UpstreamError (502) only when none did."""
        results = await asyncio.gather(*(_models_of(m, client_headers, request_id, query) for m in self.members))
        answered = [(member, result) for member, result in zip(self.members, results)
                    if not isinstance(result, ProxyError)]
        if not answered:
            failures = "; ".join(f"{m.name}: {r.message}" for m, r in zip(self.members, results)
                                 if isinstance(r, ProxyError))
            raise UpstreamError(f"no upstream could list its models ({failures})")
        merged = merge_model_lists([models for _, models in answered])
        return {"object": "list", "data": merged}, [member.name for member, _ in answered]

    async def aclose(self) -> None:
        await asyncio.gather(*(member.aclose() for member in self.members))


async def _models_of(upstream: Upstream, client_headers: Headers, request_id: str,
                     query: str) -> list[Any] | ProxyError:
    """One upstream's `data` list, or the error that kept it out (logged with the upstream's name)."""
    url = upstream.url_for("models", query)
    try:
        answer = await upstream.send("GET", url, upstream.request_headers(client_headers, request_id, False),
                                     None, MODELS_TIMEOUT)
        raw = await answer.read_and_close()
        return _model_data(upstream, url, answer.status, raw)
    except ProxyError as error:
        log.warning("upstream_models_failed", upstream=upstream.name, url=url, code=error.code,
                    message=error.message)
        return error


def _model_data(upstream: Upstream, url: str, status: int, raw: bytes) -> list[Any]:
    if status >= 400:
        message = normalise_error(status, raw, upstream.base_url)["error"]["message"]
        raise UpstreamError(f"upstream {upstream.name} ({url}) answered HTTP {status}: {message}")
    try:
        data = json_codec.loads(raw).get("data")
    except (ValueError, AttributeError):
        data = None
    if not isinstance(data, list):
        raise UpstreamError(f"upstream {upstream.name} ({url}) answered something that is not a model list "
                            "(a JSON object with a `data` list)", code=ErrorCode.UPSTREAM_INVALID_RESPONSE)
    return data
