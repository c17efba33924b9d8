"""Load the shared real-skill corpus as `Skill`s for benchmarks and corpus tests.

Loaded through the product's own catalog, so benchmarks see what the proxy sees.
"""

from __future__ import annotations

import json
from pathlib import Path

from proxy.core.catalog.catalog import load_catalog
from proxy.core.catalog.skill import Skill

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
DEV_CASES = SHARED / "eval" / "dev.jsonl"
ROOT_ORDER = ("anthropics", "openai", "superpowers", "kdense", "wshobson", "marketingskills", "neo4j")


def corpus_roots(corpus: Path = CORPUS) -> list[Path]:
    return [corpus / "skills" / name for name in ROOT_ORDER]


def load_corpus_skills(corpus: Path = CORPUS) -> list[Skill]:
    return list(load_catalog(corpus_roots(corpus)).skills)


def load_cases(path: Path = DEV_CASES) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
