"""`skillproxy list` and `skillproxy lint`, run as a user runs them: a subprocess."""

import json
import subprocess
import sys

import pytest

from tests.conftest import SHARED, corpus_roots


def skillproxy(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "proxy", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def root_args(roots):
    return [arg for root in roots for arg in ("--root", str(root))]


@pytest.mark.shared_corpus
def test_list_json_matches_the_corpus_index():
    result = skillproxy("list", "--json", *root_args(corpus_roots()))
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    index = [json.loads(line) for line in (SHARED / "corpus" / "index.jsonl").read_text().splitlines()]
    assert len(listed) == len(index) == 397
    by_place = {(r["root"].rsplit("/", 1)[-1], r["folder"].rsplit("/", 1)[-1]): r for r in listed}
    for entry in index:
        record = by_place[(entry["root"].rsplit("/", 1)[-1], entry["folder"])]
        assert (record["name"], record["description"]) == (entry["name"], entry["description"])
        assert record["has_supporting_files"] == entry["has_supporting_files"]
    shadowed = [r for r in listed if r["shadowed_by"]]
    assert [(r["name"], r["root"].rsplit("/", 1)[-1]) for r in shadowed] == [("skill-creator", "openai")]
    assert "anthropics/skill-creator" in shadowed[0]["shadowed_by"]
    for key in ("when_to_use", "location", "tags", "model_invocable", "user_invocable", "warnings"):
        assert key in listed[0]


@pytest.mark.shared_corpus
def test_lint_reports_every_malformed_folder_without_a_traceback():
    malformed = SHARED / "corpus" / "malformed"
    result = skillproxy("lint", "--root", str(malformed))
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode in (0, 1)
    lines = result.stdout.splitlines()
    for folder in (p.name for p in malformed.iterdir() if p.is_dir()):
        assert any(f"/{folder}/SKILL.md: " in line for line in lines), f"{folder} not named by lint"
    assert lines[-1].endswith("warnings") and lines[-1].startswith("13 skills, 0 errors")
    for expected_rule in ("yaml-invalid", "no-frontmatter", "frontmatter-in-code-fence", "utf8-bom",
                          "name-missing", "description-length", "description-angle-brackets"):
        assert any(f": {expected_rule}: " in line for line in lines), expected_rule


def test_lint_exit_codes(make_skill, tmp_path):
    make_skill("ok", "---\nname: ok\ndescription: fine\n---\n")
    clean = skillproxy("lint", "--root", str(tmp_path / "skills"))
    assert clean.returncode == 0 and clean.stdout.strip() == "1 skills, 0 errors, 0 warnings"
    make_skill("broken", "---\nname: broken\n---\n")
    broken = skillproxy("lint", "--root", str(tmp_path / "skills"))
    assert broken.returncode == 1
    assert "broken/SKILL.md: description-missing: " in broken.stdout
    assert broken.stdout.strip().endswith("2 skills, 1 errors, 0 warnings")
    assert skillproxy("lint", "--no-such-flag").returncode == 2
    assert skillproxy("lint", "--config", str(tmp_path / "missing.yaml")).returncode == 2


def test_lint_json(make_skill, tmp_path):
    make_skill("Bad", "---\nname: Bad\ndescription: d\n---\n")
    result = skillproxy("lint", "--json", "--root", str(tmp_path / "skills"))
    report = json.loads(result.stdout)
    assert report["skills"] == 1 and report["errors"] == 0
    assert {f["rule"] for f in report["findings"]} == {"name-format"}


def test_list_table_and_default_roots_from_the_repo(tmp_path):
    from tests.conftest import REPO
    result = skillproxy("list", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "NAME" in result.stdout.splitlines()[0]
    assert "skills from" in result.stdout
    empty = skillproxy("list", "--root", str(tmp_path / "nothing"))
    assert empty.returncode == 0 and "No skills found" in empty.stdout
