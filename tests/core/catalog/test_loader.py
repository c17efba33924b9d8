import codecs
import json

from proxy.core.catalog.files import looks_binary, read_capped
from proxy.core.catalog.loader import MAX_FINDING_CHARS, MAX_FINDINGS_PER_RULE, MAX_KEPT_DESCRIPTION_CHARS, load_skill
from proxy.core.catalog.skill import Finding, Skill


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
    manifest = json.dumps({"name": "pdf", "description": "PDF tools", "tags": ["pdf"]})
    folder = make_skill("pdf", "# PDF\n", files={"skill.json": manifest})
    skill = load_skill(folder, "r")
    assert (skill.name, skill.description, skill.tags) == ("pdf", "PDF tools", ("pdf",))
    assert "manifest-fallback" in rules(skill)


def test_spec_rules_are_warnings(make_skill):
    text = ("---\nname: Bad--Name\ndescription: '" + "x" * 1100 + " <T>'\ncompatibility: '" + "y" * 600
            + "'\nfoo: 1\ncontext: weird\n---\n")
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


# ---- hostile files: skipped or loaded with a warning, never raised ----

GOOD = "---\nname: {name}\ndescription: {desc}\n---\n# Title\n\nBody text.\n"


def write_bytes_skill(make_skill, folder, data):
    base = make_skill(folder, "")
    (base / "SKILL.md").write_bytes(data)
    return base


def test_binary_skill_files_are_skipped_with_a_reason(make_skill):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20
    no_nul = bytes(range(1, 256)) * 40  # binary without a single NUL byte
    nul_in_text = GOOD.format(name="nul", desc="d").encode().replace(b"Body", b"Bo\x00dy")
    for folder, data in {"png": png, "no-nul": no_nul, "nul": nul_in_text}.items():
        finding = load_skill(write_bytes_skill(make_skill, folder, data), "r")
        assert isinstance(finding, Finding), folder
        assert (finding.rule, finding.severity) == ("unreadable", "error")
        assert "binary" in finding.message and finding.location.endswith(f"{folder}/SKILL.md")


def test_utf16_with_a_byte_order_mark_is_decoded_with_a_warning(make_skill):
    text = GOOD.format(name="wide", desc="Saved as Unicode by Notepad, é ü 漢字")
    for codec in ("utf-16-le", "utf-16-be"):
        bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
        skill = load_skill(write_bytes_skill(make_skill, "wide", bom + text.encode(codec)), "r")
        assert isinstance(skill, Skill) and skill.name == "wide"
        assert skill.description == "Saved as Unicode by Notepad, é ü 漢字"
        assert rules(skill) == ["invalid-utf8"] and "UTF-16" in skill.warnings[0].message


def test_utf16_over_the_cap_keeps_a_clean_head_and_tail(make_skill):
    text = GOOD.format(name="wide", desc="long one") + "漢字 text\n" * 30_000 + "THE END"
    skill_file = write_bytes_skill(make_skill, "wide", codecs.BOM_UTF16_LE + text.encode("utf-16-le")) / "SKILL.md"
    for cap in (10_000, 10_001):  # the tail starts on an even and on an odd byte
        read = read_capped(skill_file, cap)
        assert read.truncated and read.encoding == "utf-16-le" and not read.had_invalid_utf8
        assert read.text.startswith("---\nname: wide") and read.text.endswith("THE END")
        assert not looks_binary(read.text)


def test_skill_md_that_is_not_a_regular_file_is_unreadable_and_never_blocks(make_skill, tmp_path):
    import os
    folders = {"dangling": None, "fifo": None, "device": None, "loop": None}
    for folder in folders:
        folders[folder] = make_skill(folder, "")
        (folders[folder] / "SKILL.md").unlink()
    os.symlink(tmp_path / "nowhere.md", folders["dangling"] / "SKILL.md")
    os.mkfifo(folders["fifo"] / "SKILL.md")  # opening it for reading would wait for a writer forever
    os.symlink("/dev/zero", folders["device"] / "SKILL.md")  # reading it would never end
    os.symlink("SKILL.md", folders["loop"] / "SKILL.md")
    for folder, path in folders.items():
        finding = load_skill(path, "r")
        assert isinstance(finding, Finding) and finding.rule == "unreadable", folder
        assert finding.location.endswith(f"{folder}/SKILL.md") and "cannot read SKILL.md" in finding.message


def test_huge_manifest_is_refused_not_read_whole(make_skill):
    manifest = '{"description": "' + "x" * 300_000 + '"}'
    folder = make_skill("m", "# M\n\nFirst paragraph.\n", files={"skill.json": manifest})
    skill = load_skill(folder, "r", max_bytes=10_000)
    assert isinstance(skill, Skill) and skill.description == "First paragraph."
    [invalid] = [f for f in skill.warnings if f.rule == "manifest-invalid"]
    assert "over the 10000-byte cap" in invalid.message


def test_description_name_and_metadata_are_kept_usable(make_skill):
    long_name = "n" * 300
    text = (f"---\nname: {long_name}\ndescription: '{'word ' * 2000}'\n"
            "metadata: {released: 2024-05-01, ratio: .nan, 7: seven, nested: {when: 2024-05-01 10:00:00}}\n---\n")
    skill = load_skill(make_skill("usable", text), "r")
    assert skill.name == "usable"  # a 300-character name cannot be typed as $name: the folder name is used
    assert len(skill.description) <= MAX_KEPT_DESCRIPTION_CHARS + 2 and skill.description.endswith("…")
    assert {"name-length", "description-length"} <= set(rules(skill))
    assert json.loads(json.dumps(skill.metadata, allow_nan=False)) == {
        "released": "2024-05-01", "ratio": "nan", "7": "seven", "nested": {"when": "2024-05-01T10:00:00"}}


def test_warnings_are_capped_per_rule(make_skill):
    keys = "k" * 1000 + ": long key\n" + "".join(f"extra-key-{i}: value\n" for i in range(499))
    skill = load_skill(make_skill("keys", "---\nname: keys\ndescription: d\n" + keys + "---\n"), "r")
    unknown = [f for f in skill.warnings if f.rule == "unknown-key"]
    assert len(unknown) == MAX_FINDINGS_PER_RULE + 1
    assert unknown[-1].message == f"... and {500 - MAX_FINDINGS_PER_RULE} more unknown-key findings like these"
    assert all(len(f.message) <= MAX_FINDING_CHARS for f in skill.warnings)


def test_permissions_that_forbid_reading(make_skill, tmp_path):
    """chmod 000 on SKILL.md and on a skill folder. Root reads them anyway (os.access says so): then they load."""
    import os

    from proxy.core.catalog.catalog import load_catalog
    make_skill("locked-file", GOOD.format(name="locked-file", desc="d"))
    make_skill("locked-folder", GOOD.format(name="locked-folder", desc="d"))
    locked_file, locked_folder = tmp_path / "skills" / "locked-file" / "SKILL.md", tmp_path / "skills" / "locked-folder"
    locked_file.chmod(0)
    locked_folder.chmod(0)
    try:
        readable = os.access(locked_file, os.R_OK) and os.access(locked_folder, os.R_OK | os.X_OK)
        catalog = load_catalog([tmp_path / "skills"])
    finally:
        locked_folder.chmod(0o755)
        locked_file.chmod(0o644)
    if readable:  # running as root: permissions do not stop reads, so nothing is skipped
        assert catalog.names == ("locked-file", "locked-folder") and catalog.skipped == ()
    else:
        assert catalog.names == ()
        assert {(f.rule, "Permission denied" in f.message) for f in catalog.skipped} == {("unreadable", True)}
        assert len(catalog.skipped) == 2
