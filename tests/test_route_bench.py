"""bench/big_catalog.py and bench/route_bench.py on the real corpus (the MiniLM row is optional)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.shared_corpus  # skipped only without ../shared, never in CI (tests/conftest.py)


def test_big_catalog_adds_renamed_reworded_copies_deterministically(tmp_path):
    from bench.big_catalog import write_big_catalog
    from bench.corpus_skills import load_corpus_skills
    from proxy.core.catalog.catalog import load_catalog

    corpus = {s.name: s for s in load_corpus_skills()}
    a = load_catalog(write_big_catalog(tmp_path / "a", size=450, seed=3))
    b = load_catalog(write_big_catalog(tmp_path / "b", size=450, seed=3))
    assert len(a.skills) == 450 and not a.shadowed and not a.skipped
    assert [(s.name, s.description) for s in a.skills] == [(s.name, s.description) for s in b.skills]
    copies = [s for s in a.skills if s.name not in corpus]
    assert len(copies) == 450 - len(corpus)
    assert all(s.name == s.folder_name and len(s.name) <= 64 for s in copies)
    assert all(s.description not in {c.description for c in corpus.values()} for s in copies)


def test_route_bench_json_without_minilm():
    command = [sys.executable, str(REPO / "bench" / "route_bench.py"), "--no-minilm", "--big-size", "0", "--json"]
    report = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert report["cases"] == 320 and set(report["routers"]) == {"skillproxy", "seed003"}
    assert report["routers"]["skillproxy"]["top1"] > report["routers"]["seed003"]["top1"]
    assert report["minilm"] == {"skipped": "--no-minilm"}
