import json

from proxy.core.skill import Finding, Skill
from proxy.core.skill_loader import load_skill


def rules(skill):
    return [f.rule for f in skill.warnings]


def test_full_frontmatter(make_skill):
    folder = make_skill("release-notes", "---\nname: release-notes\ndescription: Write notes.\n"
                        "when_to_use: after a release\ntags: [git, docs]\ndisable-model-invocation: true\n"
                        "user-invocable: false\nallowed-tools: Read Grep\ncontext: fork\nmodel: gemma\n"
                        "argument-hint: '[version]'\nlicense: MIT\nmetadata: {owner: me}\n---\n# RN\n## Steps\n",
                        files={"scripts/x.py": "print(1)"})
    skill = load_skill(folder, "skills")
    assert isinstance(skill, Skill)
    assert (skill.name, skill.description, skill.when_to_use) == ("release-notes", "Write notes.", "after a release")
    assert skill.tags == ("git", "docs") and skill.allowed_tools == ("Read", "Grep")
    assert not skill.model_invocable and not skill.user_invocable
    assert (skill.context, skill.model, skill.argument_hint, skill.license) == ("fork", "gemma", "[version]", "MIT")
    assert skill.metadata == {"owner": "me"} and skill.has_supporting_files
    assert skill.headings == ("RN", "Steps")
    assert skill.routing_description == "Write notes.\nafter a release"
    assert skill.warnings == ()


def test_missing_name_falls_back_to_folder(make_skill):
    skill = load_skill(make_skill("ruff", "---\ndescription: Lint Python.\n---\n"), "r")
    assert skill.name == "ruff" and rules(skill) == ["name-missing"]
    assert skill.warnings[0].location.endswith("ruff/SKILL.md")


def test_missing_description_falls_back_to_first_paragraph(make_skill):
    skill = load_skill(make_skill("tool", "# Tool\n\nDoes useful things.\n"), "r")
    assert skill.description == "Does useful things."
    assert rules(skill) == ["no-frontmatter", "name-missing", "description-missing"]


def test_no_description_anywhere_is_skipped_with_an_error(make_skill):
    finding = load_skill(make_skill("empty", "---\nname: empty\n---\n# Empty\n"), "r")
    assert isinstance(finding, Finding)
    assert finding.severity == "error" and finding.rule == "description-missing"
    assert finding.location.endswith("empty/SKILL.md")


def test_manifest_fills_missing_fields(make_skill):
    folder = make_skill("pdf", "# PDF\n", files={"skill.json": json.dumps({"name": "pdf", "description": "PDF tools", "tags": ["pdf"]})})
    skill = load_skill(folder, "r")
    assert (skill.name, skill.description, skill.tags) == ("pdf", "PDF tools", ("pdf",))
    assert "manifest-fallback" in rules(skill)


def test_spec_rules_are_warnings(make_skill):
    text = "---\nname: Bad--Name\ndescription: '" + "x" * 1100 + " <T>'\ncompatibility: '" + "y" * 600 + "'\nfoo: 1\ncontext: weird\n---\n"
    skill = load_skill(make_skill("folder", text), "r")
    assert set(rules(skill)) == {"name-format", "name-hyphens", "name-folder-mismatch", "description-length",
                                 "description-angle-brackets", "compatibility-length", "unknown-key", "context-value"}
    assert skill.context is None


def test_unicode_name_allowed_after_nfkc(make_skill):
    skill = load_skill(make_skill("数据-分析", "---\nname: 数据-分析\ndescription: 分析数据\n---\n"), "r")
    assert skill.warnings == ()


def test_invalid_utf8_and_oversized_files_load_with_warnings(make_skill, tmp_path):
    folder = make_skill("big", "")
    head = b"---\nname: big\ndescription: big file \xff\n---\n# Big\n"
    (folder / "SKILL.md").write_bytes(head + "é".encode() * 200_000)
    skill = load_skill(folder, "r", max_bytes=10_000)
    assert set(rules(skill)) >= {"file-truncated", "invalid-utf8"}
    assert skill.description.startswith("big file")


def test_unreadable_skill_is_an_error(make_skill):
    folder = make_skill("gone", "---\nname: gone\ndescription: d\n---\n")
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").mkdir()
    finding = load_skill(folder, "r")
    assert isinstance(finding, Finding) and finding.rule == "unreadable" and finding.severity == "error"
