"""The skill engine: what the proxy calls to preprocess a chat request's conversation (any surface's).

It owns the live catalog, the router built from it (rebuilt in the watcher
thread when the catalog changes, never on a request), and the turn store
(`state`: this process's memory, or Redis shared by workers and replicas). A
request reads one immutable `SkillContext`, so a reload mid-request cannot
mix two catalogs. Store writes made on the event loop (fallback, tool
exchanges) are queued by a network store, never waited for.

Building an engine loads the catalog and nothing more; `start` begins
watching the roots and `close` stops that and closes the store. The app's
lifespan calls both, so each process that serves runs its own watcher.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import structlog

from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.core.catalog.diff import catalog_changes
from proxy.core.catalog.scope import SkillScope
from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import SkillRouter
from proxy.core.tools.skill_tools import SkillTools
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.modes import SkillsMode
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.turns.preprocessor import fallback, preprocess
from proxy.core.turns.records import MixedCall, TurnRecord, chain_key
from proxy.core.turns.request_options import RequestOptions
from proxy.core.turns.turn_decision import PreprocessConfig, SkillContext
from proxy.engine import heap
from proxy.engine.live_catalog import LiveCatalog
from proxy.settings import Settings, names_as_map
from proxy.state.turn_store import TurnStore, turn_store

_log = structlog.get_logger("skillproxy.engine")

# A result that took longer than this share of the scan timeout is still used
# if it arrives in time, but its records are not kept: the shell may already
# have sent the fallback for that turn, and the store must hold what was sent.
COMMIT_MARGIN = 0.8

RouterFactory = Callable[[Sequence[Skill]], SkillRouter]


class SkillEngine:
    def __init__(self, live: LiveCatalog, config: PreprocessConfig, store: TurnStore, scan_timeout: float,
                 router_factory: RouterFactory = SkillRouter, clock: Callable[[], float] = time.time,
                 scope: SkillScope = SkillScope(), watch: bool = True) -> None:
        self.live = live
        self.scope = scope  # enabled_skills and disabled_skills
        self.config = config
        self.store = store
        self.scan_timeout = scan_timeout
        self._router_factory = router_factory
        self._clock = clock
        self._watch = watch  # False: the catalog is read once (a test's or a benchmark's engine)
        self._started = False
        self._context = self._build_context(live.current)
        # (tool mode, routing on) → (the config it was made from, that config as a request's options change it)
        self._request_configs: dict[tuple[str, bool], tuple[PreprocessConfig, PreprocessConfig]] = {}
        live.subscribe(self._on_catalog_change)

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> SkillEngine:
        """The engine `settings` describe, its catalog loaded; nothing runs until `start`."""
        live = LiveCatalog(settings.roots, settings.max_skill_file_bytes)
        return cls(live, preprocess_config(settings), turn_store(settings), settings.scan_timeout,
                   scope=SkillScope.of(settings.enabled_skills, settings.disabled_skills), **kwargs)

    def start(self) -> None:
        """Watch the roots for changes (unless built with `watch=False`); starting again does nothing."""
        if self._started or not self._watch:
            return
        self._started = True
        heap.settle()  # a served catalog lives long: kept out of the collector's way, after each reload too
        self.live.subscribe(heap.settle)
        self.live.start()

    @property
    def context(self) -> SkillContext:
        return self._context

    def preprocess(self, conversation: Conversation, options: RequestOptions | None = None) -> Preprocessed:
        started = time.monotonic()
        config, context = self._for_request(options or RequestOptions())
        result = preprocess(conversation, context, self.store, config, self._clock())
        if time.monotonic() - started < COMMIT_MARGIN * self.scan_timeout:
            self._commit(result)
        return result

    def preview(self, conversation: Conversation, options: RequestOptions | None = None) -> Preprocessed:
        """What `preprocess` would do, without keeping anything: for `POST /v1/skills/route`."""
        config, context = self._for_request(options or RequestOptions())
        return preprocess(conversation, context, self.store, config, self._clock())

    def skills(self, options: RequestOptions | None = None) -> Catalog:
        """The catalog in scope: enabled by config, narrowed by the request."""
        return self._context.narrowed((options or RequestOptions()).scope).catalog

    def fallback(self, conversation: Conversation, reason: str,
                 options: RequestOptions | None = None) -> Preprocessed:
        tool_mode = (options.tool_mode if options else None) or self.config.tool_mode
        # Runs on the event loop: reads only what this process holds, never a network store.
        result = fallback(conversation, self.store.local, self._clock(), reason, tool_mode)
        now = self._clock()
        for key, record in result.records:
            self.store.put_later(key, record, now)
        return result

    def _for_request(self, options: RequestOptions) -> tuple[PreprocessConfig, SkillContext]:
        tool_mode = options.tool_mode or self.config.tool_mode
        routing = options.skills_mode != SkillsMode.EXPLICIT
        made = self._request_configs.get((tool_mode, routing))
        if made is None or made[0] is not self.config:  # a few combinations at most: each made once
            made = (self.config, replace(self.config, tool_mode=tool_mode, routing=routing))
            self._request_configs[tool_mode, routing] = made
        return made[1], self._context.narrowed(options.scope)

    def skill_tools(self, options: RequestOptions | None = None) -> SkillTools | None:
        """The skill tools over the current catalog (in the request's scope); None when there is no skill."""
        context = self._context.narrowed((options or RequestOptions()).scope)
        if not context.catalog.skills:
            return None
        return SkillTools(context.catalog, context.router, self.config.max_file_bytes)

    def record_tool_exchange(self, anchor: tuple[str, TurnRecord], exchange: list[dict[str, Any]],
                             mixed: MixedCall | None) -> None:
        """Keep the proxy's tool rounds with the message they followed, for the next request's replay."""
        key, record = anchor
        if not exchange and mixed is None and not record.tool_exchange and record.mixed_call is None:
            return
        # Runs on the event loop: queued when the store is across a network, never waited for.
        self.store.put_later(key, replace(record, tool_exchange=tuple(exchange), mixed_call=mixed), self._clock())

    def record_chain(self, response_id: str, record: TurnRecord) -> None:
        """Keep what a request continuing `response_id` by id alone needs to decide its turn (queued)."""
        self.store.put_later(chain_key(response_id), record, self._clock())

    def startup_summary(self) -> dict[str, Any]:
        return {**catalog_summary(self.live.current), **self.store.summary()}

    def close(self) -> None:
        """Stop watching and close the store (queued writes are sent); closing again does nothing."""
        self.live.stop()
        self.store.close()

    def _commit(self, result: Preprocessed) -> None:
        self.store.put_many(result.records, self._clock())  # a network store: one round trip

    def _build_context(self, catalog: Catalog) -> SkillContext:
        enabled = catalog.scoped(self.scope)
        router = self._router_factory(enabled.skills)
        if isinstance(router, SkillRouter):  # off the request path: at start and in the watcher's thread
            router.warm()
        return SkillContext(enabled, router)

    def _on_catalog_change(self, old: Catalog, new: Catalog) -> None:
        self._context = self._build_context(new)
        _log.info("catalog_reloaded", **catalog_changes(old, new).log_fields())


def catalog_summary(catalog: Catalog) -> dict[str, Any]:
    """For the start banner: how many skills were loaded from which roots, and what was wrong with them."""
    return {"skills": len(catalog.skills), "warnings": len(catalog.findings()), "roots": list(catalog.roots),
            "shadowed": len(catalog.shadowed), "skipped": len(catalog.skipped)}


def startup_summary_without_engine(settings: Settings) -> dict[str, Any]:
    """`SkillEngine.startup_summary` without building an engine: the catalog read once, the store asked once.

    For a parent process that only prints the banner while its workers each build their own engine.
    """
    store = turn_store(settings)
    try:
        return {**catalog_summary(load_catalog(settings.roots, settings.max_skill_file_bytes)), **store.summary()}
    finally:
        store.close()


def preprocess_config(settings: Settings) -> PreprocessConfig:
    return PreprocessConfig(
        max_routed_skills=settings.max_routed_skills,
        refresh_interval=settings.refresh_interval,
        slash_activation=settings.slash_activation,
        tool_mode=settings.tool_mode,
        max_file_bytes=settings.max_skill_file_bytes,
        fork_keep_system=settings.fork_keep_system,
        skills_index=settings.skills_index,
        skills_index_max_chars=settings.skills_index_max_chars,
        model_overrides=allowed_models(settings.model_overrides),
        compaction_reinject_chars=settings.compaction_reinject_chars,
    )


def allowed_models(overrides: Any) -> dict[str, str]:
    """`model_overrides` as a map: a list allows each name as itself."""
    return {str(k): str(v) for k, v in names_as_map(overrides or {}).items()}

