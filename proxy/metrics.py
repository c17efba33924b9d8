"""Prometheus metrics for one app, served at `GET /metrics`.

What lives here: `Metrics`, which owns a private `CollectorRegistry` (never
prometheus-client's process-wide default, so several apps in one process do
not clash). It is fed three ways: as a request observer it counts each
finished request from its record (mode, status, stream, how long
preprocessing and the upstream took, tool rounds, fallbacks); as a catalog
listener it counts reloads and the skills they added, removed or changed; and
at scrape time it reads how many skills the live catalog holds. `render()` is
the scrape body, in the text format `version=0.0.4`.

Labels are few and bounded on purpose: `endpoint` (a fixed set), `mode` (the
preprocessor's six), `status` (the HTTP code), `stream`, `reason`, `change`.
Never a path, a model or a skill name.

Each process has its own registry: under `uvicorn --workers N` a scrape sees
the worker that answered it.

What must not: hook into requests itself (the middleware hands it the
finished record), or do more per request than a few counter increments.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from fastapi import Response
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric

from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.diff import catalog_changes
from proxy.core.turns.modes import TurnMode
from proxy.engine.preprocess_runner import ChatPreprocessor
from proxy.request_record import RequestRecord

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MODES = frozenset(TurnMode)
ENDPOINTS = (("/v1/chat/completions", "chat_completions"), ("/v1/responses", "responses"), ("/v1/messages", "messages"),
             ("/api/chat", "ollama_chat"), ("/v1/skills", "skills"), ("/v1/", "forwarded"), ("/api/", "forwarded"),
             ("/healthz", "health"), ("/readyz", "health"), ("/metrics", "metrics"))
PREPROCESS_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
UPSTREAM_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
TOOL_ROUND_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12)

SkillCount = Callable[[], int]

# Each counter would also get a `*_created` timestamp series: noise that doubles a scrape. This is a
# process-wide switch in prometheus-client; nothing else in skillproxy uses its metrics.
disable_created_metrics()  # type: ignore[no-untyped-call]  # prometheus-client leaves it unannotated


class Metrics:
    def __init__(self, skills_loaded: SkillCount | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        for collector in (ProcessCollector, PlatformCollector, GCCollector):
            collector(registry=self.registry)
        if skills_loaded is not None:
            self.registry.register(_SkillsLoaded(skills_loaded))
        self._requests = _RequestMetrics(self.registry)
        self._reloads = _ReloadMetrics(self.registry)

    @classmethod
    def for_engine(cls, engine: ChatPreprocessor) -> Metrics:
        """Metrics for an app over `engine`; with its live catalog (a test double may have none),
        the skills gauge and the reload counters too."""
        live = engine.live
        if live is None:
            return cls()
        metrics = cls(skills_loaded=lambda: len(live.current.skills))
        live.subscribe(metrics.on_catalog_change)
        return metrics

    def observe(self, request: RequestRecord) -> None:
        """A request observer: count one finished request from its record."""
        self._requests.observe(request)

    def on_catalog_change(self, old: Catalog, new: Catalog) -> None:
        """A catalog listener: count one reload and what it changed."""
        self._reloads.observe(old, new)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def page(self) -> Response:
        """`GET /metrics` (a plain function: the framework runs it off the event loop)."""
        return Response(self.render(), media_type=CONTENT_TYPE)


class _RequestMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter("skillproxy_requests", "HTTP requests answered, by endpoint and status code",
                                ["endpoint", "status"], registry=registry)
        self.duration = Histogram("skillproxy_request_duration_seconds", "Time from request to the end of the answer",
                                  ["endpoint"], registry=registry, buckets=UPSTREAM_BUCKETS)
        self.chat = Counter("skillproxy_chat_requests", "Chat requests, by surface (chat_completions, responses, "
                            "messages, ollama_chat), preprocessing mode, status code and whether the client asked "
                            "for a stream", ["surface", "mode", "status", "stream"], registry=registry)
        self.preprocess = Histogram("skillproxy_preprocess_duration_seconds", "Time spent choosing skills for a "
                                    "chat request (scan_timeout bounds it)", registry=registry,
                                    buckets=PREPROCESS_BUCKETS)
        self.upstream = Histogram("skillproxy_upstream_duration_seconds", "Time until the upstream's answer started "
                                  "(its headers), per request", ["endpoint"], registry=registry,
                                  buckets=UPSTREAM_BUCKETS)
        self.fallbacks = Counter("skillproxy_preprocess_fallbacks", "Chat requests sent on with the fallback note "
                                 "because preprocessing timed out or failed", ["reason"], registry=registry)
        self.tool_rounds = Histogram("skillproxy_tool_rounds", "Rounds of skill tool calls the proxy ran per chat "
                                     "request that offered the tools", registry=registry, buckets=TOOL_ROUND_BUCKETS)
        self.tool_calls = Counter("skillproxy_skill_tool_calls", "Skill tool calls the proxy ran for the model",
                                  registry=registry)

    def observe(self, request: RequestRecord) -> None:
        endpoint, status = endpoint_of(request.path or ""), _status(request.status)
        self.requests.labels(endpoint, status).inc()
        self.duration.labels(endpoint).observe(_seconds(request.total_ms))
        if request.upstream_ms is not None:
            self.upstream.labels(endpoint).observe(_seconds(request.upstream_ms))
        if request.mode is not None:
            self._observe_chat(request, request.mode, status)

    def _observe_chat(self, request: RequestRecord, mode: str, status: str) -> None:
        self.chat.labels(request.surface or "chat_completions", mode if mode in MODES else "other", status,
                         "true" if request.stream else "false").inc()
        if request.preprocess_ms is not None:
            self.preprocess.observe(_seconds(request.preprocess_ms))
        if request.fallback in ("timeout", "error"):
            self.fallbacks.labels(request.fallback).inc()
        if request.tool_rounds is not None:
            self.tool_rounds.observe(request.tool_rounds)
            self.tool_calls.inc(max(0, request.tool_calls or 0))


class _ReloadMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.reloads = Counter("skillproxy_catalog_reloads", "Times the skill catalog was rebuilt after a change "
                               "on disk", registry=registry)
        self.changes = Counter("skillproxy_catalog_skill_changes", "Skills added, removed or changed by reloads",
                               ["change"], registry=registry)
        self.last = Gauge("skillproxy_catalog_last_reload_timestamp_seconds", "When the catalog was last rebuilt "
                          "(Unix time; 0 before the first reload)", registry=registry)
        for change in ("added", "removed", "changed"):
            self.changes.labels(change)  # present at 0 from the start, so rate() works on the first reload

    def observe(self, old: Catalog, new: Catalog) -> None:
        changes = catalog_changes(old, new)
        self.reloads.inc()
        self.changes.labels("added").inc(len(changes.added))
        self.changes.labels("removed").inc(len(changes.removed))
        self.changes.labels("changed").inc(len(changes.changed))
        self.last.set(time.time())


class _SkillsLoaded:
    """`skillproxy_skills_loaded`, read from the live catalog when scraped (never counted per request)."""

    def __init__(self, count: SkillCount) -> None:
        self._count = count

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("skillproxy_skills_loaded", "Skills in the live catalog (shadowed and skipped "
                                "ones not counted)", value=self._count())

    def describe(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("skillproxy_skills_loaded", "Skills in the live catalog")


def endpoint_of(path: str) -> str:
    """A fixed name for the route a path took: chat_completions, skills, forwarded, health, metrics or other."""
    for prefix, name in ENDPOINTS:
        if path == prefix or path.startswith(prefix if prefix.endswith("/") else prefix + "/"):
            return name
    return "other"


def _status(status: int | None) -> str:
    return str(status) if status is not None and 100 <= status <= 599 else "none"


def _seconds(ms: float | None) -> float:
    return ms / 1000 if ms is not None else 0.0
