"""The skill engine's life: building one loads the catalog and starts nothing; `start` watches, `close` stops."""

from __future__ import annotations

import threading

from proxy.engine.skill_engine import SkillEngine, startup_summary_without_engine
from proxy.settings import Settings

SKILL = "---\nname: {name}\ndescription: Resize holiday photos for the family album\n---\n# Steps\nResize.\n"
WATCHER = "skill-catalog-watch"


def watchers() -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == WATCHER)


def test_building_an_engine_loads_the_catalog_and_starts_no_watcher(make_skill, tmp_path):
    make_skill("photo-resize", SKILL.format(name="photo-resize"))
    before = watchers()
    engine = SkillEngine.from_settings(Settings(roots=(str(tmp_path / "skills"),)))
    try:
        assert engine.live.current.names == ("photo-resize",)
        assert watchers() == before
    finally:
        engine.close()


def test_start_watches_the_roots_until_close_and_both_can_be_called_twice(make_skill, tmp_path):
    make_skill("photo-resize", SKILL.format(name="photo-resize"))
    before = watchers()
    engine = SkillEngine.from_settings(Settings(roots=(str(tmp_path / "skills"),)))
    engine.start()
    engine.start()
    assert watchers() == before + 1
    engine.close()
    engine.close()
    assert watchers() == before


def test_an_engine_built_not_to_watch_starts_no_watcher(make_skill, tmp_path):
    make_skill("photo-resize", SKILL.format(name="photo-resize"))
    before = watchers()
    engine = SkillEngine.from_settings(Settings(roots=(str(tmp_path / "skills"),)), watch=False)
    engine.start()
    assert watchers() == before
    engine.close()


def test_the_summary_without_an_engine_says_what_an_engines_summary_says(make_skill, tmp_path):
    make_skill("photo-resize", SKILL.format(name="photo-resize"))
    make_skill("broken", "---\nname: Broken Name\n---\n")  # skipped, with a warning
    settings = Settings(roots=(str(tmp_path / "skills"),))
    engine = SkillEngine.from_settings(settings, watch=False)
    try:
        assert startup_summary_without_engine(settings) == engine.startup_summary()
    finally:
        engine.close()
    summary = engine.startup_summary()
    assert (summary["skills"], summary["skipped"], summary["warnings"], summary["state"]) == (1, 1, 1, "memory")
