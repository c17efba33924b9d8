from proxy.core.install.changes import file_changes


def test_added_removed_and_changed_files_are_named_in_order():
    changes = file_changes({"SKILL.md": "1", "old.md": "2", "same.md": "3"},
                           {"SKILL.md": "9", "new.md": "4", "same.md": "3"})
    assert (changes.added, changes.removed, changes.changed) == (("new.md",), ("old.md",), ("SKILL.md",))
    assert changes.summary() == "1 changed (SKILL.md), 1 added (new.md), 1 removed (old.md)"


def test_no_change_and_long_lists():
    assert not file_changes({"a": "1"}, {"a": "1"})
    assert file_changes({"a": "1"}, {"a": "1"}).summary() == "no file changed"
    many = file_changes({}, {f"f{i}.md": "x" for i in range(6)})
    assert many.summary() == "6 added (f0.md, f1.md, f2.md, f3.md, …)"
