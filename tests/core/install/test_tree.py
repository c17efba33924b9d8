"""A skill folder's files as an install sees them: symlinks inside the tree followed, out of it refused."""

import os

import pytest

from proxy.core.install.tree import (
    TreeRefused,
    file_digests,
    find_skill_folders,
    tree_files,
    tree_sha256,
)


def make(base, files):
    for relative, text in files.items():
        (base / relative).parent.mkdir(parents=True, exist_ok=True)
        (base / relative).write_text(text)
    return base


def digest(folder, boundary=None):
    return tree_sha256(file_digests(tree_files(folder, boundary)))


def test_files_are_listed_by_relative_path_and_ignored_names_left_out(tmp_path):
    skill = make(tmp_path / "s", {"SKILL.md": "x", "references/a.md": "a", "scripts/run.sh": "#!/bin/sh\n",
                                  ".git/config": "c", "scripts/__pycache__/m.pyc": "p", ".hidden": "h"})
    (skill / "scripts/run.sh").chmod(0o755)
    files = tree_files(skill)
    assert [f.path for f in files] == [".hidden", "SKILL.md", "references/a.md", "scripts/run.sh"]
    assert [f.executable for f in files] == [False, False, False, True]


def test_the_digest_covers_paths_and_bytes_only(tmp_path):
    one = make(tmp_path / "one", {"SKILL.md": "x", "a/b.md": "b"})
    two = make(tmp_path / "two", {"SKILL.md": "x", "a/b.md": "b"})
    (two / "SKILL.md").chmod(0o700)
    assert digest(one) == digest(two)
    (two / "a/b.md").write_text("B")
    assert digest(one) != digest(two)
    three = make(tmp_path / "three", {"SKILL.md": "x", "a/c.md": "b"})
    assert digest(one) != digest(three)
    make(one, {"__pycache__/x.pyc": "compiled"})
    assert digest(one) == digest(make(tmp_path / "four", {"SKILL.md": "x", "a/b.md": "b"}))


def test_a_symlink_inside_the_boundary_is_followed_and_one_leading_out_is_refused(tmp_path):
    tree = make(tmp_path / "tree", {"shared/LICENSE": "MIT", "skill/SKILL.md": "x"})
    make(tmp_path, {"outside/secret.txt": "no"})
    (tree / "skill/LICENSE").symlink_to("../shared/LICENSE")
    (tree / "skill/shared").symlink_to(tree / "shared", target_is_directory=True)
    files = tree_files(tree / "skill", tree)
    assert [f.path for f in files] == ["LICENSE", "SKILL.md", "shared/LICENSE"]
    assert files[0].real == tree / "shared/LICENSE"
    (tree / "skill/secret").symlink_to(tmp_path / "outside/secret.txt")
    with pytest.raises(TreeRefused, match="secret is a symlink that leads outside the cloned tree"):
        tree_files(tree / "skill", tree)


def test_without_a_boundary_every_symlink_is_refused(tmp_path):
    skill = make(tmp_path / "s", {"SKILL.md": "x", "a.md": "a"})
    (skill / "b.md").symlink_to("a.md")
    with pytest.raises(TreeRefused, match=r"b\.md is a symlink; an installed copy holds none"):
        tree_files(skill)


def test_loops_fifos_and_size_limits_are_refused(tmp_path, monkeypatch):
    tree = make(tmp_path / "tree", {"skill/SKILL.md": "x"})
    (tree / "skill/up").symlink_to("..", target_is_directory=True)
    with pytest.raises(TreeRefused, match="symlink loop"):
        tree_files(tree / "skill", tree)
    os.unlink(tree / "skill/up")
    os.mkfifo(tree / "skill/pipe")
    with pytest.raises(TreeRefused, match="pipe is not a regular file"):
        tree_files(tree / "skill", tree)
    os.unlink(tree / "skill/pipe")
    monkeypatch.setattr("proxy.core.install.tree.MAX_SKILL_FILES", 1)
    make(tree / "skill", {"two.md": "2"})
    with pytest.raises(TreeRefused, match="more than 1 files"):
        tree_files(tree / "skill", tree)


def test_skill_folders_are_found_at_any_depth_but_not_below_a_skill(tmp_path):
    tree = make(tmp_path / "t", {
        "top-skill/SKILL.md": "x", "top-skill/examples/inner/SKILL.md": "not a skill of its own",
        "skills/pdf/SKILL.md": "x", ".claude/skills/review/SKILL.md": "x",
        ".git/x/SKILL.md": "x", "node_modules/pkg/SKILL.md": "x", ".skillproxy/sources/c/s/SKILL.md": "x",
        "docs/README.md": "no skill"})
    (tree / "linked").symlink_to(tree / "skills", target_is_directory=True)
    assert find_skill_folders(tree) == [".claude/skills/review", "skills/pdf", "top-skill"]
    assert find_skill_folders(tree / "top-skill") == [""]
    assert find_skill_folders(tmp_path / "missing") == []
