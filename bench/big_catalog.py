"""A 1,000-skill catalog for timing: the shared corpus plus renamed, reworded copies.

    python bench/big_catalog.py DEST [--size 1000] [--seed 7]   # write it, e.g. for `skillproxy route --root`

The 396 routable corpus skills are copied unchanged (so the dev cases still have
their answers), then copies are added until there are `size`: each one a corpus
skill under a new name (`<name>-<qualifier>`, folder named the same), its
description's sentences reordered and a suffix clause added, all drawn from a
seeded RNG, so the same seed writes the same catalog byte for byte. Bodies,
other frontmatter fields and the placeholder supporting files are kept, so the
router indexes the same kinds of fields (headings, tags, when_to_use) as on the
real corpus. Each copy goes into the root of the skill it was made from (seven
roots, as in SOURCES.md), and the result is loaded through the product's own
`load_catalog`.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus_skills import CORPUS, ROOT_ORDER, corpus_roots
from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.core.catalog.frontmatter import parse_skill_text
from proxy.core.catalog.skill import Skill
from proxy.core.catalog.validation import MAX_NAME_CHARS

BIG_SIZE = 1000
SEED = 7
QUALIFIERS = (
    "internal", "team", "lite", "pro", "legacy", "next", "oss", "enterprise", "acme", "contoso",
    "labs", "core", "extended", "classic", "studio", "cloud", "local", "edge", "platform", "ops",
    "starter", "advanced", "kit", "hub",
)
ORGS = ("Acme", "Contoso", "Initech", "Globex", "Umbrella", "Hooli", "Vandelay", "Stark")
SUFFIXES = (
    "Follows {org}'s internal conventions.",
    "Maintained by the {org} platform team.",
    "Prefer it over generic advice when the project uses {org} tooling.",
    "Adapted for {org} repositories and their review checklist.",
    "Includes {org}-specific defaults and naming rules.",
    "Use the {org} variant when the request mentions {org}.",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def vary_description(description: str, rng: random.Random) -> str:
    """Reorder the sentences (when there are several) and add one suffix clause."""
    sentences = [s for s in _SENTENCE_END.split(" ".join(description.split())) if s]
    if len(sentences) > 1:
        rng.shuffle(sentences)
    suffix = rng.choice(SUFFIXES).format(org=rng.choice(ORGS))
    text = " ".join(sentences)
    return f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {suffix}"


def new_name(base: str, rng: random.Random, taken: set[str]) -> str:
    """`<base>-<qualifier>`, at most 64 characters, unique in `taken`."""
    for attempt in range(1000):
        word = rng.choice(QUALIFIERS) + (str(attempt // len(QUALIFIERS) + 2) if attempt >= len(QUALIFIERS) else "")
        name = f"{base[: MAX_NAME_CHARS - len(word) - 1].rstrip('-')}-{word}"
        if name not in taken:
            taken.add(name)
            return name
    raise RuntimeError(f"no free name for {base!r}")


def _write_copy(skill: Skill, root: Path, name: str, description: str) -> None:
    folder = root / name
    shutil.copytree(skill.folder, folder)
    skill_file = folder / "SKILL.md"
    parsed = parse_skill_text(skill_file.read_text(encoding="utf-8"))
    fields = {**parsed.fields, "name": name, "description": description}
    front = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False, width=10_000)
    skill_file.write_text(f"---\n{front}---\n{parsed.body}", encoding="utf-8")


def write_big_catalog(dest: Path, size: int = BIG_SIZE, seed: int = SEED, corpus: Path = CORPUS) -> list[Path]:
    """Write the catalog under `dest` (one folder per corpus root); return the roots in order."""
    originals = list(load_catalog(corpus_roots(corpus)).skills)
    roots = [dest / name for name in ROOT_ORDER]
    by_source = {str(src): dst for src, dst in zip(corpus_roots(corpus), roots)}
    for root in roots:
        root.mkdir(parents=True, exist_ok=True)
    for skill in originals[:size]:
        shutil.copytree(skill.folder, by_source[skill.root] / skill.folder.name)
    rng = random.Random(seed)
    taken = {s.name for s in originals} | {s.folder.name for s in originals}
    for i in range(max(0, size - len(originals))):
        source = originals[i % len(originals)]
        name = new_name(source.name, rng, taken)
        _write_copy(source, by_source[source.root], name, vary_description(source.description, rng))
    return roots


def load_big_catalog(size: int = BIG_SIZE, seed: int = SEED, corpus: Path = CORPUS) -> tuple[Catalog, float]:
    """Write the catalog to a temporary folder and load it; (catalog, load seconds).

    The skills stay usable after the folder is removed (routing needs only their text).
    """
    with tempfile.TemporaryDirectory(prefix="skillproxy-big-catalog-") as tmp:
        roots = write_big_catalog(Path(tmp), size, seed, corpus)
        start = time.perf_counter()
        catalog = load_catalog(roots)
        return catalog, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", type=Path, help="an empty or new folder")
    parser.add_argument("--size", type=int, default=BIG_SIZE)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    if args.dest.exists() and any(args.dest.iterdir()):
        parser.error(f"{args.dest} is not empty")
    roots = write_big_catalog(args.dest, args.size, args.seed)
    catalog = load_catalog(roots)
    print(f"{len(catalog.skills)} skills ({len(catalog.shadowed)} shadowed, {len(catalog.skipped)} skipped) in:")
    print(" ".join(f"--root {root}" for root in roots))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
