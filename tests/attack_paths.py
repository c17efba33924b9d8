"""Attack paths against the skill file tools, and a planted world to aim them at.

Shared by tests/core/test_skill_paths.py (`resolve_in_folder`) and
tests/integration/test_security_paths.py (the proxy's tool loop, `SkillTools`
and the `/v1/skills` HTTP routes). `plant(base)` builds:

    base/up5/up4/up3/up2/up1/skills/  the skill root; it and each upN hold a marker,
                                      so `..` at depth 1 to 6 each reach one
      pdf/                            the skill under attack, with symlinks leading out
      pdf-private/                    a sibling sharing the name prefix (not a skill), marked
      linked -> base/store/linked     a symlinked skill folder (allowed: users link skills in)
    base/outside/                     marked; the target of absolute and folder symlinks
    /tmp/skillproxy-marker-<id>.txt   a marker in /tmp itself (`World.remove_tmp_marker()`)

A marker is a file `secret.txt` holding SECRET plus a file whose *name* holds
SECRET, so neither a read nor a listing that escapes can go unnoticed.

Each attack is `refused` (resolve_in_folder raises PathRefused before anything is
opened) or, for names that merely look like dots or separators (`．．／`, `‥`,
`∕`, overlong bytes already decoded), a plain file name that stays inside the
folder and names nothing there: those end as "not found".
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

SECRET = f"SKILLPROXY-MARKER-{uuid.uuid4().hex}"
MARKER_FILE = "secret.txt"
SKILL = "pdf"


class Attack(NamedTuple):
    kind: str
    path: str
    refused: bool = True  # False: a look-alike name, inside the folder, naming nothing


def _kind(kind: str, paths: list[str], refused: bool = True) -> list[Attack]:
    return [Attack(kind, path, refused) for path in paths]


_UP = [("../" * depth) + MARKER_FILE for depth in range(1, 7)]

ATTACKS: tuple[Attack, ...] = tuple(
    _kind("dotdot", [
        "..", "../", "./..", "x/..", *_UP, "./../secret.txt", "scripts/../../secret.txt",
        "scripts/../../../secret.txt", "references/../../pdf-private/secret.txt", "references/../..",
        "a/../../secret.txt", "SKILL.md/../../secret.txt", "references//../..//secret.txt", "..//..//secret.txt",
        "references/./../../secret.txt", "../" * 10 + "etc/passwd", "../" * 300 + "etc/passwd",
        "../pdf-private/../pdf/SKILL.md", "a/../b", "a/" + "../" * 40 + "etc/passwd", "references/../leak.md",
    ])
    + _kind("sibling-prefix", ["../pdf-private/secret.txt", "../pdf-private", "../pdf-private/"])
    + _kind("absolute", [
        "/etc/passwd", "/", "/tmp", "//etc/passwd", "///etc/passwd", "/proc/self/environ", "/dev/zero",
        "/./etc/passwd", "/../../etc/passwd", "//server/share/x",
    ])
    + _kind("home", ["~", "~/", "~/.ssh/id_rsa", "~root/.bashrc", "~/../../etc/passwd"])
    + _kind("windows", [
        "..\\secret.txt", "..\\..\\secret.txt", "scripts\\..\\..\\secret.txt", "..\\/secret.txt", "../\\secret.txt",
        "C:\\Windows\\win.ini", "C:/Windows/win.ini", "c:secret.txt", "C:", "\\\\server\\share\\secret.txt",
        "\\etc\\passwd", "\\\\?\\C:\\secret.txt", "references\\guide.md", "C:\\Windows", "a:b",
    ])
    + _kind("url-encoded", [
        "%2e%2e/secret.txt", "%2E%2E/secret.txt", "%2e%2e%2fsecret.txt", "..%2fsecret.txt", "..%2Fsecret.txt",
        "%2e%2e%5csecret.txt", "..%5csecret.txt", "%2e./secret.txt", ".%2e/secret.txt",
        "%252e%252e/secret.txt", "%252e%252e%252fsecret.txt", "%25252e%25252e/secret.txt",
        "..%252fsecret.txt", "secret.txt%00.md", "%00", "%2E%2E%2Fsecret.txt", "references%2fguide.md",
        "%5c..%5csecret.txt",
    ])
    + _kind("overlong-utf8", [
        "%c0%ae%c0%ae/secret.txt", "..%c0%afsecret.txt", "%c0%ae%c0%ae%c0%afsecret.txt",
        "%e0%80%ae%e0%80%ae/secret.txt", "..%c1%9csecret.txt",
    ])
    + _kind("nul-and-control", [
        "secret.txt\x00", "\x00", "../secret.txt\x00.md", "SKILL.md\x00../../secret.txt",
        "references/\x00/../../secret.txt", "scripts\n/../../secret.txt", "SKILL.md\r\n../secret.txt",
        "x\x1b[2J", "\x7f",
        "\ud800/../secret.txt", "SKILL.md\udcff", "\ud800", "x\x00.md", "x\n.md",
    ])
    + _kind("symlink-out", [
        "leak.md", "./leak.md", "abs_leak.md", "tmp_leak.md", "outdir", "outdir/", "outdir/secret.txt",
        "sibling", "sibling/secret.txt", "sibling_file", "chain1", "chain2", "dangling", "parent",
        "parent/secret.txt", "rootlink", "rootlink/etc/passwd", "references/escape", "references/escape/secret.txt",
        "references/escape/pdf-private/secret.txt", "scripts/deep", "scripts/deep/secret.txt",
        "references/up/leak.md", "references/up/outdir/secret.txt",
    ])
    + _kind("too-long", ["a" * 10_000, "../" * 3_334, "x/" * 600, "a/" * 5_000 + MARKER_FILE])
    + _kind("unicode-lookalike", [
        "．．/secret.txt", "．．／secret.txt", "\uff0e\uff0e\uff3csecret.txt", "\u2024\u2024/secret.txt",
        "\u2025/secret.txt", "\u2025/\u2025/secret.txt", "..\u2215secret.txt", "\u2215etc\u2215passwd",
        "..\uff3csecret.txt", "..\u2044secret.txt", "\ufe52\ufe52/secret.txt", "\u3002\u3002/secret.txt",
        "\u00c0\u00ae\u00c0\u00ae/secret.txt", "%uff0e%uff0e/secret.txt", "file:///etc/passwd",
    ], refused=False)
    + _kind("long-name", ["a" * 300, "a/" * 300 + MARKER_FILE, ("b" * 255 + "/") * 3 + MARKER_FILE, "c" * 1024],
            refused=False)
)

def short_id(path: str) -> str:
    """A readable pytest id for a path that may be 10,000 characters long or hold control characters."""
    shown = ascii(path)[1:-1]
    return shown if len(shown) <= 40 else f"{shown[:30]}...({len(path)} chars)"


REFUSED = tuple(a.path for a in ATTACKS if a.refused)
LOOKALIKES = tuple(a.path for a in ATTACKS if not a.refused)


@dataclass(frozen=True)
class World:
    base: Path
    root: Path  # the skill root: a real catalog root
    pdf: Path  # the skill folder under attack
    sibling: Path  # pdf-private, not a skill
    outside: Path
    linked: Path  # root/linked, a symlink to store
    store: Path  # the real folder of the linked skill
    tmp_marker: Path
    markers: tuple[Path, ...]  # every planted secret.txt

    def absolute_attacks(self) -> tuple[Attack, ...]:
        """Absolute paths to this world's markers (and to a file inside, still refused)."""
        targets = (*self.markers, self.tmp_marker, self.pdf / "SKILL.md", self.outside)
        return tuple(Attack("absolute-planted", str(target)) for target in targets)

    def all_attacks(self) -> tuple[Attack, ...]:
        return ATTACKS + self.absolute_attacks()

    def remove_tmp_marker(self) -> None:
        self.tmp_marker.unlink(missing_ok=True)


PDF_SKILL_MD = ("---\nname: pdf\ndescription: Fill PDF forms and read PDF metadata.\n---\n"
                "# PDF\nSee references/guide.md.\n")
PDF_FILES = {"references/guide.md": "guide", "scripts/run.py": "print(1)", "中文/说明.md": "说明", "a..b": "dots"}


def plant(base: Path) -> World:
    ancestors = base / "up5" / "up4" / "up3" / "up2" / "up1"
    root = ancestors / "skills"
    pdf, sibling, outside = root / SKILL, root / "pdf-private", base / "outside"
    _write(pdf / "SKILL.md", PDF_SKILL_MD)
    for relative, text in PDF_FILES.items():
        _write(pdf / relative, text)
    marked = [root, *root.parents[:5], sibling, outside]
    markers = tuple(_mark(folder) for folder in marked)
    tmp_marker = Path(tempfile.gettempdir()) / f"skillproxy-marker-{uuid.uuid4().hex}.txt"
    tmp_marker.write_text(SECRET, encoding="utf-8")
    _plant_links(pdf, outside, tmp_marker)
    store = base / "store" / "linked"
    _write(store / "SKILL.md", "---\nname: linked\ndescription: A linked skill.\n---\n# Linked\n")
    os.symlink(store, root / "linked")
    return World(base, root, pdf, sibling, outside, root / "linked", store, tmp_marker, markers)


def _plant_links(pdf: Path, outside: Path, tmp_marker: Path) -> None:
    links = {
        "leak.md": "../pdf-private/secret.txt", "abs_leak.md": outside / MARKER_FILE, "tmp_leak.md": tmp_marker,
        "outdir": outside, "sibling": "../pdf-private", "sibling_file": "../pdf-private/secret.txt",
        "chain1": "chain2", "chain2": "chain3", "chain3": "../pdf-private/secret.txt",
        "dangling": "/nonexistent-skillproxy-test/x", "parent": "..", "rootlink": "/",
        "inner_link.md": "references/guide.md", "references/up": "..", "references/escape": "../..",
        "scripts/deep": "../outdir",
    }
    for name, target in links.items():
        os.symlink(target, pdf / name)


def _mark(folder: Path) -> Path:
    _write(folder / f"{SECRET}.name", "the name of this file is the secret")
    return _write(folder / MARKER_FILE, SECRET)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
