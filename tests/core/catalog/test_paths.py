"""resolve_in_folder keeps every path inside its skill folder; list_files lists only what is inside.

The world and the attack paths are tests/attack_paths.py (shared with the
integration suite, which runs the same list through the tool loop and HTTP):
skill `pdf` under a skill root whose every ancestor up to six levels holds a
marker, a sibling `pdf-private` sharing the name prefix, `outside/`, a marker
in /tmp, and symlinks out of `pdf` of every kind.

Decisions the tests pin down: `....`, `...`, fullwidth `．．` and `‥` (U+2025) are
plain file names on POSIX, allowed but never outside the folder; only a component
that is exactly `..` is refused. Dot files resolve (listings skip them).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.catalog.paths import PathRefused, is_inside, list_files, real_folder, resolve_in_folder
from tests import attack_paths
from tests.attack_paths import SECRET, World, plant


def _link(link: Path, target: str | Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    planted = plant(tmp_path)
    yield planted
    planted.remove_tmp_marker()


# Refused here; the tools strip whitespace around a path first, so there they mean SKILL.md.
REFUSED = ["", "   ", "\t", "SKILL.md\r", *attack_paths.REFUSED]

ALLOWED = [
    "SKILL.md", "./SKILL.md", "references/guide.md", "references//guide.md", "references/", "scripts/run.py",
    "中文/说明.md", "inner_link.md", "references/up/SKILL.md", "references/up/references/guide.md", ".", "a..b",
    "missing.md", "....", "....//x", "...", "..x", "x..", ".hidden", "．．/x", "\u2025/x", "\u2024\u2024/x",
    "%", "100%.md", "% 2e", "C", "x~", "notes:v2.md", *attack_paths.LOOKALIKES,
]


def test_there_are_at_least_60_attack_paths():
    assert len(attack_paths.ATTACKS) >= 60 and len(set(attack_paths.ATTACKS)) == len(attack_paths.ATTACKS)


@pytest.mark.parametrize("relative", REFUSED, ids=attack_paths.short_id)
def test_attack_paths_are_refused(world, relative):
    with pytest.raises(PathRefused) as refused:
        resolve_in_folder(world.pdf, relative)
    assert str(refused.value) and SECRET not in str(refused.value)


def test_absolute_paths_to_the_planted_markers_are_refused(world):
    for attack in world.absolute_attacks():
        with pytest.raises(PathRefused, match="absolute paths are not allowed"):
            resolve_in_folder(world.pdf, attack.path)


@pytest.mark.parametrize("relative", ALLOWED, ids=attack_paths.short_id)
def test_plain_paths_resolve_inside_the_folder(world, relative):
    resolved = resolve_in_folder(world.pdf, relative)
    assert is_inside(resolved, real_folder(world.pdf))


@pytest.mark.parametrize("relative, expected", [
    ("SKILL.md", "SKILL.md"), ("./SKILL.md", "SKILL.md"), ("references/guide.md", "references/guide.md"),
    ("inner_link.md", "references/guide.md"), ("references/up/SKILL.md", "SKILL.md"),
    ("中文/说明.md", "中文/说明.md"),
    (".", ""),
])
def test_resolved_path_is_the_real_file(world, relative, expected):
    assert resolve_in_folder(world.pdf, relative) == real_folder(world.pdf) / expected


def test_an_absolute_path_to_a_file_inside_is_still_refused(world):
    with pytest.raises(PathRefused, match="absolute paths are not allowed"):
        resolve_in_folder(world.pdf, str(world.pdf / "SKILL.md"))


@pytest.mark.parametrize("relative, reason", [
    ("", "empty"), ("/etc/passwd", "absolute paths are not allowed; give a path relative to the skill folder"),
    ("~/.ssh/id_rsa", "home"), ("C:/x", "drive"), ("a\\b", "backslashes"), ("%2e%2e/x", "encoded characters"),
    ("a/../b", "'..' is not allowed"), ("x\x00", "control characters"),
    ("leak.md", "leak.md is a symlink that leads outside the skill folder"),
    ("outdir/secret.txt", "outdir is a symlink that leads outside the skill folder"),
    ("references/escape/pdf-private/secret.txt", "references/escape is a symlink that leads outside"),
    ("tmp_leak.md", "tmp_leak.md is a symlink that leads outside"), ("parent/secret.txt", "parent is a symlink"),
    ("rootlink/etc/passwd", "rootlink is a symlink that leads outside"),
    ("chain1", "chain1 is a symlink that leads outside"),
])
def test_refusals_say_why(world, relative, reason):
    with pytest.raises(PathRefused, match=re.escape(reason)):
        resolve_in_folder(world.pdf, relative)


def test_a_sibling_sharing_the_name_prefix_is_outside(world):
    sibling_real = real_folder(world.sibling)
    assert str(sibling_real).startswith(str(real_folder(world.pdf)))  # the string-prefix trap exists
    assert not is_inside(sibling_real / "secret.txt", real_folder(world.pdf))
    with pytest.raises(PathRefused, match="sibling is a symlink that leads outside"):
        resolve_in_folder(world.pdf, "sibling/secret.txt")


def test_a_symlinked_skill_folder_is_resolved_from_its_real_folder(world):
    resolved = resolve_in_folder(world.linked, "SKILL.md")
    assert resolved == real_folder(world.store) / "SKILL.md"
    with pytest.raises(PathRefused):
        resolve_in_folder(world.linked, "../pdf/SKILL.md")


def test_unicode_names_resolve(world):
    assert resolve_in_folder(world.pdf, "中文/说明.md").read_text(encoding="utf-8") == "说明"


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


def _listed(world: World, start: str = "", max_entries: int = 200, max_depth: int = 4) -> list[str]:
    folder = world.pdf
    begin = resolve_in_folder(folder, start) if start else real_folder(folder)
    return [f.path for f in list_files(folder, begin, max_entries, max_depth).files]


def test_listing_keeps_inside_files_and_omits_escapes(world):
    listed = _listed(world)
    assert "SKILL.md" in listed and "references/guide.md" in listed and "中文/说明.md" in listed
    assert "inner_link.md" in listed
    for escape in ("leak.md", "abs_leak.md", "tmp_leak.md", "sibling_file", "chain1", "chain3", "dangling"):
        assert escape not in listed
    escaped_folders = ("outdir/", "sibling/", "parent/", "rootlink/", "references/escape/", "scripts/deep/")
    assert not any(p.startswith(escaped_folders) for p in listed)
    assert not any(SECRET in p or p.endswith("secret.txt") for p in listed)
    assert listed == sorted(listed)


def test_listing_opens_a_folder_reached_twice_only_once(world):
    listed = _listed(world)
    assert not any(p.startswith("references/up/") for p in listed)  # up -> the skill folder itself
    assert len(listed) == len(set(listed))
