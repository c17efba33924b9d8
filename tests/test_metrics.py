"""`Metrics.for_engine`: the skills gauge and reload counters follow the engine's live catalog, when it has one."""

from __future__ import annotations

from proxy.engine.live_catalog import LiveCatalog
from proxy.metrics import Metrics
from tests.integration.engines import MarkerEngine
from tests.integration.scrape import Scrape

SKILL = "---\nname: {name}\ndescription: {name} things\n---\n"


class _CatalogEngine(MarkerEngine):
    def __init__(self, live: LiveCatalog) -> None:
        super().__init__()
        self.live = live


def test_an_engine_without_a_catalog_has_no_skills_gauge():
    metrics = Scrape(Metrics.for_engine(MarkerEngine()).render().decode())
    assert "skillproxy_skills_loaded" not in metrics.names()
    assert "process_resident_memory_bytes" in metrics.names()


def test_the_skills_gauge_and_reloads_follow_the_engines_live_catalog(make_skill, tmp_path):
    make_skill("a", SKILL.format(name="a"))
    live = LiveCatalog([str(tmp_path / "skills")])
    metrics = Metrics.for_engine(_CatalogEngine(live))
    assert Scrape(metrics.render().decode()).value("skillproxy_skills_loaded") == 1
    make_skill("b", SKILL.format(name="b"))
    live.reload()
    after = Scrape(metrics.render().decode())
    assert after.value("skillproxy_skills_loaded") == 2
    assert after.value("skillproxy_catalog_reloads_total") == 1
