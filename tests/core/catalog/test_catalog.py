import json
import os
import shutil
import time
from pathlib import Path

import pytest

from proxy.core.catalog.catalog import load_catalog, skill_folders, watch_paths
from tests.conftest import SHARED

SKILL = "---\nname: {name}\ndescription: {desc}\n---\n# {name}\n"


def test_roots_in_order_earlier_wins_and_loser_is_shadowed(make_skill, tmp_path):
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    make_skill("pdf", SKILL.format(name="pdf", desc="first"), root=r1)
    make_skill("pdf", SKILL.format(name="pdf", desc="second"), root=r2)
    make_skill("docx", SKILL.format(name="docx", desc="word"), root=r2)
    catalog = load_catalog([r1, r2])
    assert catalog.names == ("pdf", "docx")
    assert catalog.get("pdf").description == "first"
    [entry] = catalog.shadowed
    assert entry.skill.description == "second" and entry.winner is catalog.get("pdf")
    assert [f.rule for f in catalog.findings()] == ["shadowed"]
    assert len(catalog.all_skills()) == 3


def test_lookup_exact_then_case_insensitive_then_folder(make_skill, tmp_path):
    make_skill("postgresql", SKILL.format(name="postgresql-table-design", desc="pg"))
    make_skill("Mixed", SKILL.format(name="Mixed", desc="m"))
    catalog = load_catalog([tmp_path / "skills"])
    assert catalog.get("postgresql-table-design").name == "postgresql-table-design"
    assert catalog.get("POSTGRESQL-table-design") is catalog.get("postgresql-table-design")
    assert catalog.get("postgresql").name == "postgresql-table-design"
    assert catalog.get("mixed").name == "Mixed"
    assert catalog.get("nothing") is None


def test_discovery_skips_dot_folders_node_modules_and_plain_folders(make_skill, tmp_path):
    root = tmp_path / "skills"
    for folder in (".hidden", "node_modules", ".git", "good"):
        make_skill(folder, SKILL.format(name=folder, desc="d"))
    (root / "no-skill-md").mkdir()
    (root / "file.txt").write_text("x")
    assert [p.name for p in skill_folders(root)] == ["good"]


def test_symlinked_skill_folders_are_followed(make_skill, tmp_path):
    target = make_skill("linked", SKILL.format(name="linked", desc="d"), root=tmp_path / "elsewhere")
    root = tmp_path / "skills"
    root.mkdir()
    os.symlink(target, root / "linked")
    catalog = load_catalog([root])
    assert catalog.names == ("linked",)
    assert target.resolve() in watch_paths(catalog)


def test_missing_root_is_skipped_silently(make_skill, tmp_path):
    make_skill("a", SKILL.format(name="a", desc="d"))
    catalog = load_catalog([tmp_path / "missing", tmp_path / "skills", "~/surely-not-here-xyz"])
    assert catalog.names == ("a",) and catalog.findings() == ()


def test_skipped_skill_is_reported_not_fatal(make_skill, tmp_path):
    make_skill("empty", "---\nname: empty\n---\n")
    make_skill("ok", SKILL.format(name="ok", desc="d"))
    catalog = load_catalog([tmp_path / "skills"])
    assert catalog.names == ("ok",)
    [error] = catalog.skipped
    assert error.severity == "error" and "empty" in error.location


# ---- malformed, unreadable and vanishing input ------------------------------

# the problem named by each malformed corpus folder -> the rule its warning must carry (None: tolerated silently)
MALFORMED_RULES = {
    "utf8-bom": "utf8-bom", "crlf": None, "missing-name": "name-missing", "no-frontmatter-bold-metadata":
    "no-frontmatter", "frontmatter-inside-code-fence": "frontmatter-in-code-fence", "description-too-long":
    "description-length", "description-too-long-block-scalar": "description-length", "name-folder-mismatch":
    "name-folder-mismatch", "description-angle-brackets": "description-angle-brackets",
}


@pytest.mark.shared_corpus
def test_every_malformed_corpus_skill_loads_with_a_warning_naming_its_file_and_reason():
    malformed = SHARED / "corpus" / "malformed"
    cases = [json.loads(line) for line in (malformed / "cases.jsonl").read_text().splitlines()]
    catalog = load_catalog([malformed])
    by_folder = {skill.folder_name: skill for skill in catalog.all_skills()}
    assert catalog.skipped == () and len(by_folder) == len(cases) == 13
    for case in cases:
        skill = by_folder[case["id"]]
        problem = case["id"].split("__")[0]
        expected = "yaml-invalid" if problem.startswith("yaml-") else MALFORMED_RULES[problem]
        found = {f.rule: f for f in skill.warnings}
        if expected is not None:
            assert expected in found, (case["id"], sorted(found))
            assert found[expected].message.strip()
        for finding in skill.warnings:
            assert finding.location.endswith(f"/{case['id']}/SKILL.md") and finding.severity == "warning"
        assert skill.description.strip() and "\r" not in skill.description
    print(f"malformed corpus: {len(cases)} folders, {len(catalog.skills)} loaded, {len(catalog.shadowed)} shadowed, "
          f"{len(catalog.skipped)} skipped, {len(catalog.findings())} findings")


def test_unreadable_entries_in_a_root_are_reported_and_the_rest_loads(make_skill, tmp_path):
    root = tmp_path / "skills"
    make_skill("good", SKILL.format(name="good", desc="fine"))
    for folder in ("is-a-folder", "fifo", "dangling"):
        (root / folder).mkdir(parents=True)
    (root / "is-a-folder" / "SKILL.md").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    os.symlink(tmp_path / "gone", root / "dangling" / "SKILL.md")
    os.symlink(root / "loop-a", root / "loop-b")  # a folder link loop: loop-b -> loop-a -> loop-b
    os.symlink(root / "loop-b", root / "loop-a")
    os.symlink(root, root / "self")  # a link back to the root: a folder without SKILL.md, not a skill
    os.symlink(tmp_path / "nowhere", root / "dangling-folder")  # a dangling folder link: not a skill
    catalog = load_catalog([root])
    assert catalog.names == ("good",)
    skipped = {Path(f.location).parent.name: f for f in catalog.skipped}
    assert sorted(skipped) == ["dangling", "fifo", "is-a-folder", "loop-a", "loop-b"]
    assert all(f.rule == "unreadable" and f.severity == "error" for f in skipped.values())
    assert "not a regular file" in skipped["fifo"].message
    assert "symbolic links" in skipped["loop-a"].message
    assert watch_paths(catalog) == (root,)


def test_a_root_that_vanishes_keeps_its_skills_until_it_is_back(make_skill, tmp_path):
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    make_skill("pdf", SKILL.format(name="pdf", desc="from r1"), root=r1)
    make_skill("pdf", SKILL.format(name="pdf", desc="from r2"), root=r2)
    make_skill("docx", SKILL.format(name="docx", desc="word"), root=r2)
    first = load_catalog([r1, r2])
    assert first.missing_roots == () and first.get("pdf").description == "from r1"
    r1.rename(tmp_path / "r1-moved")
    kept = load_catalog([r1, r2], previous=first)
    assert kept.missing_roots == (str(r1),) and kept.names == ("pdf", "docx")
    assert kept.get("pdf") is first.get("pdf") and len(kept.shadowed) == 1
    again = load_catalog([r1, r2], previous=kept)  # still gone: still kept
    assert again.missing_roots == (str(r1),) and again.get("pdf").description == "from r1"
    (tmp_path / "r1-moved").rename(r1)
    (r1 / "pdf" / "SKILL.md").write_text(SKILL.format(name="pdf", desc="edited while away"))
    back = load_catalog([r1, r2], previous=again)
    assert back.missing_roots == () and back.get("pdf").description == "edited while away"
    assert load_catalog([r1, r2]).missing_roots == ()  # without a previous catalog: skipped as always


def test_an_emptied_or_never_seen_root_keeps_nothing(make_skill, tmp_path):
    make_skill("a", SKILL.format(name="a", desc="d"))
    first = load_catalog([tmp_path / "skills", tmp_path / "never"])
    shutil.rmtree(tmp_path / "skills" / "a")
    emptied = load_catalog([tmp_path / "skills", tmp_path / "never"], previous=first)
    assert emptied.names == () and emptied.missing_roots == ()


def test_findings_with_hundreds_of_shadowed_skills(make_skill, tmp_path):
    for root in ("r1", "r2"):
        for i in range(400):
            make_skill(f"s{i}", SKILL.format(name=f"s{i}", desc="d"), root=tmp_path / root)
    catalog = load_catalog([tmp_path / "r1", tmp_path / "r2"])
    started = time.perf_counter()
    findings = catalog.findings()
    print(f"findings() over 400 skills + 400 shadowed: {(time.perf_counter() - started) * 1000:.0f} ms")
    assert len(findings) == 400 and {f.rule for f in findings} == {"shadowed"}
    entry = catalog.shadowed[7]
    assert catalog.shadowed_by(entry.skill) is entry.winner and catalog.shadowed_by(entry.winner) is None
