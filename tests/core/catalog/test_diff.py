"""`catalog_changes`: what a reload added, removed and changed, by name, with the counts."""

from pathlib import Path

from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.core.catalog.diff import MAX_LOGGED_NAMES, catalog_changes
from proxy.core.catalog.skill import Finding, Skill


def skill(name: str, description: str = "does things", digest: str = "a") -> Skill:
    return Skill(name=name, description=description, folder=Path("/skills") / name, root="/skills",
                 location=f"/skills/{name}/SKILL.md", source_sha256=digest)


def catalog(*skills: Skill, skipped: tuple[Finding, ...] = (), missing: tuple[str, ...] = ()) -> Catalog:
    return Catalog(("/skills",), tuple(skills), skipped=skipped, missing_roots=missing)


def test_added_removed_and_changed_are_named_and_counted():
    old = catalog(skill("keep"), skill("edit"), skill("gone"))
    new = catalog(skill("keep"), skill("edit", "does other things"), skill("fresh"))
    changes = catalog_changes(old, new)
    assert (changes.added, changes.removed, changes.changed) == (("fresh",), ("gone",), ("edit",))
    assert changes.any
    fields = changes.log_fields()
    assert fields["counts"] == {"added": 1, "removed": 1, "changed": 1}
    assert (fields["skills"], fields["skills_before"]) == (3, 3)
    assert fields["added"] == ["fresh"] and fields["removed"] == ["gone"] and fields["changed"] == ["edit"]


def test_a_body_edit_alone_is_a_change():
    changes = catalog_changes(catalog(skill("notes", digest="before")), catalog(skill("notes", digest="after")))
    assert changes.changed == ("notes",) and not changes.added and not changes.removed


def test_the_same_catalog_has_no_changes():
    same = catalog(skill("a"), skill("b"))
    changes = catalog_changes(same, catalog(skill("a"), skill("b")))
    assert not changes.any
    assert changes.log_fields()["counts"] == {"added": 0, "removed": 0, "changed": 0}


def test_a_rename_is_one_removed_and_one_added():
    changes = catalog_changes(catalog(skill("old-name")), catalog(skill("new-name")))
    assert (changes.added, changes.removed, changes.changed) == (("new-name",), ("old-name",), ())


def test_skipped_and_missing_roots_come_from_the_new_catalog():
    unreadable = Finding("/skills/x/SKILL.md", "unreadable", "binary", "error")
    changes = catalog_changes(catalog(skill("a")), catalog(skill("a"), skipped=(unreadable,), missing=("/skills",)))
    fields = changes.log_fields()
    assert fields["skipped"] == 1 and fields["missing_roots"] == ["/skills"]


def test_long_name_lists_are_cut_in_the_log_but_counted_in_full():
    many = [skill(f"s{i:03d}") for i in range(MAX_LOGGED_NAMES + 7)]
    fields = catalog_changes(catalog(), catalog(*many)).log_fields()
    assert len(fields["added"]) == MAX_LOGGED_NAMES + 1
    assert fields["added"][-1] == "... and 7 more"
    assert fields["counts"]["added"] == MAX_LOGGED_NAMES + 7 and fields["skills"] == MAX_LOGGED_NAMES + 7


def test_loading_an_edited_body_gives_a_skill_that_compares_changed(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes\n---\nFirst body.\n")
    before = load_catalog([tmp_path])
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes\n---\nSecond body.\n")
    after = load_catalog([tmp_path])
    assert before.skills[0].source_sha256 != after.skills[0].source_sha256
    assert catalog_changes(before, after).changed == ("notes",)
    assert not catalog_changes(after, load_catalog([tmp_path])).any  # loaded again, unchanged
