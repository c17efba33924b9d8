"""The live catalog notices added, edited and removed skills without a restart."""

import shutil
import time

import pytest

from proxy.catalog_watch import LiveCatalog

SKILL = "---\nname: {name}\ndescription: {desc}\n---\n"


def wait_for(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def live(make_skill, tmp_path):
    make_skill("a", SKILL.format(name="a", desc="first"))
    catalog = LiveCatalog([str(tmp_path / "skills")])
    catalog.start()
    time.sleep(0.2)  # let the watcher register before the test changes files
    yield catalog
    catalog.stop()


def test_add_edit_remove_are_picked_up(live, make_skill, tmp_path):
    seen = []
    live.subscribe(lambda old, new: seen.append(new.names))
    make_skill("b", SKILL.format(name="b", desc="second"))
    assert wait_for(lambda: live.current.names == ("a", "b"))
    (tmp_path / "skills" / "a" / "SKILL.md").write_text(SKILL.format(name="a", desc="edited"))
    assert wait_for(lambda: live.current.get("a").description == "edited")
    shutil.rmtree(tmp_path / "skills" / "b")
    assert wait_for(lambda: live.current.names == ("a",))
    assert seen and seen[-1] == ("a",)


def test_current_is_the_same_object_while_nothing_changes(live):
    first = live.current
    time.sleep(0.3)
    assert live.current is first and live.generation == 0


def test_a_root_that_appears_later_is_picked_up(make_skill, tmp_path, monkeypatch):
    import proxy.catalog_watch as watch
    monkeypatch.setattr(watch, "_MISSING_ROOT_POLL_SECONDS", 0.05)
    catalog = LiveCatalog([str(tmp_path / "later")])
    catalog.start()
    try:
        make_skill("c", SKILL.format(name="c", desc="late"), root=tmp_path / "later")
        assert wait_for(lambda: catalog.current.names == ("c",))
    finally:
        catalog.stop()
