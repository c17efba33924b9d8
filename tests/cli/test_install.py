"""`skillproxy add`, `update`, `remove` and `list`, run as a user runs them, on real git repositories.

Each test makes its own repository (tests/git_skill_repo.py) and fetches it from a bare clone
over `file://`: no network. HOME is a folder of the test, so nothing of the user's git
configuration is read and anything written there would be seen.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proxy.core.install.tree import file_digests, tree_files, tree_sha256
from tests.conftest import REPO
from tests.git_skill_repo import GOOD, NESTED, SkillRepo, git

CHANGED_GOOD = GOOD + "2. Check the VAT rate against references/rates.md.\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def repo(tmp_path: Path) -> SkillRepo:
    return SkillRepo(tmp_path / "src")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "root"


@pytest.fixture
def sp(tmp_path: Path, home: Path):
    """Run `python -m proxy ARGS` from tmp_path with HOME=home and no SKILLPROXY_* variables."""
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLPROXY_", "GIT_"))}
        env.update(HOME=str(home), PYTHONPATH=str(REPO), COLUMNS="200")
        return subprocess.run([sys.executable, "-m", "proxy", *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
    return run


def lock_of(root: Path) -> dict:
    return json.loads((root / "skills-lock.json").read_text())


def digest(folder: Path, boundary: Path | None = None) -> str:
    return tree_sha256(file_digests(tree_files(folder, boundary)))


def line_of(output: str, label: str, name: str) -> str:
    [line] = [line for line in output.splitlines() if re.match(rf"^\s+{label}\s+{name}\s", line)]
    return line


def test_add_from_a_file_url_installs_what_lints_and_says_why_the_rest_was_refused(sp, repo, root, tmp_path):
    result = sp("add", repo.url, "--root", str(root))
    assert result.returncode == 1, result.stderr  # two skills refused
    out = result.stdout
    assert out.startswith(f"{repo.url} at {repo.head[:7]}: 4 skill(s) found\n")
    assert "from invoice-audit" in line_of(out, "installed", "invoice-audit")
    assert "from skills/pdf-forms" in line_of(out, "installed", "pdf-forms")
    assert "lint error: description-missing: no description" in line_of(out, "refused", "broken")
    assert "secret.txt is a symlink that leads outside the cloned tree" in line_of(out, "refused", "escape")
    assert f"2 installed, 2 refused in {root} (skills-lock.json)" in out
    assert sorted(p.name for p in root.iterdir()) == [".skillproxy", "invoice-audit", "pdf-forms", "skills-lock.json"]
    assert (root / "invoice-audit/SKILL.md").read_text() == GOOD
    assert (root / "pdf-forms/SKILL.md").read_text() == NESTED
    assert os.access(root / "invoice-audit/scripts/run.sh", os.X_OK)
    assert not list(tmp_path.rglob("ran-a-skill-script")), "installing ran a script of the skill"
    assert sp("lint", "--root", str(root)).returncode == 0


def test_the_lock_records_source_commit_and_a_digest_of_the_installed_files(sp, repo, root):
    sp("add", repo.url, "--root", str(root))
    lock = lock_of(root)
    assert lock["version"] == 1 and sorted(lock["skills"]) == ["invoice-audit", "pdf-forms"]
    entry = lock["skills"]["pdf-forms"]
    assert {k: entry[k] for k in ("source", "url", "ref", "subpath", "commit", "mode")} == {
        "source": repo.url, "url": repo.url, "ref": None, "subpath": "skills/pdf-forms", "commit": repo.head,
        "mode": "copy"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["installed_at"])
    for name in ("invoice-audit", "pdf-forms"):
        assert lock["skills"][name]["sha256"] == digest(root / name)
    assert (root / "skills-lock.json").stat().st_mode & 0o777 == 0o644


def test_add_from_a_local_folder_and_a_subpath_and_with_skill(sp, repo, root):
    folder = sp("add", str(repo.work), "--skill", "invoice-audit", "--root", str(root))
    assert folder.returncode == 0, folder.stdout + folder.stderr
    assert folder.stdout.startswith(f"{repo.work}: 4 skill(s) found")
    entry = lock_of(root)["skills"]["invoice-audit"]
    assert (entry["url"], entry["commit"], entry["subpath"]) == (str(repo.work), None, "invoice-audit")
    assert not (root / "pdf-forms").exists()

    sub = sp("add", f"{repo.url}//skills", "--root", str(root))
    assert sub.returncode == 0, sub.stdout
    assert "1 skill(s) found under skills" in sub.stdout
    assert lock_of(root)["skills"]["pdf-forms"]["subpath"] == "skills/pdf-forms"
    assert sorted(lock_of(root)["skills"]) == ["invoice-audit", "pdf-forms"]


def test_skill_names_unknown_to_the_source_install_nothing(sp, repo, root):
    result = sp("add", repo.url, "--skill", "pdf-forms", "--skill", "nope", "--root", str(root))
    assert result.returncode == 1
    assert "no skill named nope; it has: broken, escape, invoice-audit, pdf-forms" in result.stderr
    assert not (root / "pdf-forms").exists() and not (root / "skills-lock.json").exists()


def test_add_again_from_the_same_source_is_an_update(sp, repo, root):
    sp("add", repo.url, "--skill", "invoice-audit", "--root", str(root))
    again = sp("add", repo.url, "--skill", "invoice-audit", "--root", str(root))
    assert again.returncode == 0 and f"invoice-audit  {repo.head[:7]}" in line_of(again.stdout, "up to date",
                                                                                   "invoice-audit")
    repo.commit({"invoice-audit/SKILL.md": CHANGED_GOOD})
    moved = sp("add", repo.url, "--skill", "invoice-audit", "--root", str(root))
    assert "1 changed (SKILL.md)" in line_of(moved.stdout, "updated", "invoice-audit")


def test_update_after_a_new_commit_shows_the_changes_and_moves_the_lock(sp, repo, root):
    sp("add", repo.url, "--root", str(root))
    old = repo.head
    new = repo.commit({"invoice-audit/SKILL.md": CHANGED_GOOD, "invoice-audit/references/rates.md": "DE 19 %\n"},
                      remove=("invoice-audit/scripts/run.sh",))
    result = sp("update", "--root", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"{repo.url} at {new[:7]} ({root})\n")
    assert line_of(result.stdout, "updated", "invoice-audit").endswith(
        f"{old[:7]} -> {new[:7]}: 1 changed (SKILL.md), 1 added (references/rates.md), 1 removed (scripts/run.sh)")
    assert line_of(result.stdout, "up to date", "pdf-forms").endswith(
        f"{new[:7]} (no file changed since {old[:7]})")
    assert (root / "invoice-audit/SKILL.md").read_text() == CHANGED_GOOD
    assert not (root / "invoice-audit/scripts").exists()
    lock = lock_of(root)["skills"]
    assert lock["invoice-audit"]["commit"] == lock["pdf-forms"]["commit"] == new
    assert lock["invoice-audit"]["sha256"] == digest(root / "invoice-audit")
    again = sp("update", "invoice-audit", "--root", str(root))
    assert again.returncode == 0 and again.stdout.splitlines()[-1] == "1 up to date"


def test_a_hand_edit_is_marked_by_list_and_kept_by_update_unless_forced(sp, repo, root):
    sp("add", repo.url, "--root", str(root))
    edited = GOOD + "My own note.\n"
    (root / "invoice-audit/SKILL.md").write_text(edited)
    table = sp("list", "--root", str(root)).stdout
    assert re.search(rf"^invoice-audit\s+mu\s+0\s+MODIFIED\s+\S*/bare.git@{repo.head[:7]}\s", table, re.M)
    assert re.search(r"^pdf-forms\s+mu\s+0\s+ok\s+", table, re.M)
    records = {r["name"]: r["installed"] for r in json.loads(sp("list", "--json", "--root", str(root)).stdout)}
    assert records["invoice-audit"]["matches_lock"] is False and records["pdf-forms"]["matches_lock"] is True
    assert records["invoice-audit"]["change"] == "its files no longer match skills-lock.json"

    repo.commit({"invoice-audit/SKILL.md": CHANGED_GOOD})
    kept = sp("update", "--root", str(root))
    assert kept.returncode == 1
    assert "(edited by hand?); --force overwrites them" in line_of(kept.stdout, "skipped", "invoice-audit")
    assert (root / "invoice-audit/SKILL.md").read_text() == edited
    forced = sp("update", "--force", "invoice-audit", "--root", str(root))
    assert forced.returncode == 0 and "--force: overwrote the edits" in forced.stdout
    assert (root / "invoice-audit/SKILL.md").read_text() == CHANGED_GOOD
    assert re.search(r"^invoice-audit\s+mu\s+0\s+ok\s+", sp("list", "--root", str(root)).stdout, re.M)


def test_remove_deletes_the_folder_and_its_lock_entry_only(sp, repo, root):
    sp("add", repo.url, "--root", str(root))
    removed = sp("remove", "pdf-forms", "--root", str(root))
    assert removed.returncode == 0 and f"removed     pdf-forms  from {root}" in removed.stdout
    assert not (root / "pdf-forms").exists() and (root / "invoice-audit/SKILL.md").is_file()
    assert list(lock_of(root)["skills"]) == ["invoice-audit"]
    assert sp("remove", "pdf-forms", "--root", str(root)).returncode == 1

    (root / "invoice-audit/SKILL.md").write_text("edited")
    kept = sp("remove", "invoice-audit", "--root", str(root))
    assert kept.returncode == 1 and "--force removes it anyway" in kept.stdout
    assert sp("remove", "invoice-audit", "--force", "--root", str(root)).returncode == 0
    assert not (root / "invoice-audit").exists() and lock_of(root)["skills"] == {}


def test_a_folder_not_installed_by_add_or_from_another_source_is_refused_unless_forced(sp, repo, root, tmp_path):
    (root / "pdf-forms").mkdir(parents=True)
    (root / "pdf-forms/SKILL.md").write_text("---\nname: pdf-forms\ndescription: mine\n---\n")
    refused = sp("add", f"{repo.url}//skills", "--root", str(root))
    assert refused.returncode == 1 and "does not list; --force replaces it" in refused.stdout
    assert "mine" in (root / "pdf-forms/SKILL.md").read_text()
    assert sp("add", f"{repo.url}//skills", "--force", "--root", str(root)).returncode == 0
    assert (root / "pdf-forms/SKILL.md").read_text() == NESTED

    other = SkillRepo(tmp_path / "other")
    elsewhere = sp("add", f"{other.url}//skills", "--root", str(root))
    assert elsewhere.returncode == 1 and f"already installed from {repo.url} (skills/pdf-forms)" in elsewhere.stdout


def test_link_keeps_one_clone_per_commit_that_the_catalog_does_not_read_twice(sp, repo, root):
    added = sp("add", repo.url, "--link", "--skill", "invoice-audit", "--skill", "pdf-forms", "--root", str(root))
    assert added.returncode == 0, added.stdout + added.stderr
    [clone] = (root / ".skillproxy/sources").iterdir()
    assert os.readlink(root / "pdf-forms") == f".skillproxy/sources/{clone.name}/skills/pdf-forms"
    assert lock_of(root)["skills"]["pdf-forms"]["mode"] == "link"
    assert lock_of(root)["skills"]["pdf-forms"]["sha256"] == digest(root / "pdf-forms", clone)
    listed = json.loads(sp("list", "--json", "--root", str(root)).stdout)
    assert [r["name"] for r in listed] == ["invoice-audit", "pdf-forms"]
    assert all(r["installed"]["matches_lock"] for r in listed)

    new = repo.commit({"skills/pdf-forms/SKILL.md": NESTED + "More steps.\n"})
    updated = sp("update", "--root", str(root))
    assert "1 changed (SKILL.md)" in line_of(updated.stdout, "updated", "pdf-forms")
    [clone] = (root / ".skillproxy/sources").iterdir()  # the old commit's clone is gone
    assert clone.name.endswith(new[:12]) and (root / "pdf-forms/SKILL.md").read_text().endswith("More steps.\n")
    assert sp("remove", "pdf-forms", "invoice-audit", "--root", str(root)).returncode == 0
    assert list((root / ".skillproxy/sources").iterdir()) == []


def test_a_branch_and_a_repository_that_is_one_skill(sp, tmp_path, root):
    work = tmp_path / "one"
    work.mkdir()
    git("init", "-q", cwd=work)
    (work / "SKILL.md").write_text("---\nname: changelog\ndescription: Write a changelog entry\n---\n# Changelog\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "one", cwd=work)
    git("checkout", "-q", "-b", "beta", cwd=work)
    (work / "SKILL.md").write_text("---\nname: changelog\ndescription: Write a beta changelog entry\n---\n")
    git("commit", "-q", "-am", "beta", cwd=work)
    result = sp("add", f"{work.as_uri()}#main", "--root", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert line_of(result.stdout, "installed", "changelog").endswith("from .")
    assert "beta" not in (root / "changelog/SKILL.md").read_text()
    assert not (root / "changelog/.git").exists()
    beta = sp("add", f"{work.as_uri()}#beta", "--root", str(root))
    assert beta.returncode == 1 and f"already installed from {work.as_uri()} (.)" in beta.stdout


def test_bad_usage_exits_2_and_fetch_failures_exit_1(sp, repo, root, tmp_path):
    for args, message in ((["ext::sh -c touch% x"], "only https, http, ssh, git and file"),
                          (["./folder", "--link"], "--link needs a git source"),
                          ([repo.url, "--copy", "--link"], "not allowed with argument"),
                          ([repo.url, "--root", str(tmp_path / "no/such/parent")], "cannot make the folder")):
        result = sp("add", *args, *(["--root", str(root)] if "--root" not in args else []))
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
    missing = sp("add", (tmp_path / "nowhere.git").as_uri(), "--root", str(root))
    assert missing.returncode == 1
    assert re.search(r"git clone file://\S+/nowhere.git failed \(exit 128\): .*does not appear to be a git "
                     "repository", missing.stderr)
    assert "note:" not in missing.stdout
    assert sp("update", "nope", "--root", str(root)).returncode == 1


def test_without_root_the_first_writable_configured_root_is_used(sp, repo, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(f"roots: [{tmp_path / 'absent'}, {tmp_path / 'second'}, {tmp_path / 'third'}]\n")
    (tmp_path / "second").mkdir()
    (tmp_path / "third").mkdir()
    result = sp("add", f"{repo.url}//skills", "--config", str(config))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "second/pdf-forms/SKILL.md").is_file() and "note:" not in result.stdout
    assert sp("update", "--config", str(config)).stdout.splitlines()[-1] == "1 up to date"
    assert sp("remove", "pdf-forms", "--config", str(config)).returncode == 0


def snapshot(base: Path, skip: Path) -> dict[str, tuple[str, int, int]]:
    """Every path under `base` but `skip`: its kind, size and modification time."""
    seen = {}
    for path in base.rglob("*"):
        if path == skip or skip in path.parents:
            continue
        info = path.lstat()
        seen[str(path.relative_to(base))] = (oct(info.st_mode), info.st_size, info.st_mtime_ns)
    return seen


def test_nothing_is_written_outside_the_root_and_no_hook_runs(sp, repo, root, home, tmp_path):
    marker = tmp_path / "hook-ran"
    hook = f"#!/bin/sh\necho ran >> {marker}\n"
    for folder in (home / "hooks", home / "template/hooks"):
        folder.mkdir(parents=True)
        (folder / "post-checkout").write_text(hook)
        (folder / "post-checkout").chmod(0o755)
    (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {home / 'hooks'}\n"
                                     f"[init]\n\ttemplateDir = {home / 'template'}\n")
    root.mkdir()
    before = snapshot(tmp_path, root)
    assert sp("add", repo.url, "--root", str(root)).returncode == 1
    assert snapshot(tmp_path, root) == before
    repo.commit({"invoice-audit/SKILL.md": CHANGED_GOOD})
    before = snapshot(tmp_path, root)  # the commit changed the repository, not the install
    assert sp("update", "--root", str(root)).returncode == 0
    assert sp("add", repo.url, "--link", "--force", "--skill", "pdf-forms", "--root", str(root)).returncode == 0
    assert sp("list", "--root", str(root)).returncode == 0
    assert sp("remove", "invoice-audit", "pdf-forms", "--root", str(root)).returncode == 0
    assert snapshot(tmp_path, root) == before
    assert not marker.exists()
    assert lock_of(root)["skills"] == {}

    env = {**os.environ, "HOME": str(home)}  # the hooks are real: a plain clone runs them
    subprocess.run(["git", "clone", "-q", repo.url, str(tmp_path / "plain")], env=env, check=True)
    assert marker.read_text().count("ran") == 1
