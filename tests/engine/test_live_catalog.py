"""The live catalog notices added, edited and removed skills without a restart."""

import os
import shutil
import time

import pytest
from structlog.testing import capture_logs

from proxy.engine.live_catalog import LiveCatalog

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
    import proxy.engine.live_catalog as watch
    monkeypatch.setattr(watch, "_MISSING_ROOT_POLL_SECONDS", 0.05)
    catalog = LiveCatalog([str(tmp_path / "later")])
    catalog.start()
    try:
        make_skill("c", SKILL.format(name="c", desc="late"), root=tmp_path / "later")
        assert wait_for(lambda: catalog.current.names == ("c",))
    finally:
        catalog.stop()


# ---- roots that vanish, come back or appear; failures that must not stop it ----

def events_named(captured, name):
    return [entry for entry in captured if entry["event"] == name]


@pytest.fixture
def fast_poll(monkeypatch):
    import proxy.engine.live_catalog as watch
    monkeypatch.setattr(watch, "_MISSING_ROOT_POLL_SECONDS", 0.05)


@pytest.mark.parametrize("how", ["rename", "rmtree"])
def test_a_vanished_root_keeps_its_skills_until_it_is_back(how, make_skill, tmp_path, fast_poll):
    root, other = tmp_path / "skills", tmp_path / "other"
    make_skill("a", SKILL.format(name="a", desc="first"))
    make_skill("b", SKILL.format(name="b", desc="second"))
    make_skill("c", SKILL.format(name="c", desc="third"), root=other)
    catalog = LiveCatalog([str(root), str(other)])
    catalog.start()
    try:
        time.sleep(0.2)
        with capture_logs() as captured:
            if how == "rename":
                root.rename(tmp_path / "moved")
            else:
                shutil.rmtree(root)
            assert wait_for(lambda: catalog.current.missing_roots == (str(root),))
            assert catalog.current.names == ("a", "b", "c")
            [warning] = events_named(captured, "catalog_root_missing")[:1]
            assert warning["root"] == str(root) and warning["kept_skills"] == 2 and warning["log_level"] == "warning"
            if how == "rename":
                (tmp_path / "moved").rename(root)
                (root / "a" / "SKILL.md").write_text(SKILL.format(name="a", desc="edited"))
            else:
                make_skill("d", SKILL.format(name="d", desc="new"))
            expected = ("a", "b", "c") if how == "rename" else ("d", "c")
            assert wait_for(lambda: catalog.current.names == expected and not catalog.current.missing_roots)
            if how == "rename":
                assert wait_for(lambda: catalog.current.get("a").description == "edited")
        make_skill("e", SKILL.format(name="e", desc="after"), root=root)  # the returned root is watched again
        assert wait_for(lambda: catalog.current.get("e") is not None)
    finally:
        catalog.stop()


def test_a_second_root_appearing_while_the_first_is_watched_is_picked_up(make_skill, tmp_path):
    make_skill("a", SKILL.format(name="a", desc="first"))
    catalog = LiveCatalog([str(tmp_path / "skills"), str(tmp_path / "later")])
    catalog.start()
    try:
        time.sleep(1.0)  # past the watch's first quiet tick, which catches up on changes made while it started
        make_skill("b", SKILL.format(name="b", desc="late"), root=tmp_path / "later")
        assert wait_for(lambda: catalog.current.names == ("a", "b"))
        (tmp_path / "later" / "b" / "SKILL.md").write_text(SKILL.format(name="b", desc="edited"))
        assert wait_for(lambda: catalog.current.get("b").description == "edited")
    finally:
        catalog.stop()


def test_a_symlink_loop_in_a_watched_root_does_not_stop_the_watcher(live, make_skill, tmp_path):
    root = tmp_path / "skills"
    os.symlink(root, root / "a" / "back-to-root")  # a loop inside a skill folder
    os.symlink(root / "loop-y", root / "loop-x")
    os.symlink(root / "loop-x", root / "loop-y")
    make_skill("b", SKILL.format(name="b", desc="second"))
    assert wait_for(lambda: live.current.names == ("a", "b"))
    assert {f.location.rsplit("/", 2)[-2] for f in live.current.skipped} == {"loop-x", "loop-y"}
    (root / "a" / "SKILL.md").write_text(SKILL.format(name="a", desc="edited"))
    assert wait_for(lambda: live.current.get("a").description == "edited")


def test_a_failing_rebuild_or_listener_keeps_the_catalog_in_use(live, monkeypatch):
    import proxy.engine.live_catalog as watch
    before = live.current
    heard = []
    live.subscribe(lambda old, new: 1 / 0)
    live.subscribe(lambda old, new: heard.append(new))
    with capture_logs() as captured:
        assert live.reload() is not before and heard == [live.current]  # the second listener still heard it
        monkeypatch.setattr(watch, "load_catalog", lambda *args, **kwargs: 1 / 0)
        current = live.current
        assert live.reload() is current and live.current is current
    assert events_named(captured, "catalog_listener_failed")[0]["error"].startswith("ZeroDivisionError")
    failed = events_named(captured, "catalog_reload_failed")
    assert failed and failed[0]["skills"] == 1 and failed[0]["log_level"] == "error"


def test_a_reload_runs_with_the_collector_paused_and_restores_it(make_skill, tmp_path):
    """A rebuild's small objects would set off full collections mid-reload; after it, the collector is as it was."""
    import gc

    make_skill("a", SKILL.format(name="a", desc="first"))
    catalog = LiveCatalog([str(tmp_path / "skills")])
    during = []
    catalog.subscribe(lambda old, new: during.append(gc.isenabled()))
    catalog.reload()
    assert during == [False] and gc.isenabled()
    gc.disable()
    try:
        catalog.reload()
        assert during == [False, False] and not gc.isenabled()  # left off: it was off
    finally:
        gc.enable()


def test_writes_in_an_install_scratch_folder_do_not_reload(live, tmp_path):
    scratch = tmp_path / "skills" / ".skillproxy" / "tmp"
    scratch.mkdir(parents=True)
    assert wait_for(lambda: live.generation >= 1)  # .skillproxy itself appearing in the root is a change
    time.sleep(0.3)
    settled = live.generation
    for i in range(20):  # what a clone in progress looks like
        (scratch / "clone-1" / f"d{i}").mkdir(parents=True)
        (scratch / "clone-1" / f"d{i}" / "SKILL.md").write_text(SKILL.format(name=f"d{i}", desc="mid-clone"))
    time.sleep(0.6)
    assert live.generation == settled
    (tmp_path / "skills" / "skills-lock.json").write_text("{}")
    assert wait_for(lambda: live.generation > settled)
    assert live.current.names == ("a",)
