"""The catalog under hostile sizes and concurrent edits: bounded, never raising.

Figures are printed (run with -s) to compare between runs; nothing here asserts on time.
"""

from __future__ import annotations

import os
import threading
import time
import tracemalloc
from pathlib import Path

from proxy.core.catalog.catalog import load_catalog
from proxy.core.catalog.files import DEFAULT_MAX_FILE_BYTES, read_skill_body
from proxy.core.catalog.loader import MAX_KEPT_DESCRIPTION_CHARS, load_skill
from proxy.core.catalog.skill import Skill

TEN_MB = 10 * 1024 * 1024


def ten_mb_files() -> dict[str, bytes]:
    line = b"Split the document into sections and check each one against the checklist below.\n"
    return {
        "big-body": b"---\nname: big-body\ndescription: A skill with a 10 MB body\n---\n# Big\n\n"
                    + line * (TEN_MB // len(line)),
        "big-frontmatter": b"---\nname: big-frontmatter\ndescription: A 10 MB frontmatter\n"
                           + b"".join(b"key%d: value %d\n" % (i, i) for i in range(TEN_MB // 20)) + b"---\n# Body\n",
        "big-description": b"---\nname: big-description\ndescription: " + b"very long " * (TEN_MB // 10) + b"\n---\n",
        "one-line": b"# One line " + b"word " * (TEN_MB // 5),
        "padded-heading": b"# Title" + b" " * TEN_MB + b"end\n\nText.\n",
    }


def test_ten_megabyte_skill_files_load_bounded(make_skill, tmp_path):
    root = tmp_path / "skills"
    for folder, data in ten_mb_files().items():
        (make_skill(folder, "") / "SKILL.md").write_bytes(data)
    for folder in ten_mb_files():
        tracemalloc.start()
        started = time.perf_counter()
        loaded = load_skill(root / folder, "r")
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{folder}: 10 MB SKILL.md loaded in {elapsed * 1000:.0f} ms, peak Python memory {peak / 1e6:.1f} MB, "
              f"rules {sorted({f.rule for f in loaded.warnings})}")
        assert isinstance(loaded, Skill), (folder, loaded)
        assert "file-truncated" in {f.rule for f in loaded.warnings}
        assert peak < 3 * DEFAULT_MAX_FILE_BYTES * 10  # a few copies of the 100 KiB read, never the 10 MB file
        assert len(loaded.description) <= MAX_KEPT_DESCRIPTION_CHARS + 2
        body = read_skill_body(loaded.skill_file)
        assert len(body.encode()) < DEFAULT_MAX_FILE_BYTES + 200
    catalog = load_catalog([root])
    assert len(catalog.skills) == 5 and catalog.get("padded-heading") is not None
    assert catalog.get("padded-heading").description == "end"  # the first paragraph of what was kept


def skill_text(name: str, version: str) -> str:
    sections = "".join(f"## {version} step {i}\n" + f"{version} detail line. " * 60 + "\n\n" for i in range(12))
    return f"---\nname: {name}\ndescription: {name} in version {version}\n---\n# {name}\n\n{sections}"


def rewrite_in_place(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:  # truncate, then write: a reader can see it half done
        handle.write(text)


def rewrite_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(".SKILL.md.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def test_skill_files_rewritten_while_the_catalog_reloads(make_skill, tmp_path):
    names = [f"s{i:02d}" for i in range(12)]
    versions = {name: {skill_text(name, v): v for v in ("A", "B")} for name in names}
    for name in names:
        make_skill(name, skill_text(name, "A"))
    stop = threading.Event()
    writes = {"in place": 0, "atomic": 0}

    def writer(kind: str, targets: list[str], rewrite) -> None:
        while not stop.is_set():
            for name in targets:
                for text in versions[name]:
                    rewrite(tmp_path / "skills" / name / "SKILL.md", text)
                    writes[kind] += 1

    threads = [threading.Thread(target=writer, args=("in place", names[:6], rewrite_in_place)),
               threading.Thread(target=writer, args=("atomic", names[6:], rewrite_atomically))]
    for thread in threads:
        thread.start()
    seen = {"A": 0, "B": 0}
    skipped_in_place = reloads = partial = 0
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            catalog = load_catalog([tmp_path / "skills"])
            reloads += 1
            for skill in catalog.skills:
                version = skill.description.rsplit(" ", 1)[-1]
                assert skill.description == f"{skill.name} in version {version}" and version in "AB", skill
                body = skill.headings[1:]  # one read: the body is of the description's version, never mixed
                assert body == tuple(f"{version} step {i}" for i in range(len(body))), skill.headings
                partial += len(body) < 12
                seen[version] += 1
            for finding in catalog.skipped:
                assert finding.location.rsplit("/", 2)[-2] in names[:6], finding  # never an atomic one
                skipped_in_place += 1
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    print(f"edit while read: {reloads} reloads, {writes['in place']} in-place and {writes['atomic']} atomic rewrites, "
          f"{seen['A']} skills seen at A, {seen['B']} at B, {skipped_in_place} skipped (caught between truncate "
          f"and write), {partial} read while half written (whole frontmatter, shorter body), 0 mixed")
    assert reloads > 3 and seen["A"] and seen["B"]
