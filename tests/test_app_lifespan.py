"""The app's lifespan owns the engine: it starts it when the server starts and closes it when it stops,
in a single process and in each worker of `serve --workers`."""

from __future__ import annotations

import os
import threading
from typing import Any

from starlette.testclient import TestClient

from proxy.app import create_app
from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings
from tests.integration.engines import MarkerEngine

SKILL = "---\nname: {name}\ndescription: Resize holiday photos for the family album\n---\n# Steps\nResize.\n"
WATCHER = "skill-catalog-watch"


class RecordingEngine(MarkerEngine):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def start(self) -> None:
        self.calls.append("start")

    def close(self) -> None:
        self.calls.append("close")


def watchers() -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == WATCHER)


def test_the_engine_is_started_when_the_app_starts_and_closed_when_it_stops():
    engine = RecordingEngine()
    app = create_app(Settings(roots=()), engine)
    assert engine.calls == [], "building the app starts nothing"
    with TestClient(app) as client:
        assert engine.calls == ["start"]
        assert client.get("/healthz").status_code == 200
        assert engine.calls == ["start"]
    assert engine.calls == ["start", "close"]


def test_a_real_engine_watches_its_roots_only_while_the_app_runs(make_skill, tmp_path):
    make_skill("photo-resize", SKILL.format(name="photo-resize"))
    settings = Settings(roots=(str(tmp_path / "skills"),))
    before = watchers()
    app = create_app(settings, SkillEngine.from_settings(settings))
    assert watchers() == before
    with TestClient(app) as client:
        assert watchers() == before + 1
        assert [s["name"] for s in client.get("/v1/skills").json()["data"]] == ["photo-resize"]
    assert watchers() == before


def test_each_worker_app_builds_its_engine_and_its_lifespan_runs_the_watcher(make_skill, tmp_path, monkeypatch):
    import proxy.logs.setup
    from proxy.worker_app import WORKER_ENV, create_worker_app, worker_environment

    make_skill("photo-resize", SKILL.format(name="photo-resize"))
    configured: list[Any] = []
    monkeypatch.setattr(proxy.logs.setup, "configure_logging", configured.append)  # the test's logging stays
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(WORKER_ENV, worker_environment(None, {"roots": ("skills",), "port": 8799}))
    for name in [n for n in os.environ if n.startswith("SKILLPROXY_")]:
        monkeypatch.delenv(name)
    before = watchers()
    app = create_worker_app()
    assert watchers() == before, "the worker's engine runs nothing until the lifespan starts it"
    assert [s.port for s in configured] == [8799], "the worker read the settings the parent passed"
    with TestClient(app) as client:
        assert watchers() == before + 1
        assert [s["name"] for s in client.get("/v1/skills").json()["data"]] == ["photo-resize"]
    assert watchers() == before
