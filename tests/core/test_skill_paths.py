"""resolve_in_folder keeps every path inside its skill folder; list_files lists only what is inside.

The layout (built once per test in tmp_path):

    skills/pdf/                 the skill folder under attack
    skills/pdf-private/         a sibling whose name starts with "pdf" (a string-prefix trap)
    outside/secret.txt          a file outside every skill
    store/linked/               the real folder of skills/linked, a symlinked skill folder

Decisions the tests pin down: `....`, `...`, fullwidth `．．` and `‥` (U+2025) are
plain file names on POSIX, allowed but never outside the folder; only a component
that is exactly `..` is refused. Dot files resolve (listings skip them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.skill_paths import PathRefused, is_inside, list_files, real_folder, resolve_in_folder


def _link(link: Path, target: str | Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


@pytest.fixture
def world(tmp_path: Path, make_skill) -> dict[str, Path]:
    skills = tmp_path / "skills"
    pdf = make_skill("pdf", "---\nname: pdf\ndescription: PDF.\n---\n# PDF\n", root=skills, files={
        "references/guide.md": "guide", "scripts/run.py": "print(1)", "中文/说明.md": "说明", "a..b": "dots",
    })
    (skills / "pdf-private").mkdir()
    (skills / "pdf-private" / "secret.md").write_text("secret", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret", encoding="utf-8")
    _link(pdf / "leak.md", "../../outside/secret.txt")
    _link(pdf / "abs_leak.md", tmp_path / "outside" / "secret.txt")
    _link(pdf / "outdir", tmp_path / "outside")
    _link(pdf / "sibling", "../pdf-private")
    _link(pdf / "sibling_file", "../pdf-private/secret.md")
    _link(pdf / "chain1", "chain2")
    _link(pdf / "chain2", "chain3")
    _link(pdf / "chain3", "../pdf-private/secret.md")
    _link(pdf / "dangling", "/nonexistent-skillproxy-test/x")
    _link(pdf / "inner_link.md", "references/guide.md")
    _link(pdf / "references" / "up", "..")
    _link(pdf / "references" / "escape", "../..")
    _link(pdf / "scripts" / "deep", "../outdir")
    store = make_skill("linked", "---\nname: linked\ndescription: Linked.\n---\n", root=tmp_path / "store")
    _link(skills / "linked", store)
    return {"pdf": pdf, "skills": skills, "outside": tmp_path / "outside", "linked": skills / "linked", "store": store}


REFUSED = [
    # empty
    "", "   ", "\t",
    # parent components, anywhere
    "..", "../", "../x", "./../x", "a/../b", "a/../../x", "scripts/../../x", "references/../..",
    "a/" + "../" * 40 + "etc/passwd", "../pdf-private/secret.md", "./..", "x/..",
    # absolute, home, drive, UNC
    "/etc/passwd", "/", "//server/share/x", "~/.ssh/id_rsa", "~", "~root/x",
    "C:\\Windows", "C:/Windows/win.ini", "c:x", "a:b", "\\\\server\\share\\x",
    # backslashes
    "..\\..\\x", "references\\guide.md", "\\etc\\passwd",
    # percent-encoding, single and double
    "%2e%2e/x", "%2E%2E%2Fx", "..%2fx", "%252e%252e/x", "x%00.md", "references%2fguide.md", "%5c..%5cx",
    "%c0%ae%c0%ae/x",
    # control characters and lone surrogates
    "x\x00.md", "SKILL.md\x00", "x\n.md", "SKILL.md\r", "x\x7f", "x\x1b[31m", "\ud800",
    # too long
    "x/" * 600,
    # symlinks that lead outside: file, absolute, directory, sibling-prefix, chain, nested, dangling
    "leak.md", "abs_leak.md", "outdir", "outdir/secret.txt", "sibling", "sibling/secret.md", "sibling_file",
    "chain1", "chain2", "references/escape/pdf-private/secret.md", "references/escape", "dangling",
    "scripts/deep/secret.txt", "references/up/leak.md", "./leak.md", "references/../leak.md",
]

ALLOWED = [
    "SKILL.md", "./SKILL.md", "references/guide.md", "references//guide.md", "references/", "scripts/run.py",
    "中文/说明.md", "inner_link.md", "references/up/SKILL.md", "references/up/references/guide.md", ".", "a..b",
    "missing.md", "....", "....//x", "...", "..x", "x..", ".hidden", "．．/x", "\u2025/x", "\u2024\u2024/x",
    "%", "100%.md", "% 2e", "C", "x~", "notes:v2.md",
]


def test_there_are_at_least_35_attack_paths():
    assert len(REFUSED) >= 35


@pytest.mark.parametrize("relative", REFUSED)
def test_attack_paths_are_refused(world, relative):
    with pytest.raises(PathRefused) as refused:
        resolve_in_folder(world["pdf"], relative)
    assert str(refused.value)


@pytest.mark.parametrize("relative", ALLOWED)
def test_plain_paths_resolve_inside_the_folder(world, relative):
    resolved = resolve_in_folder(world["pdf"], relative)
    assert is_inside(resolved, real_folder(world["pdf"]))


@pytest.mark.parametrize("relative, expected", [
    ("SKILL.md", "SKILL.md"), ("./SKILL.md", "SKILL.md"), ("references/guide.md", "references/guide.md"),
    ("inner_link.md", "references/guide.md"), ("references/up/SKILL.md", "SKILL.md"),
    ("中文/说明.md", "中文/说明.md"),
    (".", ""),
])
def test_resolved_path_is_the_real_file(world, relative, expected):
    assert resolve_in_folder(world["pdf"], relative) == real_folder(world["pdf"]) / expected


def test_an_absolute_path_to_a_file_inside_is_still_refused(world):
    with pytest.raises(PathRefused, match="absolute paths are not allowed"):
        resolve_in_folder(world["pdf"], str(world["pdf"] / "SKILL.md"))


@pytest.mark.parametrize("relative, reason", [
    ("", "empty"), ("/etc/passwd", "absolute paths are not allowed; give a path relative to the skill folder"),
    ("~/.ssh/id_rsa", "home"), ("C:/x", "drive"), ("a\\b", "backslashes"), ("%2e%2e/x", "encoded characters"),
    ("a/../b", "'..' is not allowed"), ("x\x00", "control characters"),
    ("leak.md", "leak.md is a symlink that leads outside the skill folder"),
    ("outdir/secret.txt", "outdir is a symlink that leads outside the skill folder"),
    ("references/escape/pdf-private/secret.md", "references/escape is a symlink that leads outside"),
    ("chain1", "chain1 is a symlink that leads outside"),
])
def test_refusals_say_why(world, relative, reason):
    with pytest.raises(PathRefused, match=re.escape(reason)):
        resolve_in_folder(world["pdf"], relative)


def test_a_sibling_sharing_the_name_prefix_is_outside(world):
    sibling_real = real_folder(world["skills"] / "pdf-private")
    assert str(sibling_real).startswith(str(real_folder(world["pdf"])))  # the string-prefix trap exists
    assert not is_inside(sibling_real / "secret.md", real_folder(world["pdf"]))
    with pytest.raises(PathRefused, match="sibling is a symlink that leads outside"):
        resolve_in_folder(world["pdf"], "sibling/secret.md")


def test_a_symlinked_skill_folder_is_resolved_from_its_real_folder(world):
    resolved = resolve_in_folder(world["linked"], "SKILL.md")
    assert resolved == real_folder(world["store"]) / "SKILL.md"
    with pytest.raises(PathRefused):
        resolve_in_folder(world["linked"], "../pdf/SKILL.md")


def test_unicode_names_resolve(world):
    assert resolve_in_folder(world["pdf"], "中文/说明.md").read_text(encoding="utf-8") == "说明"


@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("fuzz")
    folder = base / "skill"
    (folder / "sub").mkdir(parents=True)
    _link(folder / "out", base)
    return folder


@settings(max_examples=300, deadline=None)
@given(relative=st.one_of(st.text(), st.text(alphabet="./\\%2e~:ab\x00")))
def test_any_text_is_refused_or_stays_inside(fuzz_folder, relative):
    folder = fuzz_folder
    try:
        resolved = resolve_in_folder(folder, relative)
    except PathRefused as refused:
        assert str(refused)
    else:
        assert is_inside(resolved, real_folder(folder))


def _listed(world, start: str = "", max_entries: int = 200, max_depth: int = 4) -> list[str]:
    folder = world["pdf"]
    begin = resolve_in_folder(folder, start) if start else real_folder(folder)
    return [f.path for f in list_files(folder, begin, max_entries, max_depth).files]


def test_listing_keeps_inside_files_and_omits_escapes(world):
    listed = _listed(world)
    assert "SKILL.md" in listed and "references/guide.md" in listed and "中文/说明.md" in listed
    assert "inner_link.md" in listed
    for escape in ("leak.md", "abs_leak.md", "sibling_file", "chain1", "dangling"):
        assert escape not in listed
    assert not any(p.startswith(("outdir/", "sibling/", "references/escape/", "scripts/deep/")) for p in listed)
    assert listed == sorted(listed)


def test_listing_opens_a_folder_reached_twice_only_once(world):
    listed = _listed(world)
    assert not any(p.startswith("references/up/") for p in listed)  # up -> the skill folder itself
    assert len(listed) == len(set(listed))
