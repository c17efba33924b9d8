"""Keep the catalog fresh without any request paying for a walk of the roots.

A background thread watches the roots (and the real folders behind symlinked
skills) with watchfiles, which uses the OS's change notifications. On a change
it rebuilds the catalog and swaps it in; a request only reads `current`, an
attribute, so its cost does not grow with the number of skills. Listeners
(the router index, the engine's log line) are told about each swap.

A reload never takes the proxy down: a root that vanished keeps its skills
from the last good catalog (with a `catalog_root_missing` warning naming it)
until it can be listed again; a rebuild or a listener that fails is logged
and the catalog in use stays. A root that appears while others are watched is
noticed within a watch tick. Changes inside a root's `.skillproxy/tmp/`, where `skillproxy add`
clones and copies before it renames a finished skill into place, are not watched: only that
rename reloads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import structlog
import watchfiles

from proxy.core.catalog.catalog import Catalog, change_signature, expand_root, load_catalog, watch_paths
from proxy.core.catalog.files import DEFAULT_MAX_FILE_BYTES
from proxy.core.install.layout import SCRATCH_DIR
from proxy.engine import heap

Listener = Callable[[Catalog, Catalog], None]
_MISSING_ROOT_POLL_SECONDS = 2.0
# watchfiles hands over a batch of changes once nothing new came for one step (measured:
# one to two steps after a write), and at the latest after the debounce. 20 ms still
# groups an editor's save (truncate and write, or write and rename: microseconds apart)
# into one reload; 50 ms added about 100 ms to every reload.
_QUIET_STEP_MS = 20
_MAX_BATCH_MS = 150
_log = structlog.get_logger("skillproxy.catalog")


class CatalogChangeFilter(watchfiles.DefaultFilter):
    """watchfiles' default filter (.git, __pycache__, editor swap files), and install scratch folders."""

    _scratch = os.sep + SCRATCH_DIR.replace("/", os.sep)

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        return self._scratch not in path and super().__call__(change, path)


class LiveCatalog:
    def __init__(self, roots: Sequence[str], max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._roots = tuple(roots)
        self._max_file_bytes = max_file_bytes
        self._signature = change_signature(self._roots)
        self._catalog = load_catalog(self._roots, max_file_bytes)
        self._listeners: list[Listener] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.RLock()  # held while listeners run too, so they see swaps in order
        self.generation = 0

    @property
    def current(self) -> Catalog:
        return self._catalog

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def reload(self) -> Catalog:
        """Rebuild now and tell the listeners (also what the watcher calls); never raises."""
        with self._lock, heap.collector_paused():
            old = self._catalog
            try:
                self._signature = change_signature(self._roots)
                new = load_catalog(self._roots, self._max_file_bytes, previous=old)
            except Exception as exc:  # noqa: BLE001 - a bug in loading must not take the last good catalog away
                _log.error("catalog_reload_failed", error=repr(exc), skills=len(old.skills))
                return old
            self._catalog = new
            self.generation += 1
            for root in new.missing_roots:
                _log.warning("catalog_root_missing", root=root, kept_skills=len(new.from_root(root)),
                             note="the root cannot be listed; its skills stay as last loaded until it is back")
            self._notify(old, new)
        return new

    def _notify(self, old: Catalog, new: Catalog) -> None:
        for listener in self._listeners:
            try:
                listener(old, new)
            except Exception as exc:  # noqa: BLE001 - one listener failing must not stop the others
                _log.error("catalog_listener_failed", listener=getattr(listener, "__qualname__", repr(listener)),
                           error=repr(exc))

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch_forever, name="skill-catalog-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _watch_forever(self) -> None:
        while not self._stop.is_set():
            try:
                self._watch_step()
            except Exception as exc:  # noqa: BLE001 - the watcher must outlive any one bad rebuild
                _log.warning("catalog_watch_error", error=repr(exc))
                self._stop.wait(_MISSING_ROOT_POLL_SECONDS)

    def _watch_step(self) -> None:
        paths = self._existing_watch_paths()
        if paths:
            self._watch_once(paths)
        else:
            self._wait_for_a_root()

    def _watch_once(self, paths: list[Path]) -> None:
        """Watch until the set of paths to watch changes; reload on every change."""
        catch_up = True  # files may have changed while this watch was starting
        try:
            for changes in watchfiles.watch(*paths, watch_filter=CatalogChangeFilter(), stop_event=self._stop,
                                            debounce=_MAX_BATCH_MS, step=_QUIET_STEP_MS, rust_timeout=500,
                                            yield_on_timeout=True, raise_interrupt=False):
                if not changes and not self._changed_unseen(paths, catch_up):
                    catch_up = False
                    continue
                catch_up = False
                self.reload()
                if self._existing_watch_paths() != paths:
                    return
        except (OSError, RuntimeError):
            self._stop.wait(_MISSING_ROOT_POLL_SECONDS)
            if not self._stop.is_set():
                self.reload()

    def _changed_unseen(self, paths: list[Path], catch_up: bool) -> bool:
        """On a quiet tick: did a root come or go, or (just after the watch started) did anything change?"""
        roots = {expand_root(root) for root in self._roots}
        if {path for path in roots if path.exists()} != roots.intersection(paths):
            return True
        return catch_up and change_signature(self._roots) != self._signature

    def _existing_watch_paths(self) -> list[Path]:
        return [p for p in watch_paths(self._catalog) if p.exists()]

    def _wait_for_a_root(self) -> None:
        while not self._stop.wait(_MISSING_ROOT_POLL_SECONDS):
            if any(expand_root(root).exists() for root in self._roots):
                self.reload()
                return
