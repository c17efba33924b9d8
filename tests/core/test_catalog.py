import os

from proxy.core.catalog import load_catalog, skill_folders, watch_paths

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
